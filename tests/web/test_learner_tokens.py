"""Learners' API tokens: made on the profile page with an expiry and maybe a course, listed, revoked; refused
once expired or revoked, saying when; bound to their course; never the staff's; rate limited; and tokens made
before expiry existed keep working across the migration."""

from __future__ import annotations

import hashlib
import os
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader import create_app
from grader.extensions import db
from grader.models import ApiToken, Attempt, utcnow
from grader.services import accounts, api_tokens, courses, privacy
from tests.web.api_support import API, auth
from tests.web.conftest import PASSWORD, build_app, csrf_from, empty_database, login, make_user
from tests.web.test_app import flask_cli
from tests.web.test_courses import person, two_courses  # noqa: F401 - a fixture

BEFORE = "7b2e4d6f8a01"  # the revision before tokens had an expiry and a course


def make_token(client: FlaskClient, **fields: str) -> tuple[int, str]:
    """Send the profile's token form; the status and the page."""
    page = client.get("/profile").get_data(as_text=True)
    once = re.search(r'name="once" type="hidden" value="([^"]+)"', page)
    data = {"csrf_token": csrf_from(page), "name": "notebook", "once": once.group(1) if once else "", **fields}
    reply = client.post("/profile", data=data)
    return reply.status_code, reply.get_data(as_text=True)


def shown_token(page: str) -> str:
    found = re.search(r'id="new-token">(gr_[^<]+)<', page)
    assert found, "no new token on the page"
    return found.group(1)


def stored_tokens(app: Flask) -> list[ApiToken]:
    with app.app_context():
        return list(db.session.scalars(sa.select(ApiToken).order_by(ApiToken.id)))


