"""Forms another site makes a browser send here: refused, and never answered with a cookie.

A cross-site POST arrives without the session cookie (SameSite=Lax), so the app would see a
visitor with no session and answer with a new cookie, replacing the learner's: another site
could sign them out, or leave answers in the session for the learner to find after logging in
again. The CSRF token already stops the action itself. Browsers say where a request came from in
Sec-Fetch-Site (Fetch Metadata); one that does not send it is left to the CSRF token alone.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, abort, has_request_context, request
from flask.sessions import SecureCookieSessionInterface
from flask_babel import lazy_gettext as _l

from grader.web.headers import framing_origins

FOREIGN_SITES = frozenset({"cross-site", "same-site"})  # same-site: another host under the same domain
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
API_PREFIX = "/api/"  # bearer tokens, no cookies: nothing to replace


# An LMS posts its LTI login and launch from its own site by design; signed tokens guard them (grader/lti).
LTI_ENTRIES = frozenset({"/lti/login", "/lti/launch"})


def is_foreign_write() -> bool:
    """Whether the request changes something and the browser says another site sent it (LTI entries aside)."""
    return (request.method not in SAFE_METHODS and request.headers.get("Sec-Fetch-Site") in FOREIGN_SITES
            and request.path not in LTI_ENTRIES)  # fmt: skip


def refuse_foreign_writes() -> None:
    """A form sent from another site is a 403 before anything reads or writes the session."""
    if is_foreign_write() and not request.path.startswith(API_PREFIX):
        abort(403, _l("This form came from another site, so nothing was done. Open the page on this site and "
                      "send it from there."))  # fmt: skip


class CookieKeepingSessions(SecureCookieSessionInterface):
    """The signed-cookie session, never saved in answer to another site's form, nor with a static file."""

    def open_session(self, app: Flask, request: Any) -> Any:
        """A request without a session cookie (every API call) gets a new empty session without building
        the cookie's signer, which costs more than the rest of opening it."""
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        """Save as usual, except for a foreign write: its new cookie would replace the learner's.

        A static file is the same for everyone: saving would add `Vary: Cookie` (a browser holding
        the file for a year would fetch it again after each change of cookie) or even a Set-Cookie.
        """
        if is_foreign_write() or request.endpoint == "static":
            return
        super().save_session(app, session, response)

    def get_cookie_samesite(self, app: Flask) -> str | None:
        """Lax, except for a sign-in begun by a validated LTI launch over HTTPS: the LMS frames its pages, a
        third-party context where only SameSite=None cookies are sent (CSRF tokens still guard every form)."""
        if app.config["SESSION_COOKIE_SECURE"] and has_request_context() and framing_origins():
            return "None"
        return super().get_cookie_samesite(app)
