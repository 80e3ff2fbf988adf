"""grader_client.py in a terminal, as a learner runs it, against a live gunicorn: exit 0 passed, 1 not passed, 2 an
error said in one line on stderr, with nothing stored, for every kind of bad input."""

from __future__ import annotations

import json
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.client.conftest import Service
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.queue.support import free_port

pytestmark = pytest.mark.database

CODE = "code-layer-norm"
NUMERIC = "block-layernorm"


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("grader: "), stderr
    return lines[0]


def solution(service: Service, name: str, source: str) -> Path:
    path = service.directory / name
    path.write_text(source, encoding="utf-8")
    return path


def test_a_correct_solution_passes_and_exits_0(service: Service) -> None:
    token = service.learner("pass@example.com")
    done = service.run("submit", CODE, str(solution(service, "good.py", GOOD)), token=token)
    assert done.returncode == 0, done.stdout[:500] + done.stderr
    assert done.stdout.startswith(f"{CODE}: passed, score 100%") and "FAIL" not in done.stdout
    assert service.stored("pass@example.com") == (0, 1)


def test_a_wrong_solution_exits_1_naming_the_mistake_with_inputs_to_paste(service: Service) -> None:
    token = service.learner("wrong@example.com")
    done = service.run("submit", CODE, str(solution(service, "no_eps.py", NO_EPS)), token=token)
    assert done.returncode == 1, done.stderr
    assert f"{CODE}: failed" in done.stdout and "Likely mistake: " in done.stdout and "FAIL" in done.stdout
    pasted = done.stdout[done.stdout.index("to paste and run:"):]
    assert "import numpy as np" in pasted and re.search(r"layer_norm\(x=x, gamma=gamma, beta=beta", pasted)


def test_typed_answers_hints_and_status(service: Service) -> None:
    token = service.learner("typed@example.com")
    wrong = service.run("answer", NUMERIC, "mu=5.000", "sigma=7.000", "u=[1.000, 2.000, 3.000, 4.000]",
                        token=token)
    assert wrong.returncode == 1 and "mu: incorrect" in wrong.stdout, wrong.stdout + wrong.stderr
    hinted = service.run("hint", NUMERIC, token=token)
    assert hinted.returncode == 0 and hinted.stdout.startswith("Hint 1: "), hinted.stderr
    right = {part: json.dumps(value) if isinstance(value, list) else repr(value)
             for part, value in service.answers("typed@example.com", NUMERIC).items()}  # fmt: skip
    passed = service.run("answer", NUMERIC, *(f"{k}={v}" for k, v in right.items()), token=token)
    assert passed.returncode == 0 and "graded" in passed.stdout, passed.stdout + passed.stderr
    status = service.run("status", token=token)
    assert status.returncode == 0 and f"{NUMERIC}: best " in status.stdout and "solved" in status.stdout
    assert re.search(r"Your token expires on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.", status.stdout)
    assert service.stored("typed@example.com") == (2, 0)


def test_messages_come_in_the_language_the_learner_chose(service: Service) -> None:
    token = service.learner("lingua@example.com")
    with service.app.app_context():
        from grader.extensions import db
        from grader.services import accounts

        user = accounts.user_by_email("lingua@example.com")
        assert user is not None
        accounts.set_locale(user, "pt")
        db.engine.dispose()
    english = service.run("submit", CODE, str(solution(service, "no_eps_en.py", NO_EPS)),
                          token=service.learner("english@example.com"))  # fmt: skip
    portuguese = service.run("submit", CODE, str(solution(service, "no_eps_pt.py", NO_EPS)), token=token)
    assert english.returncode == portuguese.returncode == 1
    mistake = [line for line in portuguese.stdout.splitlines() if line.startswith("Likely mistake: ")]
    english_mistake = [line for line in english.stdout.splitlines() if line.startswith("Likely mistake: ")]
    assert mistake and english_mistake and mistake != english_mistake  # the title, translated


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        yield int(listening.getsockname()[1])


