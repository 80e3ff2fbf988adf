"""Mail over SMTP (the standard library's smtplib), sent off the request.

A request that asks for mail returns before the mail is sent, and at the same speed whether or
not anything is sent, so response times say nothing about which addresses have accounts. A
failed send is logged for the operator; the person who asked is told the same thing either way.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

Security = Literal["none", "starttls", "tls"]
SEND_TIMEOUT_SECONDS = 10
SMTP_URL_SHAPE = "GRADER_SMTP_URL must look like smtp://host:25, smtp://host:587?starttls=true or smtps://user:password@host:465"
STARTTLS_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
log = logging.getLogger(__name__)
_executor: ThreadPoolExecutor | None = None


@dataclass(frozen=True)
class SmtpServer:
    """Where and how to hand mail over."""

    host: str
    port: int
    security: Security = "none"
    username: str | None = None
    password: str | None = None

    @classmethod
    def from_url(cls, url: str) -> SmtpServer:
        """smtp://[user:password@]host[:port][?starttls=true] or smtps://…; raises ValueError when malformed.

        The messages never quote the URL: it can hold a password.
        """
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        starttls = query.pop("starttls", ["false"])[-1].lower()
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"{SMTP_URL_SHAPE}; its port is not a number") from None
        if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
            raise ValueError(SMTP_URL_SHAPE)
        if starttls not in STARTTLS_WORDS or query:
            raise ValueError(f"{SMTP_URL_SHAPE}; the only option after '?' is starttls=true or starttls=false")
        security: Security = "tls" if parts.scheme == "smtps" else "starttls" if STARTTLS_WORDS[starttls] else "none"
        port = port or (465 if security == "tls" else 587 if security == "starttls" else 25)
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port, security, user, password)


def message(sender: str, to: str, subject: str, body: str) -> EmailMessage:
    """A plain-text message."""
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = sender, to, subject
    mail.set_content(body)
    return mail


def send(server: SmtpServer, mail: EmailMessage) -> None:
    """Hand one message to the server now (raises on failure)."""
    context = ssl.create_default_context()
    if server.security == "tls":
        client: smtplib.SMTP = smtplib.SMTP_SSL(server.host, server.port, timeout=SEND_TIMEOUT_SECONDS,
                                                context=context)  # fmt: skip
    else:
        client = smtplib.SMTP(server.host, server.port, timeout=SEND_TIMEOUT_SECONDS)
    with client:
        if server.security == "starttls":
            client.starttls(context=context)
        if server.username:
            client.login(server.username, server.password or "")
        client.send_message(mail)


def _send_logged(server: SmtpServer, mail: EmailMessage) -> None:
    try:
        send(server, mail)
    except (OSError, smtplib.SMTPException):
        log.exception("could not send mail %r to %s via %s:%d", mail["Subject"], mail["To"], server.host, server.port)


def send_later(server: SmtpServer, mail: EmailMessage) -> Future[None]:
    """Send on this process's mail thread (one at a time, in order); failures are logged, not raised."""
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mail")
    return _executor.submit(_send_logged, server, mail)
