"""The client as the service serves it: one file of the standard library only, with the site's address in it, its
SHA-256 and a snippet on the profile page; outdated clients refused with where to download; what the client reads
from the API (who the token is, a submission's named mistake and inputs, in the learner's language)."""

from __future__ import annotations

import ast
import hashlib
import re
import sys

from flask import Flask
from flask.testing import FlaskClient

from grader.client import grader_client
from tests.layer_norm_sources import NO_EPS
from tests.web.api_support import API, auth
from tests.web.conftest import make_user


def test_the_client_is_one_file_of_the_standard_library_with_this_sites_address(client: FlaskClient) -> None:
    reply = client.get(f"{API}/client.py", base_url="https://grader.example.org")
    assert reply.status_code == 200 and reply.mimetype == "text/x-python"
    assert reply.headers["Content-Disposition"] == "attachment; filename=grader_client.py"
    text = reply.get_data(as_text=True)
    assert "\nSERVICE_URL = 'https://grader.example.org'\n" in text and "\nMAX_SOURCE_BYTES = 65536  #" in text
    tree = ast.parse(text)
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}  # fmt: skip
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert imported and imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    assert f"\nCLIENT_VERSION = {grader_client.CLIENT_VERSION}  #" in text


def test_the_profile_shows_the_clients_sha256_and_a_snippet(app: Flask, learner: FlaskClient) -> None:
    served = learner.get(f"{API}/client.py").get_data()
    page = learner.get("/profile").get_data(as_text=True)
    assert hashlib.sha256(served).hexdigest() in page
    snippet = page[page.index('id="client-snippet"'):]
    snippet = snippet[:snippet.index("</pre>")]
    assert "http://localhost/api/v1/client.py" in snippet and "import grader_client as g" in snippet
    assert "python grader_client.py submit code-layer-norm solution.py" in snippet


def test_an_outdated_client_is_refused_with_where_to_download_and_a_current_one_is_not(
        app: Flask, client: FlaskClient, token: str) -> None:
    stale = client.get(f"{API}/progress", headers={**auth(token), "X-Grader-Client": "0"})
    assert stale.status_code == 409
    assert stale.get_json() == {"error": "client_outdated", "download": "http://localhost/api/v1/client.py",
                                "message": "This grader_client.py (version 0) is older than this service supports "
                                           "(version 1 or later); nothing was sent."}  # fmt: skip
    current = client.get(f"{API}/progress", headers={**auth(token), "X-Grader-Client": "1"})
    assert current.status_code == 200
    assert client.get(f"{API}/client.py", headers={"X-Grader-Client": "0"}).status_code == 200  # the way out


def test_me_says_the_learners_language_and_the_tokens_limits(app: Flask, client: FlaskClient, token: str) -> None:
    me = client.get(f"{API}/me", headers=auth(token))
    assert me.status_code == 200
    assert me.get_json() == {"locale": "en", "course": None, "expires_at": None,
                             "client_version": grader_client.CLIENT_VERSION}  # fmt: skip
    assert client.get(f"{API}/me").status_code == 401


def test_a_graded_submission_names_its_mistake_and_gives_inputs_in_the_language_asked(
        app: Flask, client: FlaskClient, token: str) -> None:
    made = client.post(f"{API}/exercises/code-layer-norm/submissions", json={"source": NO_EPS}, headers=auth(token))
    assert made.status_code == 201
    number = made.get_json()["submission_id"]
    english = client.get(f"{API}/submissions/{number}", headers=auth(token)).get_json()
    russian = client.get(f"{API}/submissions/{number}?lang=ru", headers=auth(token)).get_json()
    assert english["result"]["status"] == "failed" and english["mistake"] == "no ε under the square root"
    assert russian["mistake"] != english["mistake"] and re.search("[а-я]", russian["mistake"])
    assert russian["result"]["message"] != english["result"]["message"]
    assert english["inputs"] and english["inputs"] == russian["inputs"]
    [(case, call)] = list(english["inputs"].items())[:1]
    assert call.startswith("import numpy as np") and "layer_norm(x=x, gamma=gamma, beta=beta" in call
    assert client.get(f"{API}/submissions/{number}?lang=de", headers=auth(token)).status_code == 400


def test_a_typed_answers_verdict_comes_in_the_language_asked(app: Flask, client: FlaskClient, token: str) -> None:
    make_user(app, "other@example.com")
    wrong = {"mu": "5.000", "sigma": "7.000", "u": "[1.000; 2.000; 3.000; 4.000]"}
    url = f"{API}/exercises/block-layernorm/attempts"
    english = client.post(url, json={"answers": wrong}, headers=auth(token)).get_json()
    portuguese = client.post(f"{url}?lang=pt", json={"answers": {**wrong, "mu": "5.0000"}},
                             headers=auth(token)).get_json()  # fmt: skip
    assert english["parts"]["sigma"]["status"] == portuguese["parts"]["sigma"]["status"] == "incorrect"
    assert english["parts"]["sigma"]["message"] != portuguese["parts"]["sigma"]["message"]
