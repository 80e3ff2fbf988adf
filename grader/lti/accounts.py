"""Accounts made by launches: one per platform user (issuer, sub), never merged with another by email."""

from __future__ import annotations

import hashlib
import unicodedata

import sqlalchemy as sa

from grader.course_models import INSTRUCTOR, LEARNER, TA, Course, CourseMember
from grader.extensions import db
from grader.lti.models import GradeLink, LtiAccount
from grader.models import User
from grader.services import courses
from grader.services.accounts import AccountError, new_email
from grader.services.password_reset import NO_PASSWORD

UNUSABLE_PASSWORD = NO_PASSWORD + "lti"  # no password matches it, and none is reset: they sign in through their LMS
MAX_EMAIL = 254


def _checked(email: str) -> str:
    """The email as registration would take it, or "" for one it refuses (look-alike letters, invisible
    characters) or one written in compatibility forms (fullwidth ｌｅａｒｎｅｒ@ passes for learner@)."""
    if unicodedata.normalize("NFKC", email) != email:
        return ""
    try:
        return new_email(email)
    except AccountError:
        return ""


def _email_for(issuer: str, subject: str, email: str | None) -> str:
    """The platform's email when registration would take it and no account of ours has it, else one made up
    from (issuer, sub): an account with that email may belong to someone else, so the two are never joined."""
    if isinstance(email, str) and email:
        wanted = _checked(email)
        taken = db.session.scalar(sa.select(User.id).where(User.email == wanted)) is not None
        if wanted and len(wanted) <= MAX_EMAIL and not taken:
            return wanted
    digest = hashlib.sha256(f"{issuer}\n{subject}".encode()).hexdigest()[:20]
    return f"lti-{digest}@lti.invalid"


def link(issuer: str, subject: str, name: str, email: str | None, locale: str | None) -> LtiAccount:
    """The account linked to (issuer, sub), made on its first launch (or roster pull); a launch's locale becomes
    the account's (a roster pull has none). An LMS account never gets a site role. Commits."""
    account = db.session.scalar(sa.select(LtiAccount).where(LtiAccount.issuer == issuer,
                                                            LtiAccount.subject == subject))  # fmt: skip
    if account is None:
        user = User(email=_email_for(issuer, subject, email), password_hash=UNUSABLE_PASSWORD,
                    role="learner", locale=locale or "en")  # fmt: skip
        db.session.add(user)
        db.session.flush()
        account = LtiAccount(issuer=issuer, subject=subject, user_id=user.id, name=name[:200])
        db.session.add(account)
    else:
        found = db.session.get(User, account.user_id)
        assert found is not None  # the link goes with its account (ON DELETE CASCADE)
        user = found
        account.name = name[:200] or account.name
    if locale is not None:
        user.locale = locale
    db.session.commit()
    return account


def enrol(course: Course, user_id: int, role: str) -> bool:
    """Put the person in the course with `role` (instructor, ta or learner), or raise their role there: a launch
    never lowers one (a roster pull of learners does not demote a teacher). Commits; True when they were new."""
    member = db.session.get(CourseMember, (course.id, user_id))
    if member is None or _RANK[role] > _RANK[member.role]:
        user = db.session.get(User, user_id)
        assert user is not None
        courses.add_member(course, user, role, added_by="lti")
    return member is None


_RANK = {LEARNER: 0, TA: 1, INSTRUCTOR: 2}  # a launch raises one's role in the course, never lowers it


def remember_line_item(account: LtiAccount, platform_id: int, course_id: int, target: str, lineitem: str) -> None:
    """Keep where this learner's score on `target` in the course goes (one link per line item); commits."""
    exists = db.session.scalar(sa.select(GradeLink.id).where(GradeLink.account_id == account.id,
                                                              GradeLink.lineitem == lineitem))  # fmt: skip
    if exists is None:
        db.session.add(GradeLink(account_id=account.id, user_id=account.user_id, platform_id=platform_id,
                                 course_id=course_id, target=target, lineitem=lineitem))  # fmt: skip
        try:
            db.session.commit()
        except sa.exc.IntegrityError:  # the same launch twice at once: the other one stored it
            db.session.rollback()
