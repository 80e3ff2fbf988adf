"""Deployment settings: whose address to believe behind a proxy, cookies over HTTPS only, and malformed values refused at start."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask

from grader.config import broker_url, settings
from tests.web.conftest import PASSWORD, build_app, csrf_from, login, make_user

FORWARDED = "X-Forwarded-For"
ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize(("name", "value", "message"), [
    ("GRADER_SECURE_COOKIES", "yes", "GRADER_SECURE_COOKIES must be true or false, not 'yes'"),
    ("GRADER_RATELIMIT_ENABLED", "no", "GRADER_RATELIMIT_ENABLED must be true or false, not 'no'"),
    ("GRADER_TRUSTED_PROXIES", "one", "GRADER_TRUSTED_PROXIES must be a whole number from 0 to 10, not 'one'"),
    ("GRADER_MAX_UPLOAD_BYTES", "1MB", "GRADER_MAX_UPLOAD_BYTES must be a whole number from 65536 to 1073741824"),
    ("GRADER_MAX_UPLOAD_BYTES", "100", "GRADER_MAX_UPLOAD_BYTES must be a whole number from 65536"),
    ("GRADER_DATABASE_URL", "garbage", "GRADER_DATABASE_URL is not a database URL"),
    ("GRADER_RATELIMIT_STORAGE", "bogus://x", "GRADER_RATELIMIT_STORAGE must be memory:// or a redis://"),
    ("GRADER_BASE_URL", "not-a-url", "GRADER_BASE_URL must look like https://grader.example.org"),
    ("GRADER_DATABASE_URL", "postgresq://u:p@db/grader", "GRADER_DATABASE_URL is not a database URL"),
    ("GRADER_DATABASE_URL", "postgresql+psycopg://u:p@db:54x2/grader", "GRADER_DATABASE_URL is not a database URL"),
    ("GRADER_SIGN_IN_IDLE_DAYS", "--5", "GRADER_SIGN_IN_IDLE_DAYS must be a whole number from 1 to 3650"),
    ("GRADER_SIGN_IN_IDLE_DAYS", "²", "GRADER_SIGN_IN_IDLE_DAYS must be a whole number from 1 to 3650"),
    ("GRADER_BASE_URL", "ftp://grader.example.org", "GRADER_BASE_URL must look like https://"),
    # Read again when the sandbox first starts, but checked at start like the rest.
    ("GRADER_SANDBOX_SLOTS", "0", "GRADER_SANDBOX_SLOTS must be a whole number from 1 to 64, not '0'"),
    ("GRADER_SANDBOX", "none", "GRADER_SANDBOX must be 'bwrap' or 'unsafe-local', not 'none'"),
    ("GRADER_LOG_LEVEL", "verbose", "GRADER_LOG_LEVEL must be one of debug, info, warning, error, critical"),
])  # fmt: skip
def test_a_malformed_setting_stops_the_app_naming_the_variable(tmp_path: Path, name: str, value: str,
                                                                message: str) -> None:  # fmt: skip
    with pytest.raises(ValueError, match=re.escape(message)):
        settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, name: value})


@pytest.mark.parametrize(("url", "problem"), [
    ("smtp://relay:notaport", "its port is not a number"),
    ("smtp://relay?starttls=maybe", "the only option after '?' is starttls=true or starttls=false"),
    ("smtp://relay?tls=true", "the only option after '?'"),
])  # fmt: skip
def test_a_malformed_mail_server_is_named_without_echoing_its_password(tmp_path: Path, url: str,
                                                                       problem: str) -> None:  # fmt: skip
    env = {"GRADER_SECRET_KEY": "k" * 32, "GRADER_BASE_URL": "https://grader.example.org",
           "GRADER_SMTP_URL": url.replace("//", "//me:hunter2@")}  # fmt: skip
    with pytest.raises(ValueError, match="GRADER_SMTP_URL must look like") as refused:
        settings(tmp_path, env)
    assert problem in str(refused.value) and "hunter2" not in str(refused.value)


@pytest.mark.parametrize(("name", "value"), [
    ("GRADER_DATABASE_URL", "postgres ql://u:hunter2@db/x"),
    ("GRADER_RATELIMIT_STORAGE", "reddis://:hunter2@redis:6379/1"),
    ("GRADER_BASE_URL", "htps://u:hunter2@grader.example.org"),
])  # fmt: skip
def test_a_url_that_can_hold_a_password_is_not_echoed_when_malformed(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name) as refused:
        settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, name: value})
    assert "hunter2" not in str(refused.value)


def test_the_broker_must_be_redis_and_is_not_echoed() -> None:
    assert broker_url({"GRADER_BROKER_URL": "redis://127.0.0.1:6379/0"}) == "redis://127.0.0.1:6379/0"
    assert broker_url({}) is None
    with pytest.raises(ValueError, match="GRADER_BROKER_URL must be a Redis URL") as refused:
        broker_url({"GRADER_BROKER_URL": "amqp://guest:hunter2@rabbit//"})
    assert "hunter2" not in str(refused.value)


def test_whole_number_and_flag_settings_are_read(tmp_path: Path) -> None:
    read = settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, "GRADER_RATELIMIT_ENABLED": "FALSE",
                               "GRADER_TRUSTED_PROXIES": "2", "GRADER_MAX_UPLOAD_BYTES": "2097152"})  # fmt: skip
    assert (read["RATELIMIT_ENABLED"], read["TRUSTED_PROXIES"], read["MAX_CONTENT_LENGTH"]) == (False, 2, 2097152)
    defaults = settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32})
    assert (defaults["RATELIMIT_ENABLED"], defaults["TRUSTED_PROXIES"], defaults["MAX_CONTENT_LENGTH"]) == (True, 0, 2**20)


@pytest.mark.parametrize(("name", "value", "read"), [
    ("GRADER_WORKERS", "abc", "GRADER_WORKERS must be a whole number from 1 to 256, not 'abc'"),
    ("GRADER_WORKER_TIMEOUT", "0", "GRADER_WORKER_TIMEOUT must be a whole number from 1 to 3600, not '0'"),
    ("GRADER_WORKERS", "3", "workers                            = 3"),
    ("GRADER_LOG_LEVEL", "loud", "GRADER_LOG_LEVEL must be one of debug, info, warning, error, critical"),
])  # fmt: skip
def test_gunicorn_reads_its_settings_the_same_way(name: str, value: str, read: str) -> None:
    env = {**os.environ, name: value}
    shown = subprocess.run([sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "--print-config", "wsgi:app"],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert read in shown.stdout + shown.stderr
    assert (shown.returncode == 0) == read.startswith("workers")
