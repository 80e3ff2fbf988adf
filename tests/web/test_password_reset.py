"""Password reset without email: an instructor makes a one-time link, the learner chooses a new password."""

from __future__ import annotations

import os
import re
from html import unescape
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import User
from grader.services import password_reset
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import PASSWORD, csrf_from, empty_database, make_user
from tests.web.test_app import flask_cli

NEW = "a brand new passphrase"


def make_link(instructor: FlaskClient, email: str) -> str:
    page = instructor.get("/teach/reset-link").get_data(as_text=True)
    html = instructor.post("/teach/reset-link", data={"csrf_token": csrf_from(page), "email": email}).get_data(
        as_text=True)  # fmt: skip
    found = re.search(r'<code class="token">http://localhost(/reset/[^<]+)</code>', html)
    assert found, html
    return found.group(1)


def choose(client: FlaskClient, path: str, new: str, confirm: str | None = None):  # type: ignore[no-untyped-def]
    page = client.get(path).get_data(as_text=True)
    return client.post(path, data={"csrf_token": csrf_from(page), "new": new, "confirm": confirm or new})


def can_log_in(app: Flask, email: str, password: str) -> bool:
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    answer = client.post("/login", data={"email": email, "password": password, "csrf_token": csrf_from(page)})
    return answer.status_code == 302


def test_a_learner_resets_through_the_instructors_link_once(app: Flask, instructor: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    path = make_link(instructor, "ada@example.com")
    learner = app.test_client()
    mismatch = choose(learner, path, NEW, "something else entirely")
    assert mismatch.status_code == 422 and "The passwords differ." in mismatch.get_data(as_text=True)
    done = choose(learner, path, NEW)
    assert done.status_code == 302 and done.headers["Location"].endswith("/login")
    assert can_log_in(app, "ada@example.com", NEW) and not can_log_in(app, "ada@example.com", PASSWORD)
    again = learner.get(path)
    assert again.status_code == 400 and "expired or has been used" in again.get_data(as_text=True)
    assert "Ask your instructor for a new one." in again.get_data(as_text=True)  # no mail here


def test_a_reset_ends_the_sessions_made_with_the_old_password(app: Flask, instructor: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    stolen = app.test_client()
    page = stolen.get("/login").get_data(as_text=True)
    stolen.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": csrf_from(page)})
    assert stolen.get("/profile").status_code == 200
    choose(app.test_client(), make_link(instructor, "ada@example.com"), NEW)
    assert stolen.get("/profile").status_code == 302


def test_a_reset_revokes_the_api_tokens_made_with_the_old_password(app: Flask, instructor: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    token = token_for(app, "ada@example.com")
    api = app.test_client()
    assert api.get(f"{API}/progress", headers=auth(token)).status_code == 200
    learner = app.test_client()
    done = choose(learner, make_link(instructor, "ada@example.com"), NEW)
    assert "Your API token was revoked with the old password" in unescape(learner.get(done.headers["Location"]).get_data(
        as_text=True))  # fmt: skip
    assert api.get(f"{API}/progress", headers=auth(token)).status_code == 401


def test_a_short_password_is_refused_and_the_link_still_works(app: Flask, instructor: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    path = make_link(instructor, "ada@example.com")
    learner = app.test_client()
    assert choose(learner, path, "short").status_code == 422
    assert choose(learner, path, NEW).status_code == 302


def test_expired_tampered_and_foreign_tokens_are_refused(app: Flask) -> None:
    ada = make_user(app, "ada@example.com")
    with app.app_context():
        user = db.session.get(User, ada)
        assert user is not None
        token = password_reset.reset_token(user, "secret one")
        assert password_reset.user_for_reset(token, "secret one") == user
        assert password_reset.user_for_reset(token, "secret one", max_age=-1) is None  # expired
        assert password_reset.user_for_reset(token, "another secret") is None
        assert password_reset.user_for_reset(token[:-2] + "xx", "secret one") is None
    assert app.test_client().get("/reset/not-a-token").status_code == 400


def test_instructors_cannot_make_links_for_instructors_or_unknown_emails(app: Flask, instructor: FlaskClient) -> None:
    make_user(app, "other-teacher@example.com", "instructor")
    for email in ("other-teacher@example.com", "nobody@example.com"):
        page = instructor.get("/teach/reset-link").get_data(as_text=True)
        html = instructor.post("/teach/reset-link", data={"csrf_token": csrf_from(page), "email": email}).get_data(
            as_text=True)  # fmt: skip
        assert "There is no learner with that email." in html and "/reset/" not in html


def test_a_learner_cannot_make_links(learner: FlaskClient) -> None:
    assert learner.get("/teach/reset-link").status_code == 403


def test_the_cli_prints_a_working_link_for_any_user(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        made = flask_cli("users", "bootstrap", "--email", "boss@example.com", env=env)
        assert made.returncode == 0, made.stderr
        printed = flask_cli("users", "reset-link", "--email", "boss@example.com", "--base-url", "https://g.example/",
                            env=env)  # fmt: skip
        assert printed.returncode == 0, printed.stderr
        link = printed.stdout.strip()
        assert link.startswith("https://g.example/reset/")
        from grader import create_app

        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "x" * 32,
                          "RATELIMIT_ENABLED": False})  # fmt: skip
        client = app.test_client()
        assert choose(client, link.removeprefix("https://g.example"), NEW).status_code == 302
        assert can_log_in(app, "boss@example.com", NEW)
        with app.app_context():
            db.engine.dispose()
        configured = flask_cli("users", "reset-link", "--email", "boss@example.com",
                               env={**env, "GRADER_BASE_URL": "https://grader.example.org/"})  # fmt: skip
        assert configured.stdout.startswith("https://grader.example.org/reset/"), configured.stderr
        served = flask_cli("users", "reset-link", "--email", "boss@example.com",
                           env={**env, "GRADER_BIND": "127.0.0.1:8731"})  # fmt: skip
        assert served.stdout.startswith("http://127.0.0.1:8731/reset/"), served.stderr
        everywhere = flask_cli("users", "reset-link", "--email", "boss@example.com",
                               env={**env, "GRADER_BIND": "0.0.0.0:8000"})  # fmt: skip
        assert everywhere.stdout.startswith("http://127.0.0.1:8000/reset/"), everywhere.stderr
        missing = flask_cli("users", "reset-link", "--email", "nobody@example.com", env=env)
        assert missing.returncode != 0 and "no user with email" in missing.stderr

