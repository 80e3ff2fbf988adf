"""Limits on failed logins: guessing a password stays slow, and nobody can lock another out for long.

Only failed logins count, and each limit is on one key:
- an address: 10 a minute, whatever the emails (one client's pace);
- an email from one address: 20 an hour, the strict one, which stops only that address for that account;
- an email from all addresses together: 100 in 15 minutes, a ceiling against guessing from many
  addresses at once. Whoever drives it pauses the account's logins for at most 15 minutes after they
  stop, and the account is told by mail (once a window).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from flask import current_app, render_template, request
from flask_babel import force_locale, gettext
from flask_limiter import RequestLimit
from flask_limiter.util import get_remote_address
from limits import parse
from werkzeug.wrappers import Response

from grader.extensions import limiter
from grader.models import utcnow
from grader.services import accounts, mail
from grader.web.i18n import supported

PER_ADDRESS = "10 per minute"
PER_EMAIL_AT_ADDRESS = "20 per hour"
PER_EMAIL = "100 per 15 minutes"
PAUSE = timedelta(minutes=15)  # PER_EMAIL's window: the longest a pause lasts once the failures stop
NOTICE = parse("1 per 15 minutes")  # one mail per window, however many logins it refuses
log = logging.getLogger(__name__)


def login_email() -> str:
    """The email a login or reset request names, read where its form reads it: Flask-WTF takes JSON bodies too."""
    sent: object = request.form.get("email", "")
    if request.is_json:
        body = request.get_json(silent=True)
        sent = body.get("email") if isinstance(body, dict) else ""
    return accounts.normalise_email(sent if isinstance(sent, str) else "")[:254] or "-"


def _email_at_address() -> str:
    return f"{login_email()} from {get_remote_address()}"


def failed(response: Response) -> bool:
    """Whether a login (or another limited form) failed: success redirects."""
    return response.status_code >= 400


def _tell_the_account(breached: RequestLimit) -> None:
    """Mail the account, once a window, that its logins are paused by failures from many addresses."""
    email = login_email()
    if not limiter.limiter.hit(NOTICE, "login-paused-notice", email):
        return  # told already in this window
    user = accounts.user_by_email(email)
    server: mail.SmtpServer | None = current_app.config.get("MAIL_SERVER")
    if user is None:
        return
    if server is None:  # no mail here: the operator's log is the only place to say it
        log.warning("logins to %s paused for up to %d minutes: too many failures", email, PAUSE.seconds // 60)
        return
    minutes = PAUSE.seconds // 60
    with force_locale(supported(user.locale) or "en"):
        body = render_template("auth/login_paused_mail.txt", email=user.email, minutes=minutes,
                               until=utcnow() + PAUSE)  # fmt: skip
        subject = gettext("Failed logins to your grader account")
    mail.send_later(server, mail.message(current_app.config["MAIL_FROM"], user.email, subject, body))


def login_limits(view: Callable[..., Any]) -> Callable[..., Any]:
    """The three limits on failed logins (module docstring), for the login view."""
    # In this order, and the first refusal ends the check: the account is told only when its own
    # ceiling refuses a login that the address's and the pair's limits let through.
    for limit in (
        limiter.limit(PER_ADDRESS, methods=["POST"], deduct_when=failed),
        limiter.limit(PER_EMAIL_AT_ADDRESS, methods=["POST"], key_func=_email_at_address, deduct_when=failed),
        limiter.limit(PER_EMAIL, methods=["POST"], key_func=login_email, deduct_when=failed, on_breach=_tell_the_account),
    ):  # fmt: skip
        view = limit(view)
    return view
