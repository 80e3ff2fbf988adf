"""Sign-ins kept on the server: signing out ends copied cookies, the profile lists and ends browsers,
idle sign-ins expire, and a new password or a closed account ends them."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import SignIn, utcnow
from grader.services import accounts
from grader.web.filters import browser
from tests.web.conftest import PASSWORD, csrf_from, login, make_user

FIREFOX_LINUX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
CHROME_WINDOWS = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/131.0.0.0 Safari/537.36")  # fmt: skip


def browser_as(app: Flask, email: str, agent: str) -> FlaskClient:
    """A new browser, with its own User-Agent, signed in as `email`."""
    client = app.test_client()
    client.environ_base["HTTP_USER_AGENT"] = agent
    login(client, email)
    return client


def copy_of(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another browser holding a copy of this one's session cookie."""
    cookie = client.get_cookie("session")
    assert cookie is not None
    thief = app.test_client()
    thief.set_cookie("session", cookie.value)
    return thief


def sign_ins_of(app: Flask, email: str) -> list[SignIn]:
    with app.app_context():
        user = accounts.user_by_email(email)
        assert user is not None
        return list(db.session.scalars(sa.select(SignIn).where(SignIn.user_id == user.id).order_by(SignIn.id)))


def signed_in(client: FlaskClient) -> bool:
    response = client.get("/profile")
    assert response.status_code in (200, 302)
    return response.status_code == 200


def post_from_profile(client: FlaskClient, path: str) -> str:
    """POST a profile button (with the page's CSRF token); returns the page it leads to."""
    token = csrf_from(client.get("/profile").get_data(as_text=True))
    response = client.post(path, data={"csrf_token": token}, follow_redirects=True)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def test_signing_out_makes_a_copied_cookie_worthless(app: Flask, learner: FlaskClient) -> None:
    thief = copy_of(app, learner)
    assert signed_in(thief)
    post_from_profile(learner, "/logout")
    assert not signed_in(learner)
    assert not signed_in(thief)
    assert sign_ins_of(app, "ada@example.com") == []


def test_logout_without_csrf_ends_nothing(app: Flask, learner: FlaskClient) -> None:
    learner.post("/logout", data={})
    assert signed_in(learner)
    assert len(sign_ins_of(app, "ada@example.com")) == 1


def test_each_login_is_its_own_sign_in_with_a_new_secret(app: Flask, learner: FlaskClient) -> None:
    with learner.session_transaction() as session:
        first = session["_user_id"]
    login(learner, "ada@example.com")
    with learner.session_transaction() as session:
        assert session["_user_id"] != first
    stored = sign_ins_of(app, "ada@example.com")
    assert len(stored) == 2
    assert all(first not in row.secret_hash for row in stored)  # only digests are kept


def test_the_profile_lists_browsers_and_marks_this_one(app: Flask) -> None:
    make_user(app, "ada@example.com")
    here = browser_as(app, "ada@example.com", FIREFOX_LINUX)
    browser_as(app, "ada@example.com", CHROME_WINDOWS)
    page = here.get("/profile").get_data(as_text=True)
    assert "Where you are signed in" in page
    assert page.count("this browser") == 1
    rows = page.split("Where you are signed in")[1].split("</table>")[0]
    this_row = next(r for r in rows.split("<tr>") if "this browser" in r)
    assert "Firefox on Linux" in this_row and "Chrome on Windows" not in this_row
    assert "Chrome on Windows" in rows
    assert "Sign out everywhere else" in page


def test_ending_another_browser_signs_it_out_and_keeps_this_one(app: Flask) -> None:
    make_user(app, "ada@example.com")
    here = browser_as(app, "ada@example.com", FIREFOX_LINUX)
    there = browser_as(app, "ada@example.com", CHROME_WINDOWS)
    other = next(row.id for row in sign_ins_of(app, "ada@example.com") if "Chrome" in row.agent)
    page = post_from_profile(here, f"/profile/sign-ins/{other}/end")
    assert "Signed out of 1 browser." in page
    assert signed_in(here) and not signed_in(there)


def test_nobody_ends_someone_elses_sign_in(app: Flask, learner: FlaskClient) -> None:
    make_user(app, "bob@example.com")
    bob = browser_as(app, "bob@example.com", FIREFOX_LINUX)
    bobs = sign_ins_of(app, "bob@example.com")[0].id
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    assert learner.post(f"/profile/sign-ins/{bobs}/end", data={"csrf_token": token}).status_code == 404
    assert learner.post(f"/profile/sign-ins/{bobs + 1000}/end", data={"csrf_token": token}).status_code == 404
    assert signed_in(bob)


