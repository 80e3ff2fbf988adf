"""Settings for running behind a reverse proxy: whose address to believe, and cookies over HTTPS only."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from flask import Flask

from grader.config import settings
from tests.web.conftest import PASSWORD, build_app, csrf_from, login, make_user

FORWARDED = "X-Forwarded-For"


def failed_logins(app: Flask, address: str, count: int) -> list[int]:
    client = app.test_client()
    return [client.post("/login", data={"email": "eve@example.com", "password": "x"},
                        headers={FORWARDED: address}).status_code for _ in range(count)]  # fmt: skip


def login_from(app: Flask, address: str) -> int:
    client = app.test_client()
    token = csrf_from(client.get("/login", headers={FORWARDED: address}).get_data(as_text=True))
    return client.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": token},
                       headers={FORWARDED: address}).status_code  # fmt: skip


def test_behind_a_trusted_proxy_one_client_cannot_lock_out_the_others(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True, TRUSTED_PROXIES=1)
    make_user(app, "ada@example.com")
    assert failed_logins(app, "203.0.113.66", 12)[-1] == 429
    assert login_from(app, "198.51.100.7") == 302


def test_without_a_trusted_proxy_a_forged_forwarded_address_dodges_nothing(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")
    statuses = [failed_logins(app, f"203.0.113.{n}", 1)[0] for n in range(12)]
    assert statuses[-1] == 429  # every request came from the same peer, whatever the header said


def test_registrations_from_one_address_are_limited_even_when_they_succeed(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    statuses = []
    for n in range(61):
        client = app.test_client()  # a new browser each time, all from the same address
        token = csrf_from(client.get("/register").get_data(as_text=True))
        form = {"email": f"learner{n}@example.com", "password": PASSWORD, "confirm": PASSWORD, "csrf_token": token}
        statuses.append(client.post("/register", data=form).status_code)
    assert statuses[:60] == [302] * 60 and statuses[60] == 429


def test_cookies_are_https_only_when_the_site_is(tmp_path: Path) -> None:
    assert settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32})["SESSION_COOKIE_SECURE"] is False
    https = {"GRADER_SECRET_KEY": "k" * 32, "GRADER_BASE_URL": "https://grader.example.org"}
    assert settings(tmp_path, https)["SESSION_COOKIE_SECURE"] is True
    assert settings(tmp_path, {**https, "GRADER_SECURE_COOKIES": "false"})["SESSION_COOKIE_SECURE"] is False
    assert settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, "GRADER_SECURE_COOKIES": "true"})["SESSION_COOKIE_SECURE"]
    with pytest.raises(ValueError):
        settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, "GRADER_SECURE_COOKIES": "yes please"})


def test_a_secure_app_marks_its_session_cookie_secure(tmp_path: Path) -> None:
    app = build_app(tmp_path, SESSION_COOKIE_SECURE=True)
    make_user(app, "ada@example.com")
    client = app.test_client()
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": token})
    assert "; Secure" in response.headers["Set-Cookie"]


def test_rate_limits_outlive_a_redis_outage(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on: Redis is down
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = build_app(tmp_path, RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI=f"redis://127.0.0.1:{port}/1")
    make_user(app, "ada@example.com")
    client = app.test_client()
    login(client, "ada@example.com")  # not a 500: logins go on
    failures = [client.post("/login", data={"email": "ada@example.com", "password": "x"}).status_code
                for _ in range(11)]  # fmt: skip
    assert failures == [400] * 10 + [429]  # and are still limited, in this process's memory
