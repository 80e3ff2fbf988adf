"""Concurrent attempts by one learner: every one is stored, numbered once, and counted in progress; repeats count once."""

from __future__ import annotations

import threading
from collections.abc import Callable

import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.models import Attempt, Progress, User
from grader.services import accounts, attempts
from tests.web.conftest import make_user, seat, seat_key

THREADS = 8
PER_THREAD = 6


def in_parallel(app: Flask, work: Callable[[int, int], None]) -> None:
    """Run work(thread, i) for PER_THREAD values of i in each of THREADS threads, started together."""
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def learner(thread: int) -> None:
        try:
            with app.app_context():
                start.wait()
                for i in range(PER_THREAD):
                    work(thread, i)
                db.session.remove()
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=learner, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []


def test_parallel_attempts_lose_no_update(app: Flask) -> None:
    user_id = make_user(app, "busy@example.com")

    def distinct(thread: int, i: int) -> None:  # every answer is new: every one is an attempt
        value = f"{thread}.{i:03d}"
        attempts.submit(seat(user_id), "block-gelu", {"neg": value, "pos": value})

    in_parallel(app, distinct)
    with app.app_context():
        numbers = sorted(db.session.scalars(sa.select(Attempt.number).where(Attempt.user_id == user_id)))
        progress = db.session.get(Progress, (*seat_key(user_id), "block-gelu"))
        assert numbers == list(range(1, THREADS * PER_THREAD + 1))
        assert progress is not None and progress.attempts_used == THREADS * PER_THREAD


def test_the_same_answers_sent_at_once_are_stored_and_counted_once_each(app: Flask) -> None:
    user_id = make_user(app, "twice@example.com")
    outcomes: list[str] = []

    def same(thread: int, i: int) -> None:  # every thread sends the same PER_THREAD answers
        value = f"0.{i:03d}"
        outcomes.append(attempts.submit(seat(user_id), "block-gelu", {"neg": value, "pos": value}).outcome)

    in_parallel(app, same)
    assert sorted(set(outcomes)) == ["graded", "repeat"] and outcomes.count("graded") == PER_THREAD
    with app.app_context():
        numbers = sorted(db.session.scalars(sa.select(Attempt.number).where(Attempt.user_id == user_id)))
        progress = db.session.get(Progress, (*seat_key(user_id), "block-gelu"))
        assert numbers == list(range(1, PER_THREAD + 1))  # a repeat's credit was undone: no gaps
        assert progress is not None and progress.attempts_used == PER_THREAD


def test_one_email_registered_at_once_from_many_browsers_makes_one_account(app: Flask) -> None:
    refused: list[str] = []

    def register(thread: int, i: int) -> None:  # every thread registers the same address in round i
        try:
            accounts.create_user(f"double-click-{i}@example.com", "a long enough password")
        except accounts.AccountError as error:
            refused.append(str(error))

    in_parallel(app, register)
    with app.app_context():
        emails = db.session.scalars(sa.select(User.email).where(User.email.like("double-click-%"))).all()
    assert sorted(emails) == sorted(f"double-click-{i}@example.com" for i in range(PER_THREAD))
    assert refused == ["An account with this email already exists."] * (PER_THREAD * (THREADS - 1))
