"""Registration, login, logout, tokens, CSRF, cookies and login rate limits."""

from __future__ import annotations

import re

from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from limits import parse

from grader.extensions import db
from grader.models import ApiToken, User
from grader.services import accounts, api_tokens
from grader.web import login_limits
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import PASSWORD, build_app, csrf_from, login, make_user

# Sign-in is what these tests are about: passwords are hashed at argon2's real cost, as in production.
pytestmark = pytest.mark.real_password_cost


def register(client: FlaskClient, email: str, password: str = PASSWORD, confirm: str | None = None):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/register").get_data(as_text=True))
    return client.post("/register", data={"email": email, "password": password,
                                          "confirm": confirm or password, "csrf_token": token})  # fmt: skip


def test_register_logs_in_and_stores_an_argon2_hash(app: Flask, client: FlaskClient) -> None:
    response = register(client, "New@Example.com")
    assert response.status_code == 302
    assert client.get("/").status_code == 200
    with app.app_context():
        user = db.session.scalar(sa.select(User).where(User.email == "new@example.com"))
        assert user is not None and user.role == "learner"
        assert user.password_hash.startswith("$argon2id$") and PASSWORD not in user.password_hash
        assert "$m=65536,t=3,p=4$" in user.password_hash  # argon2's default cost (RFC 9106, low memory)


def test_only_a_test_app_can_ask_for_cheap_password_hashes(tmp_path: Path) -> None:
    app = build_app(tmp_path, TESTING=False, CHEAP_PASSWORD_HASHES=True)
    with app.app_context():
        assert "$m=65536,t=3,p=4$" in accounts.create_user("prod@example.com", PASSWORD).password_hash
    cheap = build_app(tmp_path / "cheap", CHEAP_PASSWORD_HASHES=True)
    with cheap.app_context():
        hashed = accounts.create_user("test@example.com", PASSWORD).password_hash
        assert "$m=65536" not in hashed and accounts.authenticate("test@example.com", PASSWORD) is not None


def test_register_rejects_bad_input_with_messages(client: FlaskClient) -> None:
    assert "valid email" in register(client, "not-an-email").get_data(as_text=True)
    short = register(client, "a@example.com", "short")
    assert short.status_code == 422 and "at least 10" in short.get_data(as_text=True)
    assert "passwords differ" in register(client, "a@example.com", PASSWORD, PASSWORD + "x").get_data(as_text=True)