def test_signing_out_everywhere_else(app: Flask) -> None:
    make_user(app, "ada@example.com")
    make_user(app, "bob@example.com")
    here = browser_as(app, "ada@example.com", FIREFOX_LINUX)
    elsewhere = [browser_as(app, "ada@example.com", CHROME_WINDOWS) for _ in range(2)]
    bob = browser_as(app, "bob@example.com", CHROME_WINDOWS)
    page = post_from_profile(here, "/profile/sign-ins/end-others")
    assert "Signed out of 2 browsers." in page
    assert "Sign out everywhere else" not in page  # only this browser is left
    assert signed_in(here) and signed_in(bob)
    assert not any(signed_in(client) for client in elsewhere)


def set_last_seen(app: Flask, email: str, ago: timedelta) -> None:
    with app.app_context():
        user = accounts.user_by_email(email)
        assert user is not None
        db.session.execute(sa.update(SignIn).where(SignIn.user_id == user.id).values(last_seen_at=utcnow() - ago))
        db.session.commit()


def test_a_sign_in_idle_past_the_limit_ends_and_is_deleted(app: Flask, learner: FlaskClient) -> None:
    set_last_seen(app, "ada@example.com", timedelta(days=app.config["SIGN_IN_IDLE_DAYS"], minutes=1))
    response = learner.get("/profile")
    assert response.status_code == 302 and "/login?next=" in response.headers["Location"]
    assert sign_ins_of(app, "ada@example.com") == []


def test_use_keeps_a_sign_in_alive_but_writes_last_seen_only_now_and_then(app: Flask, learner: FlaskClient) -> None:
    almost = timedelta(days=app.config["SIGN_IN_IDLE_DAYS"] - 1)
    set_last_seen(app, "ada@example.com", almost)
    assert signed_in(learner)
    (touched,) = sign_ins_of(app, "ada@example.com")
    assert utcnow() - touched.last_seen_at < timedelta(minutes=1)
    set_last_seen(app, "ada@example.com", timedelta(minutes=4))
    before = sign_ins_of(app, "ada@example.com")[0].last_seen_at
    assert signed_in(learner)
    assert sign_ins_of(app, "ada@example.com")[0].last_seen_at == before  # within five minutes: no write


def test_a_new_sign_in_clears_out_everyones_expired_ones(app: Flask, learner: FlaskClient) -> None:
    set_last_seen(app, "ada@example.com", timedelta(days=app.config["SIGN_IN_IDLE_DAYS"] + 1))
    make_user(app, "bob@example.com")
    browser_as(app, "bob@example.com", FIREFOX_LINUX)
    assert sign_ins_of(app, "ada@example.com") == []
    assert len(sign_ins_of(app, "bob@example.com")) == 1


def test_changing_the_password_keeps_only_this_sign_in(app: Flask, learner: FlaskClient) -> None:
    elsewhere = browser_as(app, "ada@example.com", CHROME_WINDOWS)
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    learner.post("/profile/password", data={"pw-csrf_token": token, "pw-current": PASSWORD,
                                            "pw-new": "a brand new password", "pw-confirm": "a brand new password"})  # fmt: skip
    assert signed_in(learner) and not signed_in(elsewhere)
    assert len(sign_ins_of(app, "ada@example.com")) == 1


def test_closing_the_account_deletes_its_sign_ins(app: Flask, learner: FlaskClient) -> None:
    thief = copy_of(app, learner)
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    closed = learner.post("/profile/close", data={"close-csrf_token": token, "close-password": PASSWORD})
    assert closed.status_code == 303
    assert not signed_in(thief)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(SignIn)) == 0


def test_the_data_download_lists_sign_ins(app: Flask) -> None:
    make_user(app, "ada@example.com")
    here = browser_as(app, "ada@example.com", FIREFOX_LINUX)
    data = here.get("/profile/data").get_json(force=True)
    assert [row["agent"] for row in data["sign_ins"]] == [FIREFOX_LINUX]
    assert data["sign_ins"][0]["created_at"].endswith("Z")


@pytest.mark.parametrize(("agent", "name"), [
    (FIREFOX_LINUX, "Firefox on Linux"),
    (CHROME_WINDOWS, "Chrome on Windows"),
    (CHROME_WINDOWS + " Edg/131.0.0.0", "Edge on Windows"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "Version/17.0 Mobile/15E148 Safari/604.1", "Safari on iOS"),
    ("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 "
     "Safari/605.1.15", "Safari on macOS"),
    ("curl/8.5.0", "curl/8.5.0"),
    ("", "an unnamed browser"),
])  # fmt: skip
def test_browser_names(app: Flask, agent: str, name: str) -> None:
    with app.test_request_context():
        assert browser(agent) == name
