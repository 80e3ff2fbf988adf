"""Login and registration fail closed when the rate-limit store cannot count.

Flask-Limiter falls back to each process's memory when its store fails, so with five workers a
password guesser would get five times the failures, and nothing would record them for later.
Signing in and creating accounts are what the limits protect: while the store is unusable they
answer a clear 503 page instead. Everything else goes on, counted in memory meanwhile.
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
    """"ok", "unusable", or "off" (limits switched off): whether the limiter's store can count now."""
    if not limiter.enabled:
        return "off"
    try:
        return "ok" if limiter.storage.check() else "unusable"
    except Exception:  # noqa: BLE001 - any storage's failure, whatever its client raises, means unusable
        return "unusable"


def store_is_local() -> bool:
    """Whether the store is this host's own file (its failure is this host's, not every host's)."""
    return limiter.enabled and isinstance(limiter.storage, SqliteStorage)


def fail_closed(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse a form's POST with a 503 page while the rate-limit store cannot count it."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if request.method == "POST" and store_state() == "unusable":
            log.error("refused %s %s: the rate-limit store is unusable", request.method, request.path)
            return error_response(503, STORE_DOWN)
        return view(*args, **kwargs)

    return guarded
