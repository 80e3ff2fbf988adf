"""Code exercises in the browser and the API, graded in the real sandbox."""

from __future__ import annotations

import html
import io

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Progress
from grader.code_models import Submission
from grader.sandbox import Limits, default_pool
from grader.services import submissions
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.web.conftest import csrf_from, login, make_user, seat_key


def send(client: FlaskClient, source: str | None = None, upload: bytes | None = None):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/exercises/code-layer-norm").get_data(as_text=True))
    data: dict[str, object] = {"csrf_token": token, "source": source or ""}
    if upload is not None:
        data["upload"] = (io.BytesIO(upload), "solution.py")
    return client.post("/exercises/code-layer-norm", data=data, content_type="multipart/form-data")


def rows(app: Flask) -> list[Submission]:
    with app.app_context():
        return list(db.session.scalars(sa.select(Submission)))


def graded_page(app: Flask, learner: FlaskClient, source: str) -> str:
    """Send the code and return its page once graded (on a busy machine the first look may still be pending)."""
    location = send(learner, source).headers["Location"]
    with app.app_context():
        submissions.wait_until_graded(rows(app)[0].id, seconds=120)
    return learner.get(location).get_data(as_text=True)


def test_code_page_shows_the_stub(learner: FlaskClient) -> None:
    html = learner.get("/exercises/code-layer-norm").get_data(as_text=True)
    assert "def layer_norm(x, gamma, beta, eps=1e-5):" in html
    assert "Run the tests" in html


def test_correct_code_passes_every_case_and_counts(app: Flask, learner: FlaskClient) -> None:
    response = send(learner, GOOD)
    assert response.status_code == 303
    page = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert "All cases passed" in page and "constant-row" in page
    [row] = rows(app)
    assert (row.status, row.score, row.number) == ("graded", 1.0, 1)
    with app.app_context():
        assert db.session.get(Progress, (*seat_key(row.user_id), "code-layer-norm")).solved_at is not None
    sidebar = page[page.index("Your submissions"):]
    assert f'?submission={row.id}#feedback" aria-label="Submission {row.number}">{row.number}</a>' in sidebar and "100" in sidebar


def test_a_known_mistake_is_named(app: Flask, learner: FlaskClient) -> None:
    page = learner.get(send(learner, NO_EPS).headers["Location"]).get_data(as_text=True)
    assert "<strong>Likely mistake:</strong> no ε under the square root." in page
    assert rows(app)[0].result["misconception"] == "no-eps"


def test_what_visible_cases_print_is_shown_under_them_and_hidden_cases_output_is_not(
        app: Flask, learner: FlaskClient) -> None:
    chatty = GOOD.replace("    mu = ", "    print('rows <', len(x), '>', x.shape)\n    mu = ")
    page = learner.get(send(learner, chatty).headers["Location"]).get_data(as_text=True)
    [row] = rows(app)
    cases = row.result["cases"]
    visible = [c for c in cases if c["printed"]]
    assert visible and len(visible) < len(cases)  # hidden cases kept nothing
    assert all(c["printed"].startswith("rows < ") for c in visible)
    assert page.count('<p class="printed-label">Printed</p>') == len(visible)
    assert all(html.escape(c["printed"]) in page for c in visible)


