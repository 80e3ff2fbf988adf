"""Login limits: they hold across gunicorn's workers on the default storage, guessing stays slow, and
nobody can lock an account out for long (grader/web/login_limits.py)."""

from __future__ import annotations

import http.cookiejar
import multiprocessing
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from limits import parse

from grader import rate_limit_store
from grader.config import settings
from grader.rate_limit_store import SqliteStorage
from grader.services.mail import SmtpServer
from grader.web import login_limits
from tests.queue.support import Gunicorn, env_for
from tests.web.conftest import PASSWORD, build_app, csrf_from, make_user
from tests.web.test_password_mail import Inbox, inbox  # noqa: F401 - the fixture

FORWARDED = "X-Forwarded-For"
PER_ADDRESS = parse(login_limits.PER_ADDRESS).amount
PER_EMAIL = parse(login_limits.PER_EMAIL).amount


def test_by_default_limits_are_counted_in_a_file_beside_the_database(tmp_path: Path) -> None:
    env = {"GRADER_SECRET_KEY": "k" * 32, "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'db' / 'grader.db'}"}
    assert settings(tmp_path, env)["RATELIMIT_STORAGE_URI"] == f"sqlite:///{tmp_path / 'db' / 'rate-limits.db'}"
    server = {**env, "GRADER_DATABASE_URL": "postgresql+psycopg://u:p@db/grader"}
    assert settings(tmp_path, server)["RATELIMIT_STORAGE_URI"] == f"sqlite:///{tmp_path / 'rate-limits.db'}"
    redis = {**env, "GRADER_RATELIMIT_STORAGE": "redis://127.0.0.1:6379/1"}
    assert settings(tmp_path, redis)["RATELIMIT_STORAGE_URI"] == "redis://127.0.0.1:6379/1"  # for many hosts
    with pytest.raises(ValueError, match="GRADER_RATELIMIT_STORAGE must be"):
        settings(tmp_path, {**env, "GRADER_RATELIMIT_STORAGE": "sqlite:///"})


def _count(uri: str, times: int) -> None:
    storage = SqliteStorage(uri)
    for _ in range(times):
        storage.incr("login/127.0.0.1", 60)


