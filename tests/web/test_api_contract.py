"""The OpenAPI document says exactly what the API accepts: schemathesis (`--checks all`) against a real
gunicorn on a fresh database, as a learner; then the document's exact shapes one by one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, get_args

import pytest
from flask.testing import FlaskClient

from grader.extensions import db
from grader.web.api_schema import Language
from grader.web.i18n import LANGUAGES
from tests.queue.support import ROOT, Gunicorn, env_for
from tests.web.api_support import API, EXERCISE, auth, token_for
from tests.web.conftest import build_app, empty_database

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
EXAMPLES = 5  # per operation and phase: the run is bounded, and the same every time (seeded)
# Every exercise that takes typed answers has its own attempt and practice paths, alike but for their
# part ids (checked for each below): schemathesis runs on two of them, one with one part and one with
# four, and on every other operation.
OWN_PATHS_SKIPPED = r"/exercises/(?!block-residual/|modern-shapes/|\{)[^/]+/(attempts|practice)$"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Gunicorn, str]]:
    """gunicorn (two workers) on a brand-new database with the exercises synced and a learner's token."""
    with empty_database(tmp_path) as url:
        app = build_app(tmp_path, SQLALCHEMY_DATABASE_URI=url)
        token = token_for(app)
        with app.app_context():
            db.engine.dispose()
        # Limits off: the contract is about shapes; a 429 mid-run would only hide operations.
        server = Gunicorn(env_for(url, GRADER_RATELIMIT_ENABLED="false"), tmp_path, workers=2)
        try:
            yield server.wait_ready(), token
        finally:
            server.stop()


def test_schemathesis_finds_no_request_the_document_and_the_api_disagree_on(served: tuple[Gunicorn, str],
                                                                             tmp_path: Path) -> None:  # fmt: skip
    server, token = served
    run = subprocess.run([str(SCHEMATHESIS), "--config-file", str(ROOT / "tests/web/schemathesis.toml"), "run",
                          f"{server.base}{API}/openapi.json", "--checks", "all",
                          "--header", f"Authorization: Bearer {token}", "--max-examples", str(EXAMPLES),
                          "--seed", "22", "--workers", "1", "--generation-database", "none",
                          "--exclude-path-regex", OWN_PATHS_SKIPPED],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)  # fmt: skip
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert "❌" not in report and "passed" in report, report


def _document(client: FlaskClient) -> dict[str, Any]:
    doc: dict[str, Any] = client.get(f"{API}/openapi.json").get_json()
    return doc


def test_lang_is_one_of_the_languages_in_the_document_and_the_api(client: FlaskClient, token: str) -> None:
    assert get_args(Language) == tuple(LANGUAGES)
    for path in (f"{API}/exercises", f"{API}/exercises/{{exercise_id}}", f"{API}/exercises/{{exercise_id}}/practice"):
        [lang] = [p for p in _document(client)["paths"][path]["get"]["parameters"] if p["name"] == "lang"]
        assert lang["schema"] == {"type": "string", "enum": ["en", "pt", "ru"]}, path
    assert client.get(f"{API}/exercises?lang=pt", headers=auth(token)).status_code == 200
    for asked in ("", "de", "PT"):  # an empty one is no language either
        assert client.get(f"{API}/exercises?lang={asked}", headers=auth(token)).status_code == 400, asked


def test_each_exercise_s_attempts_name_exactly_its_parts(client: FlaskClient, token: str) -> None:
    paths = _document(client)["paths"]
    listed = client.get(f"{API}/exercises", headers=auth(token)).get_json()
    numeric = {item["id"]: {part["id"] for part in item["parts"]} for item in listed if item["kind"] == "numeric"}
    assert len(numeric) >= 10
    for exercise, parts in numeric.items():
        for path in (f"{API}/exercises/{exercise}/attempts", f"{API}/exercises/{exercise}/practice"):
            body = paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]
            answers = body["properties"]["answers"]
            assert set(answers["properties"]) == parts and answers["additionalProperties"] is False, path
            assert answers["minProperties"] == 1 and body["additionalProperties"] is False, path
        assert set(paths[f"{API}/exercises/{exercise}/practice"]) == {"get", "post"}  # as the Allow header says
    generic = paths[f"{API}/exercises/{{exercise_id}}/attempts"]["post"]
    assert set(generic["parameters"][0]["schema"]["not"]["enum"]) == set(numeric)


def test_an_attempt_s_version_may_be_left_out_and_its_answers_may_not_be_empty(client: FlaskClient,
                                                                              token: str) -> None:  # fmt: skip
    schema = _document(client)["components"]["schemas"]["AttemptIn"]
    assert schema["required"] == ["answers"] and schema["properties"]["answers"]["minProperties"] == 1
    empty = client.post(f"{API}/exercises/{EXERCISE}/attempts", json={"answers": {}}, headers=auth(token))
    assert empty.status_code in (400, 422)  # the API refuses it too, as the document says


def test_code_must_be_non_empty_text_as_json_or_as_a_multipart_field(client: FlaskClient, token: str) -> None:
    body = _document(client)["paths"][f"{API}/exercises/{{exercise_id}}/submissions"]["post"]["requestBody"]["content"]
    source = _document(client)["components"]["schemas"]["SourceIn"]["properties"]["source"]
    upload = body["multipart/form-data"]["schema"]["properties"]["file"]
    for text in (source, upload):
        assert text["minLength"] == 1 and text["maxLength"] == 64 * 1024
        pattern = re.compile(text["pattern"])
        assert pattern.search("def f():\n    return 1\n") and pattern.search("x")
        assert not any(pattern.search(blank) for blank in ("", " \n\t", "\x1c", "x\x00y", "\ufeff"))
    # curl -F 'file=<code.py' sends a part without a file name: its text is the code. (A numeric
    # exercise takes no code, which is said only once the code was read.)
    sent = client.post(f"{API}/exercises/{EXERCISE}/submissions", data={"file": "x = 1\n"},
                       content_type="multipart/form-data", headers=auth(token))  # fmt: skip
    assert sent.status_code == 409, sent.get_json()


def test_the_api_root_is_an_index_not_a_404(client: FlaskClient) -> None:
    response = client.get(API)  # no token needed, like the document it points to
    assert response.status_code == 200
    index = response.get_json()
    assert client.get(index["openapi"]).get_json()["openapi"] == "3.1.0"
    assert index["tokens"].endswith("/profile") and index["docs"].endswith(f"{API}/docs")
    page = client.get(index["docs"])  # the reference for people: an HTML page on the same document
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert f'data-openapi="{API}/openapi.json"' in page.get_data(as_text=True)
    assert _document(client)["paths"][API]["get"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ApiIndex"}
