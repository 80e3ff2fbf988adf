"""Login and registration fail closed when this host's rate-limit file cannot count.

Flask-Limiter falls back to each process's memory when its store fails, so with five workers a
password guesser would get five times the failures, and nothing would record them for later.
Signing in and creating accounts are what the limits protect: while the file is unusable (locked,
corrupted, unreadable) they answer a clear 503 page instead. Everything else goes on, counted in
memory meanwhile. Only the SQLite file is checked: it is this host's alone. A shared Redis store
keeps its documented behaviour (limits in memory while Redis is down, logins go on), since refusing
then would stop every host's logins at once; and probing it on every login would put a network
round trip, with no bound on a dropped connection, in front of each one.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, Callable

from flask import request
from flask_babel import lazy_gettext as _l

from grader.extensions import limiter
from grader.rate_limit_store import SqliteStorage
from grader.web.errors import error_response

STORE_DOWN = _l("Signing in and creating accounts are paused for a moment: the service cannot count failed "
                "attempts right now. Try again in a few minutes.")  # fmt: skip
log = logging.getLogger(__name__)


def store_state() -> str:
    """"ok" or "unusable" for this host's SQLite file, "off" with limits switched off, "not checked" for
    another store (Redis, memory)."""
    if not limiter.enabled:
        return "off"
    if not isinstance(limiter.storage, SqliteStorage):
        return "not checked"
    return "ok" if limiter.storage.check() else "unusable"


def fail_closed(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse a form's POST with a 503 page while this host's rate-limit file cannot count it."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if request.method == "POST" and store_state() == "unusable":
            log.error("refused %s %s: the rate-limit store is unusable", request.method, request.path)
            return error_response(503, STORE_DOWN)
        return view(*args, **kwargs)

    return guarded
