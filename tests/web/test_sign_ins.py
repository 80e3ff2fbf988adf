"""Sign-ins kept on the server: signing out ends copied cookies, the profile lists and ends browsers,
idle sign-ins expire, and a new password or a closed account ends them."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.config import settings
from grader.extensions import db
from grader.models import SignIn, utcnow
from grader.services import accounts, password_reset
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
    (stored,) = sign_ins_of(app, "ada@example.com")  # logging in again ended this browser's old sign-in
    with learner.session_transaction() as session:
        assert stored.secret_hash == hashlib.sha256(session["_user_id"].encode()).hexdigest()  # only its digest


def test_logging_in_again_ends_the_old_cookie_of_that_browser(app: Flask, learner: FlaskClient) -> None:
    old_copy = copy_of(app, learner)
    login(learner, "ada@example.com")
    assert signed_in(learner) and not signed_in(old_copy)
    make_user(app, "bob@example.com")
    login(learner, "bob@example.com")  # another account, without logging out first
    assert sign_ins_of(app, "ada@example.com") == []


def test_the_profile_lists_browsers_and_marks_this_one(app: Flask) -> None:
    make_user(app, "ada@example.com")
    here = browser_as(app, "ada@example.com", FIREFOX_LINUX)
    browser_as(app, "ada@example.com", CHROME_WINDOWS)
    page = here.get("/profile").get_data(as_text=True)
    assert "Where you are signed in" in page
    assert page.count("this browser") == 1
    rows = page.rsplit("Where you are signed in", 1)[1].split("</table>")[0]  # the last: the table region's name
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


def test_a_sign_in_idle_past_the_limit_ends(app: Flask, learner: FlaskClient) -> None:
    set_last_seen(app, "ada@example.com", timedelta(days=app.config["SIGN_IN_IDLE_DAYS"], minutes=1))
    response = learner.get("/profile")
    assert response.status_code == 302 and "/login?next=" in response.headers["Location"]
    assert learner.get("/").status_code == 302


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


def test_a_new_password_ends_every_other_cookie_even_copies_of_this_browsers(app: Flask, learner: FlaskClient) -> None:
    elsewhere = browser_as(app, "ada@example.com", CHROME_WINDOWS)
    stolen = copy_of(app, learner)
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    changed = learner.post("/profile/password", data={"pw-csrf_token": token, "pw-current": PASSWORD,
                                                      "pw-new": "a brand new password", "pw-confirm": "a brand new password"})  # fmt: skip
    assert changed.status_code == 302
    assert signed_in(learner)
    assert not signed_in(elsewhere) and not signed_in(stolen)
    assert len(sign_ins_of(app, "ada@example.com")) == 1


def test_a_reset_from_a_signed_in_browser_ends_every_sign_in(app: Flask, learner: FlaskClient) -> None:
    with app.app_context():
        user = accounts.user_by_email("ada@example.com")
        assert user is not None
        link = password_reset.reset_token(user, app.config["SECRET_KEY"])
    token = csrf_from(learner.get(f"/reset/{link}").get_data(as_text=True))
    done = learner.post(f"/reset/{link}", data={"csrf_token": token, "new": "a brand new password",
                                                "confirm": "a brand new password"})  # fmt: skip
    assert done.status_code == 302
    assert not signed_in(learner)
    assert sign_ins_of(app, "ada@example.com") == []


REFUSE_UPDATES = {  # the database refuses to write "last seen", as a read-only or full one would
    "sqlite": ["CREATE TRIGGER refuse BEFORE UPDATE ON sign_ins BEGIN SELECT RAISE(ABORT, 'refused'); END"],
    "postgresql": ["CREATE OR REPLACE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ "
                   "LANGUAGE plpgsql",
                   "CREATE TRIGGER refuse BEFORE UPDATE ON sign_ins FOR EACH ROW EXECUTE FUNCTION refuse()"],
}  # fmt: skip


def test_a_failed_last_seen_write_does_not_fail_the_page(app: Flask, learner: FlaskClient,
                                                         caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    set_last_seen(app, "ada@example.com", timedelta(hours=1))
    before = sign_ins_of(app, "ada@example.com")[0].last_seen_at
    with app.app_context():
        for statement in REFUSE_UPDATES[db.engine.dialect.name]:
            db.session.execute(sa.text(statement))
        db.session.commit()
    response = learner.get("/profile")
    assert response.status_code == 200 and "Where you are signed in" in response.get_data(as_text=True)
    assert "sign-in last seen not recorded" in caplog.text
    assert sign_ins_of(app, "ada@example.com")[0].last_seen_at == before
    token = csrf_from(response.get_data(as_text=True))
    made = learner.post("/profile", data={"csrf_token": token, "name": "laptop"})
    assert made.status_code == 200 and "shown only once" in made.get_data(as_text=True)  # the view's work stands


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
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1", "Chrome on iOS"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
     "FxiOS/133.0 Mobile/15E148 Safari/605.1.15", "Firefox on iOS"),
    ("curl/8.5.0", "curl/8.5.0"),
    ("", "an unnamed browser"),
])  # fmt: skip
def test_browser_names(app: Flask, agent: str, name: str) -> None:
    with app.test_request_context():
        assert browser(agent) == name


@pytest.mark.parametrize("days", ["0", "-3", "3651", "99999999999", "two weeks"])
def test_an_idle_limit_that_would_break_sign_in_stops_the_app_at_start(tmp_path: Path, days: str) -> None:
    with pytest.raises(ValueError, match="GRADER_SIGN_IN_IDLE_DAYS must be a whole number from 1 to 3650"):
        settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, "GRADER_SIGN_IN_IDLE_DAYS": days})


def test_the_idle_limit_is_read_from_the_environment(tmp_path: Path) -> None:
    assert settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32})["SIGN_IN_IDLE_DAYS"] == 14
    assert settings(tmp_path, {"GRADER_SECRET_KEY": "k" * 32, "GRADER_SIGN_IN_IDLE_DAYS": "30"})["SIGN_IN_IDLE_DAYS"] == 30