def test_duplicate_email_is_refused(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    assert "already exists" in register(client, "ADA@example.com").get_data(as_text=True)


def test_wrong_password_is_refused_without_saying_which_part(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post("/login", data={"email": "ada@example.com", "password": "nope", "csrf_token": token})
    assert response.status_code == 401
    assert "Wrong email or password." in response.get_data(as_text=True)
    assert client.get("/").status_code == 302


def test_pages_need_login_and_redirect_back_safely(app: Flask, client: FlaskClient) -> None:
    response = client.get("/exercises/block-gelu")
    assert response.status_code == 302 and "/login?next=" in response.headers["Location"]
    make_user(app, "ada@example.com")
    token = csrf_from(client.get("/login").get_data(as_text=True))
    evil = client.post("/login?next=//evil.example/x", data={"email": "ada@example.com", "password": PASSWORD,
                                                             "csrf_token": token})  # fmt: skip
    assert evil.headers["Location"] == "/"


def test_next_with_hidden_characters_never_leaves_the_site(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    for target in ("/%09/evil.example", "/%0a/evil.example", "/%0d%0a/evil.example", "/\\evil.example",
                   "/%20/evil.example", "/%E2%80%A8/evil.example"):  # fmt: skip
        client.post("/logout", data={"csrf_token": csrf_from(client.get("/login").get_data(as_text=True))})
        token = csrf_from(client.get("/login").get_data(as_text=True))
        response = client.post(f"/login?next={target}", data={"email": "ada@example.com", "password": PASSWORD,
                                                                "csrf_token": token})  # fmt: skip
        assert (response.status_code, response.headers["Location"]) == (302, "/"), target
    token = csrf_from(client.get("/login").get_data(as_text=True))
    kept = client.post("/login?next=/exercises/block-gelu%3Fattempt%3D2", data={
        "email": "ada@example.com", "password": PASSWORD, "csrf_token": token})  # fmt: skip
    assert kept.headers["Location"] == "/exercises/block-gelu?attempt=2"
    language = client.post("/language", data={"locale": "pt", "next": "/\t/evil.example",
                                              "csrf_token": csrf_from(client.get("/").get_data(as_text=True))})  # fmt: skip
    assert (language.status_code, language.headers["Location"]) == (303, "/")


def test_logout_needs_post_with_csrf(app: Flask, learner: FlaskClient) -> None:
    assert learner.get("/logout").status_code == 405
    assert learner.post("/logout").status_code == 400
    token = csrf_from(learner.get("/").get_data(as_text=True))
    assert learner.post("/logout", data={"csrf_token": token}).status_code == 302
    assert learner.get("/").status_code == 302


def test_session_cookie_is_httponly_and_samesite_lax(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    token = csrf_from(client.get("/login").get_data(as_text=True))
    response = client.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": token})
    cookie = next(h for h in response.headers.getlist("Set-Cookie") if h.startswith("session="))
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_profile_makes_shows_once_and_revokes_tokens(app: Flask, learner: FlaskClient) -> None:
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    html = learner.post("/profile", data={"name": "laptop", "csrf_token": token}).get_data(as_text=True)
    assert "shown only once" in html
    with app.app_context():
        row = db.session.scalar(sa.select(ApiToken))
        assert row is not None and row.name == "laptop"
        row_id = row.id
    assert "shown only once" not in learner.get("/profile").get_data(as_text=True)
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    learner.post(f"/profile/tokens/{row_id}/revoke", data={"csrf_token": token})
    with app.app_context():
        assert db.session.get(ApiToken, row_id).revoked_at is not None


def test_sending_the_token_form_again_makes_no_second_token(app: Flask, learner: FlaskClient) -> None:
    page = learner.get("/profile").get_data(as_text=True)
    once = re.search(r'name="once" type="hidden" value="([^"]+)"', page)
    assert once is not None
    data = {"name": "laptop", "csrf_token": csrf_from(page), "once": once.group(1)}
    made = learner.post("/profile", data=data)
    assert made.status_code == 200 and "shown only once:" in made.get_data(as_text=True)
    again = learner.post("/profile", data=data)  # what reloading that page sends
    html = again.get_data(as_text=True)
    assert again.status_code == 409 and "This form already made its token" in html and "shown only once:" not in html
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(ApiToken)) == 1
    fresh = re.search(r'name="once" type="hidden" value="([^"]+)"', html)
    assert fresh is not None and fresh.group(1) != once.group(1)  # the page's form makes another
    assert learner.post("/profile", data={**data, "once": fresh.group(1)}).status_code == 200
    blank = learner.post("/profile", data={**data, "name": "", "once": "x"})
    assert blank.status_code == 422 and "This field is required." in blank.get_data(as_text=True)


def test_a_learner_cannot_revoke_someone_elses_token(app: Flask, learner: FlaskClient) -> None:
    other = make_user(app, "eve@example.com")
    with app.app_context():
        api_tokens.create_token(db.session.get(User, other), "eve")
        row_id = db.session.scalar(sa.select(ApiToken.id))
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    assert learner.post(f"/profile/tokens/{row_id}/revoke", data={"csrf_token": token}).status_code == 404
    with app.app_context():
        assert db.session.get(ApiToken, row_id).revoked_at is None


def test_failed_logins_are_rate_limited_even_without_csrf(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    client = app.test_client()
    make_user(app, "ada@example.com")
    statuses = [client.post("/login", data={"email": "ada@example.com", "password": "x"}).status_code
                for _ in range(12)]  # fmt: skip
    assert statuses[:10] == [400] * 10
    assert statuses[10:] == [429, 429]
    assert "Too many requests" in client.post("/login", data={}).get_data(as_text=True)


def test_the_per_email_limit_counts_logins_sent_as_json_too(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")

    def guess(address: str, **body: object) -> int:
        # Each from its own address, so only the per-email ceiling (100 in 15 minutes) can refuse it.
        client = app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        token = csrf_from(client.get("/login").get_data(as_text=True))
        return client.post("/login", **{k: {**v, "csrf_token": token} for k, v in body.items()}).status_code

    wrong = {"email": "Ada@Example.com", "password": "not it"}
    ceiling = parse(login_limits.PER_EMAIL).amount
    assert [guess(f"10.0.{i // 200}.{i % 200}", data=wrong) for i in range(ceiling)] == [401] * ceiling
    assert guess("10.0.1.1", json=wrong) == 429  # Flask-WTF reads JSON bodies: they name the same account


def test_successful_logins_do_not_use_up_the_limit(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    client = app.test_client()
    make_user(app, "ada@example.com")
    for _ in range(12):
        login(client, "ada@example.com")


def test_a_learner_changes_their_password(app: Flask, learner: FlaskClient) -> None:
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    wrong = learner.post("/profile/password", data={"pw-csrf_token": token, "pw-current": "nope",
                                                    "pw-new": "a brand new password", "pw-confirm": "a brand new password"})  # fmt: skip
    assert wrong.status_code == 422 and "current password is not right" in wrong.get_data(as_text=True)
    # Its language switch comes back to the profile, which a GET can show (not to the POST-only address).
    assert '<input type="hidden" name="next" value="/profile">' in wrong.get_data(as_text=True)
    done = learner.post("/profile/password", data={"pw-csrf_token": token, "pw-current": PASSWORD,
                                                   "pw-new": "a brand new password", "pw-confirm": "a brand new password"})  # fmt: skip
    assert done.status_code == 302
    with app.app_context():
        assert accounts.authenticate("ada@example.com", "a brand new password") is not None
        assert accounts.authenticate("ada@example.com", PASSWORD) is None


def test_changing_the_password_ends_every_other_session(app: Flask, learner: FlaskClient) -> None:
    other = app.test_client()
    login(other, "ada@example.com")
    assert other.get("/profile").status_code == 200
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    learner.post("/profile/password", data={"pw-csrf_token": token, "pw-current": PASSWORD,
                                            "pw-new": "a brand new password", "pw-confirm": "a brand new password"})  # fmt: skip
    assert learner.get("/profile").status_code == 200  # the session that changed it goes on
    ended = other.get("/profile")
    assert ended.status_code == 302 and "/login?next=" in ended.headers["Location"]


def test_changing_the_password_revokes_every_api_token(app: Flask, learner: FlaskClient) -> None:
    tokens = [token_for(app, "ada@example.com") for _ in range(2)]
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    done = learner.post("/profile/password", data={"pw-csrf_token": token, "pw-current": PASSWORD,
                                                   "pw-new": "a brand new password", "pw-confirm": "a brand new password"})  # fmt: skip
    page = learner.get(done.headers["Location"]).get_data(as_text=True)
    assert "Your 2 API tokens were revoked with the old password: make new ones on your profile page." in page
    assert [app.test_client().get(f"{API}/progress", headers=auth(t)).status_code for t in tokens] == [401, 401]


def test_a_session_id_that_names_no_live_sign_in_is_not_trusted(app: Flask, learner: FlaskClient) -> None:
    with learner.session_transaction() as session:
        secret = session["_user_id"]
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        account, fingerprint = str(user.id), user.password_fingerprint()
    flipped = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    for forged in (account, f"{account}:{fingerprint}", "s1.", flipped, secret[:-1], secret + "x" * 100, ""):
        with learner.session_transaction() as session:
            session["_user_id"] = forged
        assert learner.get("/profile").status_code == 302, forged
    with learner.session_transaction() as session:
        session["_user_id"] = secret
    assert learner.get("/profile").status_code == 200