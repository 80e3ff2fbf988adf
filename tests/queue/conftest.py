"""Fixtures for the queue tests: a real redis-server, a fresh database and real Celery workers.

The web side is the Flask app in this process (test client), with GRADER_BROKER_URL set so that
`tasks.queued()` is true, and the module's Celery app pointed at the test's redis-server (its
broker is read once, at import). Workers, the reaper and gunicorn are separate processes on the
same database; PostgreSQL is used when GRADER_TEST_DATABASE_URL is set (a brand-new database per
test), SQLite otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader import tasks
from grader.extensions import db
from grader.models import Progress
from grader.code_models import Submission
from tests.queue.support import SECRET, Redis, Worker, env_for, flask_cli, strays, wait_for
from tests.web.api_support import ADA, auth, token_for
from tests.web.conftest import build_app, empty_database, seat_key

EXERCISE = "code-layer-norm"
SUBMIT = f"/api/v1/exercises/{EXERCISE}/submissions"
# Short enough that an orphaned job comes back within a test, long enough that a worker started
# straight after a crash does not take it back before the reaper's message is graded: on a loaded
# 2-core box, requeueing and grading a SLOW job took over 10 s.
VISIBILITY_TIMEOUT = 25


def point_celery_at(url: str) -> None:
    """Make this process's Celery app publish to `url` (its broker was fixed at import)."""
    app = tasks.celery
    if app._pool is not None:
        app._pool.force_close_all()
    app._after_fork()  # drops the connection and producer pools, so the next send uses the new URL
    app.conf.broker_url = url


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    server = Redis(tmp_path / "redis").start()
    yield server
    server.stop()


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    with empty_database(tmp_path) as url:
        yield url


@pytest.fixture
def app(tmp_path: Path, database: str, redis: Redis, monkeypatch: pytest.MonkeyPatch) -> Iterator[Flask]:
    monkeypatch.setenv("GRADER_BROKER_URL", redis.url)
    before = tasks.celery.conf.broker_url
    point_celery_at(redis.url)
    app = build_app(tmp_path, SQLALCHEMY_DATABASE_URI=database, SECRET_KEY=SECRET)
    yield app
    with app.app_context():
        db.engine.dispose()
    point_celery_at(before)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def token(app: Flask) -> str:
    return token_for(app, ADA)


@pytest.fixture
def worker_env(database: str, redis: Redis) -> dict[str, str]:
    return env_for(database, GRADER_BROKER_URL=redis.url, GRADER_VISIBILITY_TIMEOUT=VISIBILITY_TIMEOUT)


@pytest.fixture
def start_worker(tmp_path: Path, worker_env: dict[str, str]) -> Iterator[Callable[[], Worker]]:
    """Start real Celery workers on demand; every one (and everything below it) is gone afterwards."""
    started: list[Worker] = []

    def start() -> Worker:
        name = f"w{len(started) + 1}"
        worker = Worker(worker_env, tmp_path / f"{name}.log", name)
        started.append(worker)
        return worker

    yield start
    seen: list[int] = []
    for worker in started:
        seen += worker.seen()
        worker.stop()
    wait_for(lambda: not strays(seen), 10, f"no stray worker processes (left: {strays(seen)})")


@pytest.fixture
def reaper(worker_env: dict[str, str]) -> Callable[..., str]:
    """Run `flask --app wsgi submissions reap` as a separate process, with settings for this run."""

    def reap(**settings: Any) -> str:
        return flask_cli({**worker_env, **{k: str(v) for k, v in settings.items()}}, "submissions", "reap").strip()

    return reap


def submit(client: FlaskClient, token: str, source: str) -> tuple[Any, float]:
    """POST code through the API; returns the response and how long it took."""
    started = time.monotonic()
    response = client.post(SUBMIT, json={"source": source}, headers=auth(token))
    return response, time.monotonic() - started


def poll(client: FlaskClient, token: str, submission_id: int, timeout: float = 30.0) -> dict[str, Any]:
    """GET the submission until it is no longer pending (fails the test after `timeout`)."""
    last: dict[str, Any] = {}

    def done() -> bool:
        response = client.get(f"/api/v1/submissions/{submission_id}", headers=auth(token))
        assert response.status_code == 200, response.get_data(as_text=True)
        last.update(response.get_json())
        return last["status"] != "pending"

    wait_for(done, timeout, f"submission {submission_id} to be graded", every=0.2)
    return last


def stored(app: Flask, submission_id: int) -> tuple[Submission, int]:
    """The submission row and the learner's counted attempts on the exercise, read afresh."""
    with app.app_context():
        row = db.session.get(Submission, submission_id)
        assert row is not None
        mine = db.session.get(Progress, (*seat_key(row.user_id), EXERCISE))
        db.session.expunge(row)
        return row, mine.attempts_used if mine else 0