def test_processes_count_in_one_file_together(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'rate-limits.db'}"
    workers = [multiprocessing.get_context("fork").Process(target=_count, args=(uri, 300)) for _ in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    storage = SqliteStorage(uri)
    assert storage.get("login/127.0.0.1") == 900 and storage.get_expiry("login/127.0.0.1") > time.time()
    assert (tmp_path / "rate-limits.db").stat().st_mode & 0o777 == 0o600


def test_a_window_that_has_passed_starts_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage, now = SqliteStorage(f"sqlite:///{tmp_path / 'limits.db'}"), [1000.0]
    monkeypatch.setattr(rate_limit_store.time, "time", lambda: now[0])
    assert [storage.incr("k", 60) for _ in range(3)] == [1, 2, 3] and storage.get_expiry("k") == 1060
    now[0] = 1060.0
    assert storage.get("k") == 0 and storage.incr("k", 60, amount=2) == 2 and storage.get_expiry("k") == 1120
    storage.clear("k")
    assert storage.get("k") == 0 and storage.check()


def _failed_login(base: str) -> int:
    """A login with a wrong password, as a browser sends it (the form's CSRF token and cookie included)."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(f"{base}/login", timeout=120).read().decode()
    form = urllib.parse.urlencode({"email": "ada@example.com", "password": "not it", "csrf_token": csrf_from(page)})
    try:
        return int(opener.open(f"{base}/login", data=form.encode(), timeout=120).status)
    except urllib.error.HTTPError as error:
        return error.code


def test_gunicorn_workers_share_one_limit_on_the_default_storage(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 'grader.db'}"  # the embedded default, whatever the suite runs on
    build_app(tmp_path, SQLALCHEMY_DATABASE_URI=database)
    server = Gunicorn(env_for(database), tmp_path, workers=3).wait_ready()
    try:
        # Many at once, so that every worker takes some: each would allow the whole limit on its own.
        with ThreadPoolExecutor(12) as pool:
            statuses = list(pool.map(lambda _: _failed_login(server.base), range(3 * PER_ADDRESS)))
    finally:
        server.stop()
    # A failure is counted once it has failed, so each other worker may have one in flight past the
    # limit; per-worker counting would let through up to the limit per worker (30 here).
    assert PER_ADDRESS <= statuses.count(401) <= PER_ADDRESS + server.workers - 1, statuses
    assert statuses.count(401) + statuses.count(429) == len(statuses), statuses
    assert (tmp_path / "rate-limits.db").exists()


def _login(app: Flask, address: str, email: str = "ada@example.com", password: str = "not it") -> Any:
    client = app.test_client()
    token = csrf_from(client.get("/login", headers={FORWARDED: address}).get_data(as_text=True))
    return client.post("/login", data={"email": email, "password": password, "csrf_token": token},
                       headers={FORWARDED: address})  # fmt: skip


def _limited_app(tmp_path: Path, **overrides: object) -> Flask:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True, TRUSTED_PROXIES=1, **overrides)
    make_user(app, "ada@example.com")
    return app


def test_guessing_from_a_few_addresses_does_not_lock_the_owner_out(tmp_path: Path) -> None:
    app = _limited_app(tmp_path)
    for n in range(3):  # 30 failures: the old per-email limit locked ada out for an hour
        address = f"203.0.113.{n}"
        assert [_login(app, address).status_code for _ in range(PER_ADDRESS + 1)] == [401] * PER_ADDRESS + [429]
    assert _login(app, "198.51.100.7", password=PASSWORD).status_code == 302


def test_one_address_is_stopped_for_that_account_alone_after_twenty_an_hour(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    app, now = _limited_app(tmp_path), [time.time()]
    monkeypatch.setattr(rate_limit_store.time, "time", lambda: now[0])
    statuses = []
    for _minute in range(3):  # under the address's 10 a minute each time
        statuses += [_login(app, "203.0.113.9").status_code for _ in range(8)]
        now[0] += 61
    assert statuses == [401] * 20 + [429] * 4
    assert _login(app, "203.0.113.9", email="bob@example.com").status_code == 401  # other accounts: still tried
    assert _login(app, "198.51.100.7", password=PASSWORD).status_code == 302  # ada, elsewhere: in


def test_a_crowd_of_addresses_pauses_logins_for_minutes_and_the_owner_is_told(tmp_path: Path,
                                                                              inbox: tuple[Inbox, int]) -> None:  # noqa: F811  # fmt: skip
    box, port = inbox
    app = _limited_app(tmp_path, MAIL_SERVER=SmtpServer("127.0.0.1", port), MAIL_FROM="grader@example.org")
    crowd = [f"10.1.{n // 250}.{n % 250}" for n in range(PER_EMAIL // PER_ADDRESS)]
    assert [_login(app, address).status_code for address in crowd for _ in range(PER_ADDRESS)] == [401] * PER_EMAIL
    assert _login(app, "10.2.0.1").status_code == 429  # the ceiling: from any address now
    assert _login(app, "10.2.0.2").status_code == 429
    paused = _login(app, "198.51.100.7", password=PASSWORD)
    assert paused.status_code == 429 and 0 < int(paused.headers["Retry-After"]) <= 15 * 60  # minutes, not an hour
    [told] = box.wait_for(1)
    time.sleep(0.5)  # a second mail would be on its way by now
    assert len(box.messages) == 1  # once a window, however many logins it refuses
    assert (told["To"], told["Subject"]) == ("ada@example.com", "Failed logins to your grader account")
    body = told.get_content()
    assert "ada@example.com many times, from several addresses" in body and "at most 15 minutes" in body
    assert _login(app, "10.2.0.3", email="bob@example.com").status_code == 401  # other accounts go on