def test_a_learner_makes_a_token_for_one_course_with_an_expiry_and_sees_it_listed(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    client = app.test_client()
    login(client, "ada@example.com")
    status, page = make_token(client, days="7", course="ml102")
    assert status == 200
    token = shown_token(page)
    [made] = stored_tokens(app)
    assert made.course_id == two_courses["ml102"] and made.expires_at is not None
    assert timedelta(days=7) - (made.expires_at - made.created_at) == timedelta(0)
    listed = page[page.index("<tbody>", page.index("API tokens")):]
    assert "ml102" in listed[:listed.index("</tbody>")] and made.prefix in listed
    me = app.test_client().get(f"{API}/me", headers=auth(token)).get_json()
    assert me["course"] == "ml102" and me["expires_at"].startswith(made.expires_at.date().isoformat())


def test_an_expiry_or_a_course_not_offered_is_refused_and_no_token_is_made(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    person(app, "eve@example.com")
    client = app.test_client()
    login(client, "bo@example.com")  # in ml101 only
    for fields in ({"days": "365"}, {"days": "0"}, {"course": "ml102"}):
        status, page = make_token(client, **fields)
        assert status == 422 and "Not a valid choice" in page, fields
    assert stored_tokens(app) == []
    status, _ = make_token(client)  # the default: 30 days, every course of theirs
    [made] = stored_tokens(app)
    assert status == 200 and made.course_id is None
    assert made.expires_at is not None and made.expires_at - made.created_at == timedelta(days=api_tokens.DEFAULT_DAYS)


def test_an_expired_token_is_refused_saying_when_and_a_revoked_one_too(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        expired, revoked = api_tokens.create_token(user, "old", 7), api_tokens.create_token(user, "gone", 7)
        db.session.execute(sa.update(ApiToken).where(ApiToken.name == "old")
                           .values(expires_at=datetime(2026, 1, 2, 3, 4, 5)))
        db.session.commit()
        assert api_tokens.revoke_token(user, next(t.id for t in api_tokens.active_tokens(user) if t.name == "gone"))
    reply = client.get(f"{API}/exercises", headers=auth(expired))
    assert reply.status_code == 401 and 'error="invalid_token"' in reply.headers["WWW-Authenticate"]
    assert reply.get_json()["message"].startswith("This API token expired on 2026-01-02T03:04:05Z.")
    reply = client.post(f"{API}/exercises/block-layernorm/attempts", headers=auth(expired),
                        json={"answers": {"mu": "1"}})
    assert reply.status_code == 401
    reply = client.get(f"{API}/exercises", headers=auth(revoked))
    assert reply.status_code == 401 and reply.get_json()["message"].startswith("This API token was revoked on ")
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Attempt)) == 0


def test_the_profile_marks_an_expired_token(app: Flask, learner: FlaskClient) -> None:
    make_token(learner, days="7")
    with app.app_context():
        db.session.execute(sa.update(ApiToken).values(expires_at=utcnow() - timedelta(days=1)))
        db.session.commit()
    page = learner.get("/profile").get_data(as_text=True)
    assert '<span class="badge">expired</span>' in page


def test_a_token_bound_to_a_course_acts_only_there(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        token = api_tokens.create_token(user, "ml102 only", 30, two_courses["ml102"])
    client = app.test_client()
    refused = client.get(f"{API}/exercises?course=ml101", headers=auth(token))
    assert refused.status_code == 403
    assert refused.get_json()["message"].startswith("This token acts only in the course ml102")
    attempt = client.post(f"{API}/exercises/block-residual/attempts?course=ml101", headers=auth(token),
                          json={"answers": {"h": "[0.000; 0.000; 0.000; 0.000]"}})
    assert attempt.status_code == 403
    assert client.get(f"{API}/courses/ml101/gradebook.csv", headers=auth(token)).status_code == 403
    assert [c["code"] for c in client.get(f"{API}/courses", headers=auth(token)).get_json()] == ["ml102"]
    stored = client.post(f"{API}/exercises/block-residual/attempts", headers=auth(token),
                         json={"answers": {"h": "[0.000; 0.000; 0.000; 0.000]"}})
    assert stored.status_code == 201
    with app.app_context():
        assert list(db.session.scalars(sa.select(Attempt.course_id))) == [two_courses["ml102"]]
    with pytest.raises(ValueError):  # bo is not in ml102: no token of his is bound to it
        with app.app_context():
            bo = accounts.user_by_email("bo@example.com")
            assert bo is not None
            api_tokens.create_token(bo, "x", 7, two_courses["ml102"])


def test_a_learners_token_never_reaches_the_gradebooks(app: Flask, learner: FlaskClient) -> None:
    make_token(learner)
    token = shown_token(make_token(learner)[1])
    client = app.test_client()
    assert client.get(f"{API}/gradebook.csv", headers=auth(token)).status_code == 403
    assert client.get(f"{API}/courses/default/gradebook.csv", headers=auth(token)).status_code == 403


def test_a_learners_token_runs_into_the_apis_rate_limit(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        token = api_tokens.create_token(user, "notebook", 7)
    client = app.test_client()
    unreadable = {"answers": {"mu": "not a number"}}  # 422: read, refused, nothing stored
    codes = [client.post(f"{API}/exercises/block-layernorm/attempts", headers=auth(token), json=unreadable).status_code
             for _ in range(31)]  # fmt: skip
    assert codes == [422] * 30 + [429]
    last = client.post(f"{API}/exercises/block-layernorm/attempts", headers=auth(token), json=unreadable)
    assert last.status_code == 429 and int(last.headers["Retry-After"]) > 0
    with app.app_context():
        again = accounts.user_by_email("ada@example.com")
        assert again is not None
        another = api_tokens.create_token(again, "second", 7)  # one budget per learner, whatever the token
        db.engine.dispose()
    assert client.post(f"{API}/exercises/block-layernorm/attempts", headers=auth(another),
                       json=unreadable).status_code == 429


def test_the_personal_data_export_lists_each_tokens_course_and_expiry(app: Flask,
                                                                      two_courses: dict[str, int]) -> None:  # noqa: F811
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        api_tokens.create_token(user, "bound", 7, two_courses["ml101"])
        data = privacy.export(user)
        [token] = data["api_tokens"]
        assert token["course"] == "ml101" and token["expires_at"].endswith("Z") and "token_hash" not in token
        privacy.erase(user, user.id)
        assert db.session.scalar(sa.select(sa.func.count()).select_from(ApiToken)) == 0


def test_tokens_made_before_expiry_existed_keep_working_and_the_migration_goes_back(tmp_path: Path) -> None:
    token = "gr_" + "made-before-expiry".ljust(43, "x")
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", BEFORE, env=env).returncode == 0
        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
        with app.app_context():
            user = accounts.create_user("old@example.com", PASSWORD)
            db.session.execute(sa.text(
                "INSERT INTO api_tokens (user_id, name, token_hash, prefix, created_at) VALUES (:u, 'old', :h, :p, :t)"),
                {"u": user.id, "h": hashlib.sha256(token.encode()).hexdigest(), "p": token[:10], "t": utcnow()})
            db.session.commit()
            db.engine.dispose()
        upgraded = flask_cli("db", "upgrade", env=env)
        assert upgraded.returncode == 0, upgraded.stderr
        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
        me = app.test_client().get(f"{API}/me", headers=auth(token))
        assert me.status_code == 200 and me.get_json()["expires_at"] is None and me.get_json()["course"] is None
        with app.app_context():
            db.engine.dispose()
        downgraded = flask_cli("db", "downgrade", BEFORE, env=env)
        assert downgraded.returncode == 0, downgraded.stderr
        engine = sa.create_engine(url)
        with engine.connect() as connection:
            columns = {c["name"] for c in sa.inspect(connection).get_columns("api_tokens")}
            assert connection.execute(sa.text("SELECT count(*) FROM api_tokens")).scalar_one() == 1
        engine.dispose()
        assert "expires_at" not in columns and "course_id" not in columns


def test_a_course_deleted_takes_its_tokens_with_it(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        api_tokens.create_token(user, "bound", 7, two_courses["ml101"])
        api_tokens.create_token(user, "any", 7)
        course = courses.by_code("ml101")
        db.session.delete(course)
        db.session.commit()
        assert [t.name for t in api_tokens.active_tokens(user)] == ["any"]
