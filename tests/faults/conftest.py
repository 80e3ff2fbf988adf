"""Fixtures for the fault tests: gunicorn on a fresh database, learners with tokens, a load of attempts.

The database is a fresh SQLite file, or a brand-new PostgreSQL database when
GRADER_TEST_DATABASE_URL is set. The load is plain threads with http.client: each request is a
random well-formed attempt on block-residual (so each one is graded and stored), and every
outcome is kept, including requests that got no answer at all.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.models import Attempt, Progress
from grader.services import accounts, api_tokens
from tests.queue.support import SECRET, Gunicorn, env_for
from tests.web.conftest import PASSWORD, build_app, empty_database

EXERCISE = "block-residual"
ATTEMPTS = f"/api/v1/exercises/{EXERCISE}/attempts"


@dataclass(frozen=True)
class Learner:
    id: int
    token: str


@dataclass(frozen=True)
class Outcome:
    """One request: when it was sent and answered, and the status (None: no response at all)."""

    learner: int
    sent: float
    answered: float
    status: int | None
    body: dict[str, Any] | None
    error: str | None = None


@pytest.fixture
def database(tmp_path: Path) -> Iterator[str]:
    with empty_database(tmp_path) as url:
        yield url


@pytest.fixture
def app(tmp_path: Path, database: str) -> Iterator[Flask]:
    app = build_app(tmp_path, SQLALCHEMY_DATABASE_URI=database, SECRET_KEY=SECRET)
    yield app
    with app.app_context():
        db.engine.dispose()


def make_learners(app: Flask, count: int) -> list[Learner]:
    with app.app_context():
        made = []
        for i in range(count):
            user = accounts.create_user(f"fault{i}@example.com", PASSWORD, "learner")
            made.append(Learner(user.id, api_tokens.create_token(user, "faults")))
        return made


@pytest.fixture
def serve(tmp_path: Path, database: str) -> Iterator[Any]:
    """Start gunicorn (the project's gunicorn.conf.py) on this database; stopped afterwards."""
    started: list[Gunicorn] = []

    def start(workers: int = 3) -> Gunicorn:
        env = env_for(database, GRADER_RATELIMIT_ENABLED="false")
        server = Gunicorn(env, tmp_path, workers=workers).wait_ready()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def random_answers() -> dict[str, str]:
    return {"h": "[" + "; ".join(f"{random.uniform(-3, 3):.3f}" for _ in range(4)) + "]"}


def post_attempt(port: int, learner: Learner, timeout: float = 15.0) -> Outcome:
    """One attempt over a fresh connection; a connection that breaks is an outcome, not an error."""
    sent = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {learner.token}"}
        connection.request("POST", ATTEMPTS, body=json.dumps({"answers": random_answers()}), headers=headers)
        response = connection.getresponse()
        raw = response.read()
        kind = response.getheader("Content-Type", "")
        body = json.loads(raw) if kind.startswith("application/json") else {"html": raw.decode(errors="replace")}
        return Outcome(learner.id, sent, time.monotonic(), response.status, body)
    except (OSError, http.client.HTTPException) as error:
        return Outcome(learner.id, sent, time.monotonic(), None, None, f"{type(error).__name__}: {error}")
    finally:
        connection.close()


@dataclass
class Load:
    """Threads posting attempts as fast as they are answered, until stopped."""

    port: int
    learners: list[Learner]
    threads: int = 8
    outcomes: list[Outcome] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._workers = [threading.Thread(target=self._run, args=(random.Random(i),), daemon=True)
                         for i in range(self.threads)]  # fmt: skip

    def _run(self, rng: random.Random) -> None:
        while not self._stop.is_set():
            outcome = post_attempt(self.port, rng.choice(self.learners))
            with self._lock:
                self.outcomes.append(outcome)

    def __enter__(self) -> Load:
        for thread in self._workers:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._workers:
            thread.join(timeout=30)

    def count(self) -> int:
        with self._lock:
            return len(self.outcomes)


@dataclass(frozen=True)
class Stored:
    """The attempts and progress counters in the database for the exercise."""

    attempts: dict[int, tuple[int, int]]  # attempt id -> (user id, number)
    used: dict[int, int]  # user id -> progress.attempts_used

    def numbers(self, user_id: int) -> list[int]:
        return sorted(n for uid, n in self.attempts.values() if uid == user_id)


def stored(app: Flask) -> Stored:
    with app.app_context():
        rows = db.session.execute(sa.select(Attempt.id, Attempt.user_id, Attempt.number)
                                  .where(Attempt.exercise_id == EXERCISE)).all()  # fmt: skip
        used = db.session.execute(sa.select(Progress.user_id, Progress.attempts_used)
                                  .where(Progress.exercise_id == EXERCISE)).all()  # fmt: skip
        return Stored({r.id: (r.user_id, r.number) for r in rows}, {u.user_id: u.attempts_used for u in used})


def check_consistent(data: Stored, outcomes: list[Outcome], learners: list[Learner]) -> set[int]:
    """Every 201 is stored as that learner's; numbers are 1..n per learner and counted in progress.

    Returns the ids of attempts stored without a 201 having reached the client.
    """
    created = {o.body["attempt_id"]: o.learner for o in outcomes if o.status == 201 and o.body}
    missing = [aid for aid in created if aid not in data.attempts]
    assert not missing, f"attempts answered 201 but not stored: {missing}"
    assert all(data.attempts[aid][0] == uid for aid, uid in created.items()), "a 201 stored under another learner"
    for learner in learners:
        numbers = data.numbers(learner.id)
        assert numbers == list(range(1, len(numbers) + 1)), f"learner {learner.id}: attempt numbers {numbers}"
        counted = data.used.get(learner.id, 0)
        assert counted == len(numbers), f"learner {learner.id}: progress counts {counted}, {len(numbers)} stored"
    return set(data.attempts) - set(created)
