"""Invitations: an import's or an added person's new account is mailed a link to choose its password, which
lasts a week, through a real SMTP server on loopback (aiosmtpd)."""

from __future__ import annotations

import time
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from grader.extensions import db
from grader.models import User
from grader.services import accounts, password_reset
from tests.web.conftest import build_app, csrf_from, login, make_user
from tests.web.test_password_mail import Inbox, inbox, link_in, mail_app  # noqa: F401 - the inbox fixture
from tests.web.test_password_reset import NEW, can_log_in, choose

DAY = 86400


def instructor_of(app: Flask) -> FlaskClient:
    make_user(app, "teacher@example.com", "instructor")
    client = app.test_client()
    login(client, "teacher@example.com")
    return client


def import_list(client: FlaskClient, emails: str, invite: bool = True):  # type: ignore[no-untyped-def]
    page = client.get("/teach/people").get_data(as_text=True)
    data = {"csrf_token": csrf_from(page), "emails": emails, **({"invite": "y"} if invite else {})}
    return client.post("/teach/people/import", data=data)


def test_an_imports_new_accounts_are_invited_and_choose_a_password(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port)
    make_user(app, "ada@example.com")  # has an account: added, not invited
    teacher = instructor_of(app)
    assert '<input checked id="import-invite" name="invite"' in teacher.get("/teach/people").get_data(as_text=True)
    page = import_list(teacher, "ada@example.com\nbea@example.com\ncid@example.com").get_data(as_text=True)
    assert "2 invitations are on their way: their links to choose a password work for 7 days." in page
    sent = sorted(box.wait_for(2), key=lambda m: str(m["To"]))
    assert [m["To"] for m in sent] == ["bea@example.com", "cid@example.com"]
    assert sent[0]["Subject"] == "You are invited to Course on grader"
    body = sent[0].get_content()
    assert "teacher@example.com added you to the course Course" in body and "within 7 days" in body
    assert choose(app.test_client(), link_in(sent[0]), NEW).status_code == 302
    assert can_log_in(app, "bea@example.com", NEW)
    assert app.test_client().get(link_in(sent[0])).status_code == 400  # once


def test_no_invitation_unless_asked_and_none_without_mail(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port)
    teacher = instructor_of(app)
    page = import_list(teacher, "bea@example.com", invite=False).get_data(as_text=True)
    assert "on its way" not in page and "on their way" not in page and "1 new account" in page
    added = teacher.post("/teach/people/add", data={"csrf_token": csrf_from(page), "email": "cid@example.com",
                                                     "role": "ta", "invite": "y"})  # fmt: skip
    assert added.status_code == 303
    assert "An invitation is on its way to cid@example.com." in teacher.get("/teach/people").get_data(as_text=True)
    assert [m["To"] for m in box.wait_for(1)] == ["cid@example.com"]
    quiet = build_app(tmp_path / "no-mail")  # a site that sends no mail offers no invitation
    assert 'name="invite"' not in instructor_of(quiet).get("/teach/people").get_data(as_text=True)


def made_ago(user: User, secret: str, seconds: int, **payload: object) -> str:
    """A reset token as it would have been made `seconds` ago."""

    class Earlier(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - seconds

    serializer = URLSafeTimedSerializer(secret, salt=password_reset._SALT, signer=Earlier)
    return serializer.dumps({"user": user.id, "hash": user.password_fingerprint(), **payload})


def test_an_invitation_lasts_a_week_and_a_reset_link_a_day(app: Flask) -> None:
    with app.app_context():
        user = accounts.add_unset_accounts(["bea@example.com"], [])["bea@example.com"]
        db.session.commit()
        week, secret = password_reset.INVITATION_SECONDS, "s"
        assert password_reset.user_for_reset(made_ago(user, secret, 2 * DAY, lasts=week), secret) == user
        assert password_reset.user_for_reset(made_ago(user, secret, 8 * DAY, lasts=week), secret) is None
        assert password_reset.user_for_reset(made_ago(user, secret, 2 * DAY, lasts=DAY), secret) is None
        assert password_reset.user_for_reset(made_ago(user, secret, 2 * DAY), secret) is None  # made before "lasts"
        assert password_reset.user_for_reset(made_ago(user, secret, 3600), secret) == user
        assert password_reset.user_for_reset(made_ago(user, secret, 8 * DAY, lasts=30 * DAY), secret) is None
