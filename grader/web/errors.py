"""Error pages for people and JSON errors for the API; no stack trace ever reaches a user."""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, make_response, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, SQLAlchemyError
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.exceptions import HTTPException, InternalServerError, RequestEntityTooLarge

from grader.catalog.variants import VariantError
from grader.services.attempts import NotOpen, UnknownParts
from grader.services.exercises import SpecInvalid, UnknownExercise
from grader.web.filters import when
from grader.web.i18n import is_api_request

MESSAGES = {
    400: (_l("Bad request"), _l("The request could not be understood.")),
    401: (_l("Not signed in"), _l("Sign in, or send a valid API token.")),
    403: (_l("Not allowed"), _l("Your account cannot open this page.")),
    404: (_l("Not found"), _l("There is nothing at this address.")),
    405: (_l("Method not allowed"), _l("This address does not accept that kind of request.")),
    409: (_l("Conflict"), _l("That cannot be done in the current state.")),
    413: (_l("Too large"), _l("That upload or form is larger than the service accepts.")),
    422: (_l("Unprocessable"), _l("The request was understood but its content is not valid.")),
    429: (_l("Slow down"), _l("Too many requests in a short time. Wait a minute and try again.")),
    500: (_l("Something went wrong"), _l("The error has been logged. Your last saved work is safe.")),
    503: (_l("Unavailable"), _l("The service is briefly unavailable. Try again in a moment.")),
}
ERROR_NAMES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
               405: "method_not_allowed", 409: "conflict", 413: "too_large", 422: "unprocessable", 429: "rate_limited",
               500: "internal_error", 503: "unavailable"}  # fmt: skip


def error_response(code: int, message: object = None) -> tuple[Response | str, int]:
    """A JSON error for the API, or an HTML page for people (messages may be lazily translated)."""
    title, default = MESSAGES.get(code, MESSAGES[500])
    text = str(message or default)
    if is_api_request():
        return jsonify(error=ERROR_NAMES.get(code, "error"), message=text), code
    return render_template("errors/error.html", code=code, title=title, message=text), code


def _http(error: HTTPException) -> Response:
    code = error.code or 500
    message = None if code >= 500 or code == 429 else _specific(error)
    response = make_response(error_response(code, message))
    for name, value in error.get_headers():  # Allow on a 405, Retry-After, WWW-Authenticate …
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


NO_SUCH_EXERCISE = _l("There is no exercise with that name.")


def _specific(error: HTTPException) -> str | None:
    # Messages we raise ourselves (abort(404, "…")) are safe to show; werkzeug's defaults are generic.
    description = str(error.description or "")
    return description if description and description != type(error).description else None


CSRF_MESSAGE = _l("The form has expired or was not sent from this site. Reload the page and try again.")


def _csrf(error: CSRFError) -> ResponseReturnValue:
    from grader.web.learn import keep_answers, resend

    if request.endpoint == "learn.answer" and request.view_args:
        if not current_user.is_authenticated:  # the cookie was lost: log in again, the answers wait
            keep_answers(request.view_args["exercise_id"])
            return current_app.login_manager.unauthorized()  # type: ignore[attr-defined,no-any-return]
        try:  # answers typed into a page whose session was lost are shown again, not dropped
            return resend(request.view_args["exercise_id"])
        except (HTTPException, UnknownExercise, NotOpen):  # no such exercise, or not open yet: the plain refusal
            pass
    return error_response(400, CSRF_MESSAGE)


DATABASE_DOWN = _l("The database is briefly unavailable. Nothing was saved; try again in a moment.")
READ_ONLY = _l("The service cannot save right now (its storage is read-only or full). Nothing was saved.")


def _database(error: SQLAlchemyError) -> ResponseReturnValue:
    from grader.extensions import db

    try:
        db.session.rollback()  # nothing half-written: the whole transaction goes
    except SQLAlchemyError:  # the connection may be gone too; the pool replaces it
        pass
    orig = getattr(error, "orig", None)
    current_app.logger.error("database error: %s", orig or error, exc_info=not isinstance(error, DBAPIError))
    if isinstance(error, (IntegrityError, DataError)):  # a value the database refused: a fault here, not an outage
        return error_response(500)
    text = str(orig or "").lower()
    # PostgreSQL: 25006 read-only transaction, 53100 disk full; SQLite says so in its message.
    code = getattr(orig, "sqlstate", None)
    full = code in ("25006", "53100") or any(w in text for w in ("readonly", "read-only", "disk is full"))
    return error_response(503, READ_ONLY if full else DATABASE_DOWN)


