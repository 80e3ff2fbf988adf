"""A rate-limit store that cannot count: fast refusals, an error in the log, /readyz says so, and login
and registration fail closed with a clear 503 page (grader/web/limit_store.py, grader/rate_limit_store.py).

Found by an attack: with the file locked each failed login took about 30 s (half ended in WORKER TIMEOUT
500s, the rest uncounted); with the file corrupted, limits fell back to per-worker memory without a word.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Iterator

import pytest
from flask import Flask

from grader.extensions import limiter
from grader.rate_limit_store import BUSY_TIMEOUT_MS, storage_path
from tests.web.conftest import PASSWORD, build_app, csrf_from, make_user

PAUSED = "Signing in and creating accounts are paused for a moment"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")
    yield app
    # One Limiter per process: a store it gave up on must not send the next test's counts to memory.
    limiter._storage_dead = False


def _store(app: Flask) -> Path:
    return storage_path(app.config["RATELIMIT_STORAGE_URI"])


def _post(app: Flask, path: str, password: str = "not it", email: str = "ada@example.com") -> tuple[int, str]:
    client = app.test_client()
    token = csrf_from(client.get(path).get_data(as_text=True))
    reply = client.post(path, data={"email": email, "password": password, "confirm": password, "csrf_token": token})
    return reply.status_code, reply.get_data(as_text=True)


def _refused_closed(app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR):
        for path, email in (("/login", "ada@example.com"), ("/register", "new@example.com")):
            status, page = _post(app, path, password=PASSWORD if path == "/login" else "a long enough password",
                                 email=email)  # fmt: skip
            assert status == 503 and PAUSED in page, (path, status)
            assert "Traceback" not in page
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert any(r.name == "grader.rate_limit_store" and "is unusable" in r.getMessage() for r in errors)
    ready = app.test_client().get("/readyz")
    assert ready.status_code == 503 and ready.get_json()["rate_limits"] == "unusable"


def test_a_locked_store_refuses_logins_and_registrations_at_once(app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    assert _post(app, "/login")[0] == 401  # the store works: a failure counted
    assert BUSY_TIMEOUT_MS <= 1000  # a lock is waited for briefly, far from a worker's 30 s timeout
    holder = sqlite3.connect(_store(app), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # an operator's sqlite3 shell in the middle of a write
    try:
        _refused_closed(app, caplog)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert app.test_client().get("/readyz").status_code == 200
    assert _post(app, "/login", password=PASSWORD)[0] == 302  # in again once the lock is gone
    assert _store(app).exists() and sqlite3.connect(_store(app)).execute("SELECT count(*) FROM counters").fetchone()[0]


def test_a_corrupted_store_refuses_logins_and_registrations(app: Flask, caplog: pytest.LogCaptureFixture) -> None:
    _store(app).parent.mkdir(parents=True, exist_ok=True)
    _store(app).write_bytes(b"this is not a database " * 400)
    _refused_closed(app, caplog)


def test_with_limits_off_a_broken_store_changes_nothing(tmp_path: Path) -> None:
    app = build_app(tmp_path)  # as the web tests and benchmarks run: RATELIMIT_ENABLED False
    make_user(app, "ada@example.com")
    _store(app).write_bytes(b"this is not a database " * 400)
    assert _post(app, "/login", password=PASSWORD)[0] == 302
    assert app.test_client().get("/readyz").get_json()["rate_limits"] == "off"
