"""The attempt limit on code exercises while submissions wait for grading (slow grading, Redis down).

A pending submission uses an attempt from the moment it is stored; the same source counts once,
and a verdict never takes attempts_used past the exercise's limit as it stands when it arrives.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from markupsafe import escape
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader import tasks
from grader.extensions import db
from grader.models import Progress, utcnow
from grader.code_models import Submission
from grader.sandbox import default_pool
from grader.services import submissions
from tests.web.api_support import auth
from tests.web.conftest import csrf_from, make_user, seat
from tests.web.test_due_dates import with_lines

EXERCISE = "code-gelu"
SUBMIT = f"/api/v1/exercises/{EXERCISE}/submissions"
TANH = """import numpy as np


def gelu(z):
    return 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * np.power(z, 3))))
"""
RELU = """import numpy as np


def gelu(z):
    return np.maximum(z, 0)
"""
ROUNDED = TANH.replace("np.sqrt(2 / np.pi)", "0.798")


def limit_attempts(app: Flask, limit: int) -> None:
    """Store code-gelu under another id with `max_attempts: limit`."""
    with_lines(app, f"max_attempts: {limit}\n", "code/code-gelu", EXERCISE)


@pytest.fixture
def broker_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """Grading goes through a queue that cannot be reached: submissions are stored and stay pending."""
    monkeypatch.setattr(tasks, "queued", lambda: True)
    monkeypatch.setattr(tasks, "enqueue", lambda submission_id: False)


def post(client: FlaskClient, token: str, source: str) -> tuple[int, dict[str, object]]:
    response = client.post(SUBMIT, json={"source": source}, headers=auth(token))
    return response.status_code, response.get_json()


def grade_everything_pending(app: Flask) -> None:
    """What a worker does once the queue is back: grade each pending submission in the sandbox, oldest first."""
    with app.app_context():
        waiting = db.session.scalars(sa.select(Submission.id).where(Submission.status == "pending")
                                     .order_by(Submission.id)).all()  # fmt: skip
        for submission_id in waiting:
            submissions.grade_pending(submission_id, default_pool())


def stored(app: Flask) -> list[tuple[str, int | None, float | None]]:
    """Every submission's status, counted attempt number and score, oldest first."""
    with app.app_context():
        rows = db.session.scalars(sa.select(Submission).order_by(Submission.id))
        return [(row.status, row.number, row.score) for row in rows]


def attempts_used(app: Flask) -> int:
    """The one learner's counted attempts on code-gelu."""
    with app.app_context():
        return db.session.scalars(sa.select(Progress.attempts_used).where(Progress.exercise_id == EXERCISE)).one()


def test_pending_submissions_use_up_the_limit(app: Flask, client: FlaskClient, token: str, broker_down: None) -> None:
    limit_attempts(app, 1)
    first, body = post(client, token, TANH)
    assert (first, body["status"]) == (201, "pending")
    for other in (RELU, ROUNDED):
        refused, error = post(client, token, other)
        assert refused == 409 and "No attempts are left" in str(error)
    grade_everything_pending(app)
    assert stored(app) == [("graded", 1, 1.0)]
    assert attempts_used(app) == 1


def test_a_pending_submission_that_fails_gives_its_attempt_back(
        app: Flask, client: FlaskClient, token: str, broker_down: None) -> None:  # fmt: skip
    limit_attempts(app, 1)
    first, body = post(client, token, RELU)
    assert first == 201 and post(client, token, TANH)[0] == 409
    with app.app_context():  # the reaper gives up on it after the deadline: not graded, not counted
        reaped = submissions.reap(app, now=utcnow() + tasks.DEADLINE + timedelta(minutes=1))
        assert reaped.failed == [body["submission_id"]]
    again, body = post(client, token, TANH)
    assert (again, body["status"]) == (201, "pending")


