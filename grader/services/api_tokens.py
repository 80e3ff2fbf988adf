"""API tokens: made on the profile page (with an expiry, maybe bound to one course) or by an operator, shown once,
stored as their SHA-256; who a token belongs to, and why one is refused.

A token made before tokens had an expiry, or by `flask users token`, has none (expires_at NULL) and acts in
any of its owner's courses (course_id NULL), as it always did.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa

from grader.course_models import Course
from grader.extensions import db
from grader.models import ApiToken, User, utc_text, utcnow
from grader.services import courses, last_seen
from grader.texts import Refusal

TOKEN_PREFIX = "gr_"
EXPIRY_DAYS = (7, 30, 90)  # what the profile page offers; the longest is the most a learner's token lives
DEFAULT_DAYS = 30
TOKEN_TOUCH_EVERY = timedelta(minutes=1)


class TokenRefused(Refusal):
    """A token that authenticates nobody now: unknown, revoked or expired; the message says which."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_token(user: User, name: str = "api", days: int | None = None, course_id: int | None = None) -> str:
    """Make a new API token for the user, expiring after `days` (None: never), acting only in `course_id` when
    given (one of the user's courses); returns the token, which is shown once and stored hashed."""
    if days is not None and not 0 < days <= max(EXPIRY_DAYS):
        raise ValueError(f"a token lives 1 to {max(EXPIRY_DAYS)} days")
    if course_id is not None and course_id not in {m.course_id for m in courses.memberships(user.id)}:
        raise ValueError("a token can only be bound to one of its owner's courses")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    db.session.add(ApiToken(user_id=user.id, name=name.strip()[:80] or "api", token_hash=_digest(token),
                            prefix=token[:10], created_at=now, course_id=course_id,
                            expires_at=None if days is None else now + timedelta(days=days)))  # fmt: skip
    db.session.commit()
    return token


def revoke_token(user: User, token_id: int) -> bool:
    """Revoke one of the user's own tokens; False if it is not theirs."""
    token = db.session.get(ApiToken, token_id)
    if token is None or token.user_id != user.id or token.revoked_at is not None:
        return False
    token.revoked_at = utcnow()
    db.session.commit()
    return True


@dataclass(frozen=True)
class Listed:
    """One of a user's tokens as the profile page lists it."""

    id: int
    name: str
    prefix: str
    course: str | None  # the code of the course it is bound to
    created_at: datetime
    expires_at: datetime | None
    last_used_at: datetime | None
    expired: bool


def active_tokens(user: User) -> list[Listed]:
    """The user's tokens that are not revoked (expired ones included, marked), newest first."""
    rows = db.session.execute(
        sa.select(ApiToken.id, ApiToken.name, ApiToken.prefix, Course.code, ApiToken.created_at, ApiToken.expires_at,
                  ApiToken.last_used_at)
        .outerjoin(Course, Course.id == ApiToken.course_id)
        .where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None)).order_by(ApiToken.created_at.desc())
    ).all()  # fmt: skip
    now = utcnow()
    return [Listed(*row, expired=row.expires_at is not None and row.expires_at <= now) for row in rows]


@dataclass(frozen=True)
class TokenOwner:
    """The user behind a valid API token, as the API needs them, and what the token allows."""

    token_id: int
    user_id: int
    role: str
    last_used_at: datetime | None
    locale: str
    course_id: int | None  # the one course the token acts in, if it is bound to one
    course_code: str | None
    expires_at: datetime | None

    @property
    def is_admin(self) -> bool:
        """True for the site's admins."""
        return self.role == "admin"


_TOKENS, _USERS, _COURSES = ApiToken.__table__, User.__table__, Course.__table__
_OWNER = (  # built once: every API request runs it
    sa.select(_TOKENS.c.id, _USERS.c.id, _USERS.c.role, _TOKENS.c.last_used_at, _USERS.c.locale, _TOKENS.c.course_id,
              _COURSES.c.code, _TOKENS.c.expires_at, _TOKENS.c.revoked_at)
    .join_from(_TOKENS, _USERS, _USERS.c.id == _TOKENS.c.user_id)
    .outerjoin(_COURSES, _COURSES.c.id == _TOKENS.c.course_id)
    .where(_TOKENS.c.token_hash == sa.bindparam("digest"))
)  # fmt: skip
UNKNOWN = "This API token is not valid. Check that it was copied whole, or make a new one on your profile page."


def token_owner(token: str) -> TokenOwner:
    """Who a valid token belongs to; raises TokenRefused saying why a token is not (unknown, revoked, expired)."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
        raise TokenRefused(UNKNOWN)
    row = db.session.connection().execute(_OWNER, {"digest": _digest(token)}).first()
    if row is None:
        raise TokenRefused(UNKNOWN)
    *owner, revoked_at = row
    if revoked_at is not None:
        raise TokenRefused("This API token was revoked on %(when)s. Make a new one on your profile page.",
                           when=utc_text(revoked_at))  # fmt: skip
    found = TokenOwner(*owner)
    if found.expires_at is not None and found.expires_at <= utcnow():
        raise TokenRefused("This API token expired on %(when)s. Make a new one on your profile page.",
                           when=utc_text(found.expires_at))  # fmt: skip
    return found


def touch_token(owner: TokenOwner) -> None:
    """Note that the token was used now, at most once a TOKEN_TOUCH_EVERY; best effort."""
    now = utcnow()
    if owner.last_used_at is not None and now - owner.last_used_at < TOKEN_TOUCH_EVERY:
        return
    # The WHERE keeps concurrent requests with one token from writing twice.
    stale = ApiToken.last_used_at.is_(None) | (ApiToken.last_used_at <= now - TOKEN_TOUCH_EVERY)
    last_seen.record(sa.update(ApiToken).where(ApiToken.id == owner.token_id, stale).values(last_used_at=now),
                     "API token last used")  # fmt: skip
