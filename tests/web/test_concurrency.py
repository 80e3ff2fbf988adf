"""Concurrent attempts by one learner: every one is stored, numbered once, and counted in progress."""

from __future__ import annotations

import threading

import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.models import Attempt, Progress
from grader.services import attempts
from tests.web.conftest import make_user

THREADS = 8
PER_THREAD = 6


def test_parallel_attempts_lose_no_update(app: Flask) -> None:
    user_id = make_user(app, "busy@example.com")
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def learner(thread: int) -> None:
        try:
            with app.app_context():
                start.wait()
                for i in range(PER_THREAD):
                    value = f"{thread}.{i:03d}"  # distinct answers: every one is a new attempt
                    attempts.submit(user_id, "block-gelu", {"neg": value, "pos": value})
                db.session.remove()
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=learner, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    with app.app_context():
        numbers = sorted(db.session.scalars(sa.select(Attempt.number).where(Attempt.user_id == user_id)))
        progress = db.session.get(Progress, (user_id, "block-gelu"))
        assert numbers == list(range(1, THREADS * PER_THREAD + 1))
        assert progress is not None and progress.attempts_used == THREADS * PER_THREAD