def test_every_bad_input_is_one_line_exit_2_and_nothing_stored(service: Service, silent_port: int) -> None:
    email = "bad@example.com"
    token = service.learner(email)
    good = str(solution(service, "good_again.py", GOOD))
    said = {}
    said["wrong token"] = service.run("submit", CODE, good, token="gr_" + "x" * 43)
    said["no token"] = service.run("status", token="")
    said["unreachable"] = service.run("submit", CODE, good, token=token, GRADER_URL=f"http://127.0.0.1:{free_port()}")
    said["timeout"] = service.run("submit", CODE, good, token=token, GRADER_URL=f"http://127.0.0.1:{silent_port}",
                                  GRADER_TIMEOUT="1")  # fmt: skip
    big = str(solution(service, "big.py", GOOD + "#" * 70_000 + "\n"))
    said["over the size limit"] = service.run("submit", CODE, big, token=token)
    said["unknown exercise"] = service.run("answer", "no-such-exercise", "mu=1", token=token)
    said["unknown code exercise"] = service.run("submit", "no-such-exercise", good, token=token)
    said["not part=value"] = service.run("answer", NUMERIC, "mu", token=token)
    lines = {case: one_line(done.stderr) for case, done in said.items()}
    assert all(done.returncode == 2 for done in said.values()), {k: v.returncode for k, v in said.items()}
    assert "The token was refused: This API token is not valid." in lines["wrong token"]
    assert "No token: pass it to connect() or set GRADER_TOKEN" in lines["no token"]
    assert lines["unreachable"].startswith("grader: Cannot reach http://127.0.0.1:")
    assert lines["timeout"] == f"grader: http://127.0.0.1:{silent_port} did not answer within 1 seconds: try again later."
    assert "over the service's limit of 64 KB" in lines["over the size limit"]
    assert lines["unknown exercise"] == lines["unknown code exercise"] == "grader: There is no exercise with that name."
    assert "Give each answer as part=value" in lines["not part=value"]
    assert service.stored(email) == (0, 0)

    service.expire(email)
    expired = service.run("submit", CODE, good, token=token)
    assert expired.returncode == 2 and "This API token expired on " in one_line(expired.stderr)
    assert service.stored(email) == (0, 0)


def test_an_outdated_client_is_told_where_to_download_the_current_one(service: Service) -> None:
    token = service.learner("old@example.com")
    old = service.directory / "old" / "grader_client.py"
    old.parent.mkdir(exist_ok=True)
    text = service.client.read_text()
    assert "\nCLIENT_VERSION = 1  #" in text
    old.write_text(text.replace("\nCLIENT_VERSION = 1  #", "\nCLIENT_VERSION = 0  #", 1))
    sent = str(solution(service, "good_old.py", GOOD))
    stale = service.run("submit", CODE, sent, token=token, client=old)
    assert stale.returncode == 2
    assert one_line(stale.stderr) == (
        "grader: This grader_client.py (version 0) is older than this service supports (version 1 or later); nothing "
        f"was sent. Download it from {service.base}/api/v1/client.py")
    assert service.stored("old@example.com") == (0, 0)
    done = service.run("submit", CODE, sent, token=token)
    assert done.returncode == 0 and service.stored("old@example.com") == (0, 1)  # the current one is fine


def test_too_many_requests_say_when_to_try_again(service: Service) -> None:
    email = "busy@example.com"
    token = service.learner(email)
    unreadable = json.dumps({"answers": {"mu": "not a number"}}).encode()
    for _ in range(30):  # 422 each: read and refused, nothing stored, but counted by the limit
        request = urllib.request.Request(f"{service.base}/api/v1/exercises/{NUMERIC}/attempts", data=unreadable,
                                         headers={"Authorization": f"Bearer {token}",
                                                  "Content-Type": "application/json"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 422
    done = service.run("answer", NUMERIC, "mu=1.0", token=token)
    assert done.returncode == 2
    assert re.fullmatch(r"grader: Too many requests: try again in \d+ seconds\.", one_line(done.stderr))
    assert service.stored(email) == (0, 0)
