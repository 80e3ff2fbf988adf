"""Password reset by mail, through a real SMTP server on loopback (aiosmtpd)."""

from __future__ import annotations

import email
import email.policy
import logging
import re
import socket
import threading
import time
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Iterator

import pytest
from aiosmtpd.controller import Controller
from flask import Flask
from flask.testing import FlaskClient

from grader.config import settings
from grader.extensions import db
from grader.models import User
from grader.services import accounts
from grader.services.mail import SmtpServer
from tests.web.conftest import build_app, csrf_from, make_user
from tests.web.test_password_reset import NEW, can_log_in, choose

SITE = "https://grader.example.org"
SUBJECT = "Choose a new password for grader"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Inbox:
    """What the SMTP server received, with a way to wait for it."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self._arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 - aiosmtpd's name
        received = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._arrived:
            self.messages.append(received)  # type: ignore[arg-type]
            self._arrived.notify_all()
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 10.0) -> list[EmailMessage]:
        with self._arrived:
            self._arrived.wait_for(lambda: len(self.messages) >= count, timeout)
            return list(self.messages)


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    port, box = free_port(), Inbox()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


def mail_app(tmp_path: Path, port: int, **overrides: object) -> Flask:
    return build_app(tmp_path, MAIL_SERVER=SmtpServer("127.0.0.1", port), BASE_URL=SITE,
                     MAIL_FROM="grader@example.org", **overrides)  # fmt: skip


def ask(client: FlaskClient, address: str, **headers: str):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/forgot", headers=headers).get_data(as_text=True))
    return client.post("/forgot", data={"csrf_token": token, "email": address}, headers=headers)


def link_in(message: EmailMessage) -> str:
    body = message.get_content()
    found = re.search(r"https://grader\.example\.org(/reset/\S+)", body)
    assert found, body
    return found.group(1)


def test_without_a_mail_server_the_page_says_whom_to_ask(client: FlaskClient) -> None:
    assert 'href="/forgot"' in client.get("/login").get_data(as_text=True)
    page = client.get("/forgot")
    assert page.status_code == 200 and "Ask your instructor for a link" in page.get_data(as_text=True)
    assert 'name="email"' not in page.get_data(as_text=True)
    token = csrf_from(client.get("/login").get_data(as_text=True))
    assert client.post("/forgot", data={"email": "ada@example.com", "csrf_token": token}).status_code == 404


def test_a_learner_gets_a_link_by_mail_and_chooses_a_new_password(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port)
    make_user(app, "ada@example.com")
    client = app.test_client()
    answer = ask(client, "  ADA@example.com ")
    assert answer.status_code == 302 and answer.headers["Location"] == "/login"
    assert "If an account uses ada@example.com, a link" in client.get("/login").get_data(as_text=True)
    [sent] = box.wait_for(1)
    assert (sent["To"], sent["From"], sent["Subject"]) == ("ada@example.com", "grader@example.org", SUBJECT)
    assert "within 24 hours" in sent.get_content()
    path = link_in(sent)
    assert choose(app.test_client(), path, NEW).status_code == 302
    assert can_log_in(app, "ada@example.com", NEW)
    used = app.test_client().get(path)
    assert used.status_code == 400  # used once, then dead; with mail, the page offers a new link
    assert 'href="/forgot">Ask for a new link by mail</a>' in used.get_data(as_text=True)


def test_an_unknown_address_gets_the_same_answer_and_no_mail(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port)
    make_user(app, "ada@example.com")
    client = app.test_client()
    unknown, known = ask(client, "nobody@example.com"), ask(client, "ada@example.com")
    assert (unknown.status_code, unknown.headers["Location"]) == (known.status_code, known.headers["Location"])
    # One mail thread sends in order, so a mail for nobody would have arrived before ada's.
    assert [m["To"] for m in box.wait_for(1)] == ["ada@example.com"]


def test_an_address_with_a_line_break_is_refused_next_to_its_field(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port)
    make_user(app, "ada@example.com")
    for address in ("ada@example.com\r\nBcc: eve@example.org", "ada@example.com\nX: y", "ada@exa mple.com"):
        answer = ask(app.test_client(), address)
        assert answer.status_code == 422, address
        assert "Enter a valid email address." in answer.get_data(as_text=True)
    assert ask(app.test_client(), "ada@example.com").status_code == 302
    assert [m["To"] for m in box.wait_for(1)] == ["ada@example.com"]


def test_the_link_uses_the_configured_address_never_the_requests_host(tmp_path: Path,
                                                                      inbox: tuple[Inbox, int]) -> None:  # fmt: skip
    box, port = inbox
    app = mail_app(tmp_path, port)
    make_user(app, "ada@example.com")
    assert ask(app.test_client(), "ada@example.com", Host="evil.example").status_code == 302
    [sent] = box.wait_for(1)
    assert "evil.example" not in sent.get_content() and link_in(sent).startswith("/reset/")


def test_the_mail_is_in_the_accounts_language(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port)
    make_user(app, "ada@example.com")
    with app.app_context():
        user = db.session.query(User).filter_by(email="ada@example.com").one()
        accounts.set_locale(user, "ru")
    ask(app.test_client(), "ada@example.com")  # asked from an English page
    [sent] = box.wait_for(1)
    assert sent["Subject"] == "Новый пароль для grader"
    assert "Кто-то запросил сброс пароля учётной записи ada@example.com" in sent.get_content()


def test_asking_is_rate_limited_per_address(tmp_path: Path, inbox: tuple[Inbox, int]) -> None:
    box, port = inbox
    app = mail_app(tmp_path, port, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")
    client = app.test_client()
    assert [ask(client, "ada@example.com").status_code for _ in range(5)] == [302] * 5
    assert ask(client, "ada@example.com").status_code == 429
    assert len(box.wait_for(5)) == 5


def test_a_mail_server_that_is_down_is_logged_and_the_page_says_the_same(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    app = mail_app(tmp_path, free_port())  # nothing listens there
    make_user(app, "ada@example.com")
    with caplog.at_level(logging.ERROR, logger="grader.services.mail"):
        answer = ask(app.test_client(), "ada@example.com")
        deadline = time.monotonic() + 10
        while not caplog.records and time.monotonic() < deadline:
            time.sleep(0.05)
    assert answer.status_code == 302
    assert "could not send mail" in caplog.text and "ada@example.com" in caplog.text


@pytest.mark.parametrize(("url", "expected"), [
    ("smtp://mail.internal", SmtpServer("mail.internal", 25)),
    ("smtp://relay:2525", SmtpServer("relay", 2525)),
    ("smtp://me%40x.org:p%40ss@relay?starttls=true", SmtpServer("relay", 587, "starttls", "me@x.org", "p@ss")),
    ("smtps://me:secret@relay", SmtpServer("relay", 465, "tls", "me", "secret")),
])  # fmt: skip
def test_the_smtp_url_is_read_like_a_url(url: str, expected: SmtpServer) -> None:
    assert SmtpServer.from_url(url) == expected


def test_a_broken_mail_setting_stops_the_app_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="GRADER_BASE_URL"):
        settings(tmp_path, {"GRADER_SMTP_URL": "smtp://relay", "GRADER_SECRET_KEY": "k"})
    with pytest.raises(ValueError, match="smtp://host"):
        settings(tmp_path, {"GRADER_SMTP_URL": "http://relay", "GRADER_BASE_URL": SITE, "GRADER_SECRET_KEY": "k"})
    configured = settings(tmp_path, {"GRADER_SMTP_URL": "smtp://relay", "GRADER_BASE_URL": SITE + "/",
                                     "GRADER_SECRET_KEY": "k"})  # fmt: skip
    assert configured["MAIL_SERVER"] == SmtpServer("relay", 25) and configured["BASE_URL"] == SITE
