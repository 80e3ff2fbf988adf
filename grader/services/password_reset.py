"""Password reset links: mailed to the account, or handed over by an instructor or an operator.

The link carries the user's id, a fingerprint of their current password hash and how long it lasts,
signed with the app's secret key and dated. Nothing is stored: it stops working after its time
(RESET_SECONDS; an invitation to a course, INVITATION_SECONDS) and as soon as the password changes
(the fingerprint no longer matches), so it works once.
"""

from __future__ import annotations


from datetime import datetime, timedelta, timezone

from itsdangerous import BadSignature, URLSafeTimedSerializer

from grader.extensions import db
from grader.models import User

RESET_SECONDS = 24 * 3600
INVITATION_SECONDS = 7 * 24 * 3600  # the longest any link lasts: an import's invitation, read when it comes
_SALT = "grader-password-reset"
NO_PASSWORD = "!"  # a password hash starting so matches no password: the account signs in elsewhere (its LMS)


def resettable(user: User) -> bool:
    """Whether the account signs in with a password here, so a reset link may give it one: an account made by
    an LMS launch never does (its email is the LMS's word, and a password would be a way in beside the LMS)."""
    return not user.password_hash.startswith(NO_PASSWORD)


def reset_token(user: User, secret: str, lasts: int = RESET_SECONDS) -> str:
    """A token for the reset link of this user, valid until used or `lasts` seconds have passed."""
    lasts = min(lasts, INVITATION_SECONDS)
    return URLSafeTimedSerializer(secret, salt=_SALT).dumps(
        {"user": user.id, "hash": user.password_fingerprint(), "lasts": lasts})  # fmt: skip


def user_for_reset(token: str, secret: str, max_age: int = INVITATION_SECONDS) -> User | None:
    """The user a valid, unused, unexpired token belongs to (expired: older than its own time, or than
    `max_age`)."""
    try:
        data, made = URLSafeTimedSerializer(secret, salt=_SALT).loads(token[:400], max_age=max_age,
                                                                      return_timestamp=True)  # fmt: skip
    except BadSignature:  # also expired tokens (SignatureExpired is a BadSignature)
        return None
    if not isinstance(data, dict):
        return None
    lasts = data.get("lasts", RESET_SECONDS)  # a link made before links said how long they last: a day
    if not isinstance(lasts, int) or datetime.now(timezone.utc) - made > timedelta(seconds=lasts):
        return None
    user = db.session.get(User, data.get("user"))
    valid = user is not None and data.get("hash") == user.password_fingerprint() and resettable(user)
    return user if valid else None

