"""Invitations: an import's new accounts are mailed a link to choose their password, naming the course."""

from __future__ import annotations

from collections.abc import Iterable
from email.message import EmailMessage

from flask import current_app, render_template
from flask_babel import force_locale, gettext

from grader.course_models import Course
from grader.extensions import db
from grader.models import User
from grader.services import mail, password_reset
from grader.services.enrolment import Report
from grader.web.auth import reset_url
from grader.web.i18n import supported


def mail_server() -> mail.SmtpServer | None:
    """The site's mail server, when it sends mail (an invitation can be offered only then)."""
    server: mail.SmtpServer | None = current_app.config.get("MAIL_SERVER")
    return server


def invitation(user: User, course: Course, by: str) -> EmailMessage:
    """The invitation to `course`, in the account's language, with a link that lasts INVITATION_SECONDS."""
    days = password_reset.INVITATION_SECONDS // 86400
    link = reset_url(user, password_reset.INVITATION_SECONDS)
    with force_locale(supported(user.locale) or "en"):
        body = render_template("auth/invitation_mail.txt", email=user.email, course=course.title, by=by,
                               link=link, days=days)  # fmt: skip
        subject = gettext("You are invited to %(course)s on grader", course=course.title)
    return mail.message(current_app.config["MAIL_FROM"], user.email, subject, body)


def new_accounts(report: Report) -> list[int]:
    """The ids of the accounts an import made."""
    return [entry["user_id"] for entry in report.added if entry.get("new_account")]


def invite(course: Course, user_ids: Iterable[int], by: str) -> int:
    """Mail each of these accounts its invitation, on other threads; how many were sent off."""
    server = mail_server()
    if server is None:
        return 0
    sent = 0
    for user_id in user_ids:
        user = db.session.get(User, user_id)
        if user is not None and password_reset.resettable(user):
            mail.send_later(server, invitation(user, course, by))
            sent += 1
    return sent