def test_a_run_that_ran_out_of_time_shows_the_cases_before_and_what_the_stopped_one_printed(
        app: Flask, learner: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # The loop is stopped by its 2 s of CPU time. A wide wall clock keeps a loaded CI box, which may
    # give it under half a CPU, from stopping it first as "starved" (not graded, no result).
    monkeypatch.setattr(default_pool(), "limits", Limits(wall_seconds=60))
    stuck = GOOD.replace("import numpy as np\n", "import numpy as np\n\ncalls = []\n").replace(
        "    mu = ", "    calls.append(1)\n    print('call', len(calls))\n    while len(calls) == 2:\n        pass\n    mu = ")
    page = graded_page(app, learner, stuck)
    [row] = rows(app)
    assert (row.status, row.result["status"], row.score) == ("graded", "timeout", 0.0)
    assert [(c["status"], c["printed"]) for c in row.result["cases"]] == [("passed", "call 1\n"), ("timeout", "call 2\n")]
    assert "Your code took too long" in page and "Took too long on this case." in page
    assert page.count('<p class="printed-label">Printed</p>') == 2 and "<pre class=\"detail printed\">call 2\n</pre>" in page


def test_upload_is_graded_like_pasted_code(app: Flask, learner: FlaskClient) -> None:
    learner.get(send(learner, upload=GOOD.encode()).headers["Location"])
    assert rows(app)[0].score == 1.0


def test_non_utf8_and_oversized_uploads_are_refused_and_not_stored(app: Flask, learner: FlaskClient) -> None:
    bad = send(learner, upload=b"def layer_norm(x):\n    return '\xff'\n")
    assert bad.status_code == 422 and "not UTF-8" in bad.get_data(as_text=True)
    big = send(learner, upload=b"#" * (70 * 1024))
    assert big.status_code == 422 and "larger than 64 KB" in big.get_data(as_text=True)
    app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024
    huge = send(learner, upload=b"#" * (10 * 1024 * 1024))
    page = huge.get_data(as_text=True)  # too large to read: the exercise's page, the limit said by the field
    assert huge.status_code == 413 and "larger than 64 KB" in page and 'name="source"' in page
    assert rows(app) == []


def test_the_same_source_twice_is_one_submission(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD)
    send(learner, GOOD)
    assert len(rows(app)) == 1


def test_api_submission_and_lookup(app: Flask, client: FlaskClient, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    made = client.post("/api/v1/exercises/code-layer-norm/submissions", json={"source": GOOD}, headers=headers)
    assert made.status_code == 201
    body = made.get_json()
    assert body["status"] == "graded" and body["result"]["status"] == "passed"
    again = client.get(f"/api/v1/submissions/{body['submission_id']}", headers=headers).get_json()
    assert again == body
    upload = client.post("/api/v1/exercises/code-layer-norm/submissions", headers=headers,
                         data={"file": (io.BytesIO(NO_EPS.encode()), "x.py")}, content_type="multipart/form-data")  # fmt: skip
    assert upload.get_json()["result"]["misconception"] == "no-eps"
    for data, said in (({"fiel": (io.BytesIO(GOOD.encode()), "x.py")}, "Unknown field 'fiel'."),
                       ({"file": (io.BytesIO(GOOD.encode()), "x.py"), "seed": "7"}, "Unknown field 'seed'."),
                       ({"note": "no file"}, "Unknown field 'note'."), ({}, 'a multipart file in the field "file"')):
        refused = client.post("/api/v1/exercises/code-layer-norm/submissions", headers=headers, data=data,
                              content_type="multipart/form-data")  # fmt: skip
        assert refused.status_code == 400 and said in refused.get_json()["message"], refused.get_json()


def test_api_hides_other_learners_submissions(app: Flask, client: FlaskClient, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    made = client.post("/api/v1/exercises/code-layer-norm/submissions", json={"source": GOOD}, headers=headers)
    make_user(app, "eve@example.com")
    eve = app.test_client()
    login(eve, "eve@example.com")
    from tests.web.api_support import token_for

    eve_token = token_for(app, "eve@example.com")
    other = client.get(f"/api/v1/submissions/{made.get_json()['submission_id']}",
                       headers={"Authorization": f"Bearer {eve_token}"})  # fmt: skip
    assert other.status_code == 404


def test_api_refuses_code_at_the_attempts_endpoint(client: FlaskClient, token: str) -> None:
    response = client.post("/api/v1/exercises/code-layer-norm/attempts", json={"answers": {}},
                           headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    assert response.status_code == 409


def test_without_a_sandbox_the_submission_fails_clearly_and_does_not_count(
        app: Flask, learner: FlaskClient, monkeypatch) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    from grader.sandbox import SandboxUnavailable
    from grader.services import submissions

    def unavailable() -> None:
        raise SandboxUnavailable("bwrap is not installed")

    monkeypatch.setattr(submissions, "default_pool", unavailable)
    page = learner.get(send(learner, GOOD).headers["Location"]).get_data(as_text=True)
    assert "code grading is not available on this server" in page
    [row] = rows(app)
    assert (row.status, row.score, row.number) == ("failed", None, None)


def test_a_fault_in_grading_is_recorded_once_and_does_not_count(
        app: Flask, learner: FlaskClient, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    from grader.services import submissions

    class Broken:
        def run(self, *args: object, **kwargs: object) -> object:
            raise RuntimeError("an unexpected fault while grading")

    monkeypatch.setattr(submissions, "default_pool", Broken)
    page = learner.get(send(learner, GOOD).headers["Location"]).get_data(as_text=True)
    assert "the grader failed on this submission" in page and "unexpected fault" not in page
    history = page[page.index("Your submissions"):]
    assert 'aria-label="not graded">–</a></th>\n        <td>not graded</td>' in history  # not "failed": uncounted
    [row] = rows(app)
    assert (row.status, row.score, row.number) == ("failed", None, None)
    assert "grading submission" in caplog.text and "an unexpected fault while grading" in caplog.text


def test_a_database_error_while_grading_leaves_the_submission_pending_for_the_reaper(
        app: Flask, learner: FlaskClient, monkeypatch) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    from sqlalchemy.exc import OperationalError

    from grader.services import submissions

    def database_down(*args: object, **kwargs: object) -> None:
        raise OperationalError("SELECT 1", {}, Exception("database is locked"))

    monkeypatch.setattr(submissions, "grade_pending", database_down)
    send(learner, GOOD)
    [row] = rows(app)
    again = submissions.grade_in_background(app, row.id, submissions.default_pool)
    assert isinstance(again.exception(timeout=30), OperationalError)
    assert [r.status for r in rows(app)] == ["pending"]
