"""The security headers every reply carries, and their one loosening: framing by an LMS after a checked launch.

Shared by the app factory (which adds the headers) and the LTI views (which allow framing once a
launch is validated, and change form-action for the one form that goes back to the LMS).
"""

from __future__ import annotations

from flask import Response, session

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}
FRAMING_KEY = "lti_frame"  # in the session, set by a validated launch only: {"origins": [...]}


def csp_with(directive: str, value: str, csp: str | None = None) -> str:
    """The policy (ours by default) with one directive's value replaced."""
    parts = [p.strip() for p in (csp or SECURITY_HEADERS["Content-Security-Policy"]).split(";")]
    return "; ".join(f"{directive} {value}" if p.split(" ")[0] == directive else p for p in parts)


def allow_framing(origins: list[str]) -> None:
    """Let this sign-in's pages be framed by these origins (a validated launch's platform)."""
    session[FRAMING_KEY] = {"origins": origins}


def forget_framing() -> None:
    """Back to no framing at all: a sign-in by password is not inside any LMS."""
    session.pop(FRAMING_KEY, None)


def framing_origins() -> list[str]:
    """The origins this session's pages may be framed by (none unless a launch set them)."""
    kept = session.get(FRAMING_KEY) if FRAMING_KEY in session else None
    origins = kept.get("origins") if isinstance(kept, dict) else None
    return [o for o in origins if isinstance(o, str)] if isinstance(origins, list) else []


def framed_by(response: Response, origins: list[str]) -> Response:
    """The reply, framable by these origins only (unchanged when there are none)."""
    csp = response.headers.get("Content-Security-Policy", "")
    if origins and "frame-ancestors 'none'" in csp:
        response.headers["Content-Security-Policy"] = csp_with("frame-ancestors", " ".join(origins), csp)
        response.headers.pop("X-Frame-Options", None)
    return response