def test_a_syntax_error_costs_no_attempt_and_a_load_error_does(app: Flask, client: FlaskClient, token: str) -> None:
    limit_attempts(app, 2)
    status, body = post(client, token, TANH.replace("def gelu(z):", "def gelu(z)"))
    assert (status, body["status"], body["score"]) == (201, "failed", None)
    assert "syntax error. This try was not counted." in body["result"]["message"]
    assert attempts_used(app) == 0
    status, body = post(client, token, "1 / 0\n" + TANH)  # ran, raised while loading: that is an attempt
    assert (status, body["status"], body["score"]) == (201, "graded", 0.0)
    assert post(client, token, TANH)[1]["score"] == 1.0
    assert stored(app) == [("failed", None, None), ("graded", 1, 0.0), ("graded", 2, 1.0)] and attempts_used(app) == 2


def test_the_same_source_while_pending_is_the_same_submission_and_counts_once(
        app: Flask, client: FlaskClient, token: str, broker_down: None) -> None:  # fmt: skip
    limit_attempts(app, 2)
    first, body = post(client, token, RELU)
    again, same = post(client, token, RELU)
    assert (first, again, same["submission_id"]) == (201, 200, body["submission_id"])
    assert post(client, token, ROUNDED)[0] == 201
    assert post(client, token, RELU)[0] == 200  # a repeat is never refused: it shows the one that counts
    assert post(client, token, TANH)[0] == 409
    grade_everything_pending(app)
    assert [(status, number) for status, number, _ in stored(app)] == [("graded", 1), ("graded", 2)]
    assert attempts_used(app) == 2


def form_post(client: FlaskClient, source: str):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get(f"/exercises/{EXERCISE}").get_data(as_text=True))
    return client.post(f"/exercises/{EXERCISE}", data={"csrf_token": token, "source": source},
                       content_type="multipart/form-data")  # fmt: skip


def test_the_page_counts_pending_submissions_as_used(app: Flask, learner: FlaskClient, broker_down: None) -> None:
    limit_attempts(app, 2)
    assert "2 attempts left" in learner.get(f"/exercises/{EXERCISE}").get_data(as_text=True)
    page = learner.get(form_post(learner, RELU).headers["Location"]).get_data(as_text=True)
    assert "Your code is queued" in page and "1 attempt left" in page
    page = learner.get(form_post(learner, ROUNDED).headers["Location"]).get_data(as_text=True)
    assert "0 attempts left" in page and '<button class="primary" type="submit" disabled>' in page
    refused = form_post(learner, TANH)
    assert refused.status_code == 409 and "used all your attempts" in refused.get_data(as_text=True)
    assert str(escape(TANH)) in refused.get_data(as_text=True)  # the code just sent stays in the editor
    assert len(stored(app)) == 2


def test_concurrent_submissions_cannot_both_slip_under_the_limit(
        app: Flask, broker_down: None, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    limit_attempts(app, 1)
    user_id = make_user(app, "racer@example.com")
    counted = submissions._pending

    def slow_count(user: int, exercise: str) -> int:  # widen the gap between counting and storing
        found = counted(user, exercise)
        time.sleep(0.3)
        return found

    monkeypatch.setattr(submissions, "_pending", slow_count)
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def submit(source: str) -> None:
        with app.app_context():
            start.wait()
            try:
                submissions.create(seat(user_id), EXERCISE, source)
                outcomes.append("stored")
            except submissions.AttemptsUsed:
                outcomes.append("refused")
            finally:
                db.session.remove()

    threads = [threading.Thread(target=submit, args=(source,)) for source in (RELU, ROUNDED)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["refused", "stored"]
    assert len(stored(app)) == 1


def test_a_verdict_after_the_limit_was_lowered_is_not_counted(
        app: Flask, client: FlaskClient, token: str, broker_down: None) -> None:  # fmt: skip
    limit_attempts(app, 3)
    for source in (TANH, RELU, ROUNDED):
        assert post(client, token, source)[0] == 201
    limit_attempts(app, 1)  # the instructor lowers the limit while all three wait for grading
    grade_everything_pending(app)
    assert stored(app) == [("graded", 1, 1.0), ("failed", None, None), ("failed", None, None)]
    assert attempts_used(app) == 1
    with app.app_context():
        late = db.session.scalars(sa.select(Submission).where(Submission.status == "failed")).first()
        assert late is not None and late.result is not None
        assert late.result["cases"] == [] and "used all your attempts" in late.result["message"]
