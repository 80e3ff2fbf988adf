"""Who is asking the JSON API and what they sent: the bearer token's owner, the course and language asked for, and
the JSON body read strictly (an unknown field is a 400, never ignored)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import wraps
from typing import Any

from flask import abort, g, make_response, request
from flask.typing import ResponseReturnValue

from grader.services import api_tokens
from grader.web import openapi
from grader.web.course_context import Here, api_course
from grader.web.errors import error_response
from grader.web.i18n import DEFAULT, LANGUAGES

View = Callable[..., ResponseReturnValue]


def _bearer_token() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


def _unauthorized(message: str, error: str | None) -> ResponseReturnValue:
    response = make_response(error_response(401, message))
    response.headers["WWW-Authenticate"] = 'Bearer realm="grader"' + (f', error="{error}"' if error else "")
    return response


def bearer(view: View) -> View:
    """Run the view only for the owner of a valid token; the session cookie is never consulted."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> ResponseReturnValue:
        token = _bearer_token()
        if token is None:
            return _unauthorized("Send a token in the header 'Authorization: Bearer <token>'.", None)
        try:
            owner = api_tokens.token_owner(token)
        except api_tokens.TokenRefused as refused:
            return _unauthorized(str(refused), "invalid_token")
        api_tokens.touch_token(owner)
        g.api_user = owner
        return view(*args, **kwargs)

    return openapi.secured(guarded)


def caller() -> api_tokens.TokenOwner:
    """The owner of the token that authenticated this request."""
    owner: api_tokens.TokenOwner = g.api_user
    return owner


def course() -> Here:
    """The course this API request acts in (`?course=CODE`, else the caller's first); 404 outside the caller's."""
    if "api_course" not in g:
        g.api_course = api_course(caller().user_id, caller().is_admin, caller().course_code)
    found: Here = g.api_course
    return found


def caller_key() -> str:
    """The rate-limit key of the caller: one budget per user, whatever the token or address."""
    return f"api-user:{caller().user_id}"  # runs inside `bearer`, so the caller is known


def language() -> str:
    """The ?lang= asked for (400 for an unsupported one, an empty one included), else the default."""
    asked = request.args.get("lang", DEFAULT)
    if asked not in LANGUAGES:
        abort(400, f"lang must be one of {', '.join(LANGUAGES)}.")
    return asked


def _json_body() -> Any:
    """The request's JSON body; None when it is not JSON or cannot be read, nested too deep included."""
    if not request.is_json:
        return None
    try:
        return request.get_json(silent=True)  # a body over MAX_CONTENT_LENGTH was a 413 before this
    except RecursionError:  # silent covers malformed JSON, not "[[[[…" a hundred thousand deep
        return None


def body_object(fields: Collection[str], usage: str) -> dict[str, Any]:
    """The JSON object sent, with no field but `fields` (a misspelt or unsupported one is a 400, not ignored)."""
    if not request.is_json:
        abort(400, "Send a JSON body with 'Content-Type: application/json'.")
    body = _json_body()
    if not isinstance(body, dict):
        abort(400, usage)
    unknown = sorted(set(body) - set(fields))
    if unknown:
        abort(400, f"Unknown field {', '.join(map(repr, unknown[:5]))}. {usage}")
    return body


def answers_from_body(fields: Collection[str] = ("answers",),
                      usage: str = 'Send {"answers": {"<part id>": "<answer>"}}.') -> tuple[dict[str, str], dict[str, Any]]:  # fmt: skip
    """The answers of a JSON body {"answers": {part: text}, ...} and the whole body; a 400 for anything else."""
    body = body_object(fields, usage)
    answers = body.get("answers")
    if not isinstance(answers, dict) or not all(isinstance(v, str) for v in answers.values()):
        abort(400, f"{usage} Every answer must be a string.")
    return answers, body
