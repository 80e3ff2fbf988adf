"""Code grading through Celery on a real redis-server, with real workers killed mid-job.

Delivery is at least once (acks_late + reject_on_worker_lost, the reaper for what is left
pending) and recording is idempotent, so whatever dies, a submission ends graded and counts once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.mastery_models import SkillEvent
from grader.services import submissions
from tests.queue.conftest import EXERCISE, VISIBILITY_TIMEOUT, poll, stored, submit
from tests.layer_norm_sources import GOOD
from tests.queue.support import SLOW, Redis, Worker, children, descendants, wait_for
from tests.web.api_support import ADA
from tests.web.conftest import login


def no_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The API answers at once instead of polling for 3 s (the wait is not what is tested)."""
    monkeypatch.setattr(submissions, "wait_until_graded", lambda *args, **kwargs: None)


def web_never_grades(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if this (web) process tries to grade or start a sandbox itself."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the web process graded code itself instead of queueing it")

    monkeypatch.setattr(submissions, "grade_in_background", refuse)
    monkeypatch.setattr(submissions, "default_pool", refuse)


def code_evidence(app: Flask) -> list[tuple[str, str, bool | None]]:
    """The learner model's observations stored so far (by whichever process recorded the verdict)."""
    with app.app_context():
        stored = db.session.scalars(sa.select(SkillEvent).order_by(SkillEvent.id))
        return [(e.source, e.skill, e.correct) for e in stored]


def grading_now(worker: Worker, jobs: int = 1) -> None:
    """Wait until the worker has received its `jobs`-th job and its sandbox is running, then a moment more."""
    wait_for(lambda: len(worker.received()) >= jobs, 15, "the worker to receive the job")
    wait_for(lambda: any(descendants(pid) for pid in children(worker.pid)), 15, "the job's sandbox")
    time.sleep(1.0)  # SLOW sleeps 3 s on its first call: the job is surely mid-run now


def test_code_is_graded_by_a_worker_not_the_web_process(app: Flask, client: FlaskClient, token: str,
                                                         start_worker: Callable[[], Worker],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    web_never_grades(monkeypatch)
    worker = start_worker()
    response, seconds = submit(client, token, GOOD)
    assert response.status_code == 201, response.get_data(as_text=True)
    assert response.get_json()["status"] in ("pending", "graded")
    assert seconds < 8, f"the API took {seconds:.1f} s to answer"
    body = poll(client, token, response.get_json()["submission_id"])
    assert (body["status"], body["score"], body["result"]["status"]) == ("graded", 1.0, "passed")
    assert len(worker.succeeded()) == 1
    assert code_evidence(app) == [("code", "layernorm-stats", True)]  # the worker's verdict moves the skill


def test_a_job_whose_pool_process_is_killed_is_delivered_again_and_counted_once(
        app: Flask, client: FlaskClient, token: str, start_worker: Callable[[], Worker],
        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    no_wait(monkeypatch)
    worker = start_worker()
    response, _ = submit(client, token, SLOW)
    submission_id = response.get_json()["submission_id"]
    grading_now(worker)
    assert stored(app, submission_id)[0].status == "pending"
    killed = worker.kill_child()
    body = poll(client, token, submission_id)
    assert (body["status"], body["score"], body["result"]["status"]) == ("graded", 1.0, "passed")
    row, counted = stored(app, submission_id)
    assert (row.number, counted) == (1, 1)
    assert code_evidence(app) == [("code", "layernorm-stats", True)]  # and is evidence once
    [task] = set(worker.received())
    assert worker.received() == [task, task], "the same message, delivered twice"
    assert worker.child() != killed and worker.started.process.poll() is None


def test_after_a_whole_worker_dies_the_reaper_gets_it_graded_and_the_late_redelivery_changes_nothing(
        app: Flask, client: FlaskClient, token: str, redis: Redis, start_worker: Callable[[], Worker],
        reaper: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    no_wait(monkeypatch)
    first = start_worker()
    response, _ = submit(client, token, SLOW)
    submission_id = response.get_json()["submission_id"]
    grading_now(first)
    delivered = time.monotonic()
    [original] = first.received()
    first.kill()
    assert stored(app, submission_id)[0].status == "pending"
    assert redis.command("HLEN", "unacked") == ":1", "the killed worker's job is unacknowledged in Redis"

    second = start_worker()
    assert time.monotonic() - delivered < VISIBILITY_TIMEOUT, "too slow: the new worker may have taken it back"
    assert reaper(GRADER_REAP_AFTER_SECONDS=1) == "requeued 1, failed 0"
    body = poll(client, token, submission_id)
    assert (body["status"], body["score"], body["result"]["status"]) == ("graded", 1.0, "passed")
    assert original not in second.received(), "graded through the reaper's new message"

    # Past the visibility timeout, a starting worker puts the orphaned message back on the queue.
    time.sleep(max(0.0, delivered + VISIBILITY_TIMEOUT + 0.5 - time.monotonic()))
    third = start_worker()
    wait_for(lambda: original in second.succeeded() + third.succeeded(), 20, "the original message again")
    row, counted = stored(app, submission_id)
    assert (row.status, row.number, row.score, counted) == ("graded", 1, 1.0, 1)
    assert redis.command("HLEN", "unacked") == ":0"


def test_with_redis_down_a_submission_is_kept_pending_and_graded_once_redis_is_back(
        app: Flask, client: FlaskClient, token: str, redis: Redis, start_worker: Callable[[], Worker],
        reaper: Callable[..., str], caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    start_worker()
    learner = app.test_client()
    login(learner, ADA)
    redis.stop()

    response, seconds = submit(client, token, GOOD)
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json()
    assert (body["status"], body["result"]) == ("pending", None)
    assert seconds < 2  # publishing fails at once, and nothing waits for a job that was not sent
    assert f"submission {body['submission_id']} not queued (" in caplog.text  # the operator is told
    page = learner.get(f"/exercises/{EXERCISE}?submission={body['submission_id']}")
    assert page.status_code == 200 and "Your code is queued" in page.get_data(as_text=True)
    assert stored(app, body["submission_id"])[0].status == "pending"

    redis.start()
    time.sleep(1.2)  # older than GRADER_REAP_AFTER_SECONDS below
    assert reaper(GRADER_REAP_AFTER_SECONDS=1) == "requeued 1, failed 0"
    body = poll(client, token, body["submission_id"], timeout=40)  # the worker reconnects with back-off
    assert (body["status"], body["score"]) == ("graded", 1.0)
    assert stored(app, body["submission_id"])[1] == 1


def test_past_the_deadline_the_reaper_fails_it_with_a_reason_and_it_does_not_count(
        app: Flask, client: FlaskClient, token: str, reaper: Callable[..., str],
        monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    no_wait(monkeypatch)
    response, _ = submit(client, token, GOOD)  # queued, but no worker is running
    submission_id = response.get_json()["submission_id"]
    time.sleep(1.2)
    assert reaper(GRADER_REAP_AFTER_SECONDS=0, GRADER_GRADING_DEADLINE_SECONDS=1) == "requeued 0, failed 1"
    body = poll(client, token, submission_id, timeout=5)
    assert body["status"] == "failed" and body["score"] is None
    assert body["result"]["message"] == str(submissions.TOO_LATE) and "not counted" in body["result"]["message"]
    row, counted = stored(app, submission_id)
    assert (row.number, counted) == (None, 0)
