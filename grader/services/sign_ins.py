"""Sign-ins: browser sessions kept on the server, so that ending one makes its cookie worthless.

The session cookie holds a random secret; only its SHA-256 is stored, beside the owner, when the
sign-in began and when it was last seen. Signing out deletes the row, so a copy of the cookie taken
before is refused afterwards. A new password ends every other sign-in of its owner, and a sign-in
idle for longer than the configured days ends by itself.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa

from grader.extensions import db
from grader.models import SIGN_IN_KEY, SignIn, User, utcnow
from grader.services import last_seen

SECRET_PREFIX = "s1."
MAX_AGENT = 200
TOUCH_EVERY = timedelta(minutes=5)  # how stale "last seen" may get: not one write per page view

_CURRENT = (  # built once: every signed-in page view runs it
    sa.select(User, SignIn.last_seen_at).join(SignIn, SignIn.user_id == User.id)
    .where(SignIn.secret_hash == sa.bindparam("digest"))
)  # fmt: skip


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _idle_since(idle_days: int) -> datetime:
    """A sign-in last seen before this moment has expired."""
    return utcnow() - timedelta(days=idle_days)


def _printable(agent: str) -> str:
    # A User-Agent is the client's to write: control characters (a NUL, which PostgreSQL refuses) go.
    return "".join(c for c in agent if c.isprintable())


def start(user: User, agent: str, idle_days: int, replacing: str | None = None) -> None:
    """Begin a sign-in for the user and mark the object with it (Flask-Login stores it via get_id); commits.

    The sign-in with the secret `replacing` (the browser's previous one), and sign-ins idle for longer
    than `idle_days`, anyone's, end in the same transaction.
    """
    secret = SECRET_PREFIX + secrets.token_urlsafe(32)
    ended = SignIn.last_seen_at < _idle_since(idle_days)
    if replacing is not None:
        ended = ended | (SignIn.secret_hash == _digest(replacing))
    db.session.execute(sa.delete(SignIn).where(ended))
    db.session.add(SignIn(user_id=user.id, secret_hash=_digest(secret), agent=_printable(agent)[:MAX_AGENT]))
    db.session.commit()
    sa.inspect(user).info[SIGN_IN_KEY] = secret


def resume(secret: str, idle_days: int) -> tuple[User, bool] | None:
    """The user whose live sign-in has this secret, marked with it, and whether its "last seen" is older
    than TOUCH_EVERY (then call `touch` once the request's own work is done); None for an unknown or
    expired secret. Reads only: it may run in the middle of a request's transaction (the next `start`
    deletes expired sign-ins)."""
    if not secret.startswith(SECRET_PREFIX) or len(secret) > 100:
        return None
    row = db.session.execute(_CURRENT, {"digest": _digest(secret)}).first()
    if row is None:
        return None
    user, last_seen = row
    if last_seen < _idle_since(idle_days):
        return None
    sa.inspect(user).info[SIGN_IN_KEY] = secret
    return user, utcnow() - last_seen >= TOUCH_EVERY


def touch(secret: str) -> None:
    """Note that the sign-in with this secret was seen now, if it was not within TOUCH_EVERY; best effort."""
    now = utcnow()
    last_seen.record(sa.update(SignIn).where(SignIn.secret_hash == _digest(secret), SignIn.last_seen_at < now - TOUCH_EVERY)
                     .values(last_seen_at=now), "sign-in last seen")  # fmt: skip


def end(secret: str | None) -> None:
    """End the sign-in with this secret, if there is one (signing out); commits."""
    if secret is not None:
        _delete(SignIn.secret_hash == _digest(secret))


def end_all(user: User) -> None:
    """End every sign-in of the user (a new password); does not commit, so it goes with the change."""
    db.session.execute(sa.delete(SignIn).where(SignIn.user_id == user.id))


def end_others(user: User) -> int:
    """End every sign-in of the user but the one this object was loaded for; commits. Returns how many ended."""
    secret = user.sign_in_secret()
    others = SignIn.user_id == user.id
    return _delete(others if secret is None else others & (SignIn.secret_hash != _digest(secret)))


def end_one(user: User, sign_in_id: int) -> bool:
    """End one of the user's own sign-ins by id; False if it is not theirs (or is gone already)."""
    return _delete((SignIn.id == sign_in_id) & (SignIn.user_id == user.id)) > 0


def listing(user: User, idle_days: int) -> list[tuple[SignIn, bool]]:
    """The user's live sign-ins, most recently seen first, each with whether it is the one this object carries."""
    secret = user.sign_in_secret()
    mine = None if secret is None else _digest(secret)
    rows = db.session.scalars(
        sa.select(SignIn)
        .where(SignIn.user_id == user.id, SignIn.last_seen_at >= _idle_since(idle_days))
        .order_by(SignIn.last_seen_at.desc(), SignIn.id.desc())
    )  # fmt: skip
    return [(row, row.secret_hash == mine) for row in rows]


def _delete(condition: sa.ColumnElement[bool]) -> int:
    ended = cast(sa.CursorResult[Any], db.session.execute(sa.delete(SignIn).where(condition))).rowcount
    db.session.commit()
    return ended
