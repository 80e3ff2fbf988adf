"""Password reset links: mailed to the account, or handed over by an instructor or an operator.

The link carries the user's id and a fingerprint of their current password hash, signed with the
app's secret key and dated. Nothing is stored: it stops working after RESET_SECONDS, and as soon
as the password changes (the fingerprint no longer matches), so it works once.
"""

from __future__ import annotations


from itsdangerous import BadSignature, URLSafeTimedSerializer

from grader.extensions import db
from grader.models import User

RESET_SECONDS = 24 * 3600
_SALT = "grader-password-reset"
NO_PASSWORD = "!"  # a password hash starting so matches no password: the account signs in elsewhere (its LMS)


def resettable(user: User) -> bool:
    """Whether the account signs in with a password here, so a reset link may give it one: an account made by
    an LMS launch never does (its email is the LMS's word, and a password would be a way in beside the LMS)."""
    return not user.password_hash.startswith(NO_PASSWORD)


def reset_token(user: User, secret: str) -> str:
    """A token for the reset link of this user, valid until used or RESET_SECONDS have passed."""
    return URLSafeTimedSerializer(secret, salt=_SALT).dumps({"user": user.id, "hash": user.password_fingerprint()})


def user_for_reset(token: str, secret: str, max_age: int = RESET_SECONDS) -> User | None:
    """The user a valid, unused, unexpired token belongs to."""
    try:
        data = URLSafeTimedSerializer(secret, salt=_SALT).loads(token[:400], max_age=max_age)
    except BadSignature:  # also expired tokens (SignatureExpired is a BadSignature)
        return None
    user = db.session.get(User, data.get("user")) if isinstance(data, dict) else None
    valid = user is not None and data.get("hash") == user.password_fingerprint() and resettable(user)
    return user if valid else None