BROKEN_EXERCISE = _l("This exercise cannot make its numbers right now. The error has been logged for the instructors.")
INVALID_EXERCISE = _l("This exercise cannot be shown right now: its current version no longer passes this grader's "
                      "checks. The error has been logged; an instructor needs to save a corrected version.")


def _broken_exercise(error: VariantError) -> ResponseReturnValue:
    # The exercise's own problem (its formulas took too long, no draw was well posed), not a fault of the
    # service: it is unavailable until an instructor fixes it.
    current_app.logger.error("an exercise cannot make a variant: %s", error)
    return error_response(503, BROKEN_EXERCISE)


def _invalid_exercise(error: SpecInvalid) -> ResponseReturnValue:
    # A version stored before this grader's checks grew stricter: an instructor must save a fixed one.
    current_app.logger.error("a stored exercise version no longer validates: %s", error)
    return error_response(500, INVALID_EXERCISE)


def _unknown_parts(error: UnknownParts) -> ResponseReturnValue:
    return error_response(400, gettext("This exercise has no part %(unknown)s; its parts are %(known)s.",
                                       unknown=", ".join(error.unknown), known=", ".join(error.known)))  # fmt: skip


def _unknown_exercise(error: UnknownExercise) -> ResponseReturnValue:
    return error_response(404, NO_SUCH_EXERCISE)


def _not_open(error: NotOpen) -> ResponseReturnValue:
    # Programs get the moment in ISO 8601; people get it in words, in their language.
    if is_api_request():
        return error_response(403, f"This exercise opens {error.opens.isoformat()}Z.")
    return error_response(403, gettext("This exercise opens %(when)s UTC.", when=when(error.opens)))


def _too_large(error: RequestEntityTooLarge) -> ResponseReturnValue:
    """An upload too large to read, sent from a code exercise's page: that page again, saying the limit by the
    field (the body was not read, so nothing was stored); elsewhere the plain refusal."""
    from grader.code_grading import too_large
    from grader.web import code
    from grader.web.i18n import translated
    from grader.web.learn import open_code_exercise

    exercise_id = (request.view_args or {}).get("exercise_id")
    if request.endpoint == "learn.answer" and exercise_id and current_user.is_authenticated:
        # The page's forms read the request's form again: as nothing of the body was read, it is empty.
        request.__dict__.update(form=ImmutableMultiDict(), files=ImmutableMultiDict())
        try:
            if open_code_exercise(exercise_id):
                return code.page(exercise_id, translated(too_large().text), 413)
        except (HTTPException, UnknownExercise, NotOpen):
            pass
    return _http(error)


def _unexpected(error: Exception) -> ResponseReturnValue:
    current_app.logger.exception("unhandled error", exc_info=error)
    return error_response(500)


def register(app: Flask) -> None:
    """Install the handlers."""
    app.register_error_handler(CSRFError, _csrf)
    # Any SQLAlchemy error reaching here (a dropped connection, a pool timeout, a session left
    # needing rollback by one) means the database is in trouble: a clear 503. A refused value or
    # a broken constraint is the one exception: a 500, since trying again would not help.
    app.register_error_handler(SQLAlchemyError, _database)
    app.register_error_handler(VariantError, _broken_exercise)
    app.register_error_handler(SpecInvalid, _invalid_exercise)
    app.register_error_handler(UnknownParts, _unknown_parts)
    app.register_error_handler(UnknownExercise, _unknown_exercise)
    app.register_error_handler(NotOpen, _not_open)
    app.register_error_handler(RequestEntityTooLarge, _too_large)
    app.register_error_handler(HTTPException, _http)
    app.register_error_handler(InternalServerError, _unexpected)
    app.register_error_handler(Exception, _unexpected)
