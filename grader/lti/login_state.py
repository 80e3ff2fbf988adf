"""The OIDC login's state, in cookies of its own: never in the session of whoever is signed in.

pylti1p3 keeps the login's nonce in the session and its state in a cookie. Kept in the session,
one link to /lti/login would change a signed-in session (and the cookie's SameSite with it). Here
the nonces of the logins begun in this browser go in a signed cookie of their own, sent to /lti/
only, with the same attributes as pylti1p3's state cookie (SameSite=None over https, so a launch in
a frame brings it back); both are removed once the launch is checked.
"""

from __future__ import annotations

import time
from typing import Any

from flask import Request, current_app, request
from itsdangerous import BadSignature, URLSafeTimedSerializer
from pylti1p3.launch_data_storage.base import LaunchDataStorage
from werkzeug.wrappers import Response

COOKIE = "lti1p3-login"
STATE_PREFIX = "lti1p3-"  # pylti1p3 names its state cookie "lti1p3-" + the state
NONCE_KEY = "lti1p3-nonce-"
LIFETIME = 600  # seconds: a login is finished within a minute; the platform's token lives for minutes
MAX_NONCES = 8  # logins under way in one browser at once (a course page may frame several activities)
_SALT = "grader-lti-login"


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=_SALT)


class LoginState(LaunchDataStorage[Any]):
    """pylti1p3's launch data storage, holding only the nonces of this browser's logins (nonce: expiry)."""

    def __init__(self, nonces: dict[str, float]) -> None:
        super().__init__()
        self.nonces = nonces
        self.changed = False

    def get_session_cookie_name(self) -> None:  # type: ignore[override]
        """None: no session id cookie, the values are the cookie."""
        return None

    def can_set_keys_expiration(self) -> bool:
        """No: every nonce lives LIFETIME."""
        return False

    def set_value(self, key: str, value: Any, exp: int | None = None) -> None:
        """Keep a nonce; the launch's claims and state hashes are not kept (the launch is checked once)."""
        if key.startswith(NONCE_KEY):
            self.nonces[key.removeprefix(NONCE_KEY)] = time.time() + LIFETIME
            self.changed = True

    def get_value(self, key: str) -> Any:
        """True for a nonce issued here and not expired, else None."""
        return True if self.check_value(key) else None

    def check_value(self, key: str) -> bool:
        """Whether a nonce was issued here and is not expired."""
        return key.startswith(NONCE_KEY) and self.has(key.removeprefix(NONCE_KEY))

    def has(self, nonce: str) -> bool:
        """Whether this browser began the login that got this nonce (and not too long ago)."""
        return self.nonces.get(nonce, 0.0) > time.time()


def load(incoming: Request | None = None) -> LoginState:
    """The login state this browser sent back (empty when none, or forged, or expired)."""
    raw = (incoming or request).cookies.get(COOKIE, "")
    try:
        kept = _serializer().loads(raw, max_age=LIFETIME) if raw else {}
    except BadSignature:
        kept = {}
    now = time.time()
    nonces = kept.get("nonces") if isinstance(kept, dict) else None
    return LoginState({str(k): float(v) for k, v in (nonces or {}).items()
                       if isinstance(v, (int, float)) and v > now})  # fmt: skip


def state_came_back(state: str) -> bool:
    """Whether the browser sent back the state cookie its login set (a frame whose cookies are blocked does not)."""
    return bool(state) and request.cookies.get(STATE_PREFIX + state) == state


def save(response: Response, kept: LoginState) -> None:
    """Write the login cookie when it changed (the newest MAX_NONCES nonces), or remove it once empty."""
    if not kept.changed:
        return
    secure = request.is_secure
    if not kept.nonces:
        response.delete_cookie(COOKIE, path="/lti/", secure=secure, httponly=True,
                               samesite="None" if secure else None)  # fmt: skip
        return
    newest = dict(sorted(kept.nonces.items(), key=lambda item: item[1])[-MAX_NONCES:])
    response.set_cookie(COOKIE, _serializer().dumps({"nonces": newest}), max_age=LIFETIME, path="/lti/",
                        secure=secure, httponly=True, samesite="None" if secure else None)  # fmt: skip


def spend(response: Response, kept: LoginState, nonce: str, state: str) -> None:
    """After a checked launch: forget its nonce and remove its state cookie."""
    kept.nonces.pop(nonce, None)
    kept.changed = True
    save(response, kept)
    secure = request.is_secure
    response.delete_cookie(STATE_PREFIX + state, path="/", secure=secure, httponly=True,
                           samesite="None" if secure else None)  # fmt: skip
