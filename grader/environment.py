"""Whole-number and on/off settings from the environment: a malformed one stops the process at start, named.

Standard library only, so the gunicorn settings, the Celery worker and the sandbox pool read their
variables the same way the app's configuration (grader.config) does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

DEFAULT_BIND = "127.0.0.1:8000"


def flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    """An on/off setting; anything but true/false is refused, naming the variable."""
    value = env.get(name)
    if not value:
        return default
    if value.lower() not in ("true", "false"):
        raise ValueError(f"{name} must be true or false, not {value!r}")
    return value.lower() == "true"


def whole_number(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """A whole-number setting within [low, high]; anything else is refused, naming the variable."""
    raw = env.get(name)
    if not raw:
        return default
    value = int(raw) if re.fullmatch(r"-?[0-9]+", raw.strip()) else None  # not isdigit(): '²' is a digit
    if value is None or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return value


LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # gunicorn's names, which `logging` knows too


def log_level(env: Mapping[str, str]) -> str:
    """GRADER_LOG_LEVEL (default info), for gunicorn's log and the app's own loggers; others are refused, named."""
    raw = env.get("GRADER_LOG_LEVEL") or "info"
    if raw.lower() not in LOG_LEVELS:
        raise ValueError(f"GRADER_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {raw!r}")
    return raw.lower()


def bind_address(env: Mapping[str, str]) -> str:
    """host:port gunicorn listens on (GRADER_BIND), which `make run` serves and local links point at."""
    return env.get("GRADER_BIND") or DEFAULT_BIND


def local_url(env: Mapping[str, str]) -> str:
    """The site as a browser on this host reaches what gunicorn serves (for links when no public address is set)."""
    host, _, port = bind_address(env).rpartition(":")
    if not port.isdigit():  # a unix: socket has no URL of its own
        return f"http://{DEFAULT_BIND}"
    return f"http://{'127.0.0.1' if host in ('', '0.0.0.0', '[::]', '::') else host}:{port}"


SANDBOX_MODES = ("bwrap", "unsafe-local")


def sandbox_mode(env: Mapping[str, str]) -> str:
    """How learner code runs (GRADER_SANDBOX): bubblewrap, or the labelled development-only local mode."""
    mode = env.get("GRADER_SANDBOX") or "bwrap"
    if mode not in SANDBOX_MODES:
        raise ValueError(f"GRADER_SANDBOX must be 'bwrap' or 'unsafe-local', not {mode!r}")
    return mode


def sandbox_slots(env: Mapping[str, str]) -> int:
    """Sandboxes per process (GRADER_SANDBOX_SLOTS)."""
    return whole_number(env, "GRADER_SANDBOX_SLOTS", 2, 1, 64)
