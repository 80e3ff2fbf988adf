"""The application factory's body: configuration, extensions, blueprints, error pages, headers."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any, Mapping

from flask import Flask, Response, abort, current_app, g, request
from flask_babel import lazy_gettext
from sqlalchemy import event
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.engine import Engine
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.wsgi import LimitedStream
from werkzeug.routing import IntegerConverter, Map

from grader import models
from grader.config import DEFAULT_INSTANCE, engine_options, settings
from grader.extensions import csrf, db, limiter, login_manager, migrate
from grader.web.foreign import CookieKeepingSessions, refuse_foreign_writes
from grader.web.headers import SECURITY_HEADERS
from grader.services import sign_ins
from grader.web.forms import ROW_ID_MAX
from grader.web.i18n import init_i18n
from grader.web import compression, static_files

PROJECT_ROOT = Path(__file__).resolve().parents[2]


# synchronous=FULL: a commit reaches the disk before it returns, so an attempt answered as stored
# survives a power cut too. NORMAL, WAL's usual setting, may lose the last commits; one writer's
# commit took 0.1 ms with it here against 0.8 to 1.1 ms with FULL, and commits queue one at a time.
SQLITE_PRAGMAS = ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=10000", "synchronous=FULL")


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection: Any, record: Any) -> None:
    """WAL, foreign keys and a busy timeout on every SQLite connection."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()


CACHEABLE = frozenset({"static", "api.openapi_document"})  # the same for everyone


def _headers(response: Response) -> Response:
    # Those the view set stay; one pass over the reply's headers, not one per name (this runs on every reply).
    present = {name.lower() for name, _ in response.headers}
    added = [(name, value) for name, value in SECURITY_HEADERS.items() if name.lower() not in present]
    if request.endpoint not in CACHEABLE and "cache-control" not in present:
        added.append(("Cache-Control", "no-store"))  # pages and API replies carry someone's work, or a CSRF token
    response.headers.extend(added)
    return response


def _retry_after_only_when_refused(response: Response) -> Response:
    """Flask-Limiter puts Retry-After on every limited response; it means "wait" only on a 429 or 503."""
    if response.status_code not in (429, 503):
        response.headers.pop("Retry-After", None)
    return response


def _load_user(session_secret: str) -> models.User | None:
    found = sign_ins.resume(session_secret, current_app.config["SIGN_IN_IDLE_DAYS"])
    if found is None:
        return None
    user, seen_long_ago = found
    if seen_long_ago:
        g.sign_in_seen = session_secret
    return user


def _note_sign_in_seen(response: Response) -> Response:
    # After the view, not in the user loader: the loader may run in the middle of a view's transaction.
    if (secret := g.pop("sign_in_seen", None)) is not None:
        sign_ins.touch(secret)
    return response


def _refuse_nul() -> None:
    """A NUL in the path is a 404 and in the query a 400: no page or parameter has one, and PostgreSQL
    would refuse it when the value reaches a query."""
    if "\x00" in request.path:
        abort(404)
    if any("\x00" in key or "\x00" in value for key, value in request.args.items(multi=True)):
        abort(400)


def _refuse_long_chunked_bodies() -> None:
    """A body sent without a length (chunked) over MAX_CONTENT_LENGTH is a 413, as one with a length is.

    Werkzeug stops reading such a body at the limit without a word, so the cut JSON or form
    would be refused as malformed (400) instead. Bodies here are small: reading one whole is fine.
    """
    if request.content_length is None and request.method not in ("GET", "HEAD", "OPTIONS"):
        request.get_data(cache=True)  # kept, so the form and JSON parsers read it from memory
        stream = request.stream
        if isinstance(stream, LimitedStream) and stream.is_exhausted:
            abort(413)


class _RowId(IntegerConverter):
    """<int:...> in routes, bounded by what an integer column holds: a larger id is a 404, not a database error."""

    regex = r"[0-9]+"  # ASCII digits: \d would take '１' for 1

    def __init__(self, url_map: Map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", ROW_ID_MAX)
        super().__init__(url_map, *args, **kwargs)


def build_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Create and configure the Flask app."""
    instance = Path((config or {}).get("INSTANCE_PATH", DEFAULT_INSTANCE))
    app = Flask("grader", instance_path=str(instance), root_path=str(Path(__file__).parent))
    app.url_map.converters["int"] = _RowId
    app.url_map.merge_slashes = False  # "/api/v1//progress" is a 404, not an HTML redirect
    app.config.update(settings(instance))
    app.config.update(config or {})
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", engine_options(app.config["SQLALCHEMY_DATABASE_URI"]))
    _log_at(app, app.config["LOG_LEVEL"])
    db.init_app(app)
    migrate.init_app(app, db, directory=str(PROJECT_ROOT / "migrations"))
    app.session_interface = CookieKeepingSessions()
    app.before_request(refuse_foreign_writes)  # first: before the limiter or CSRF write to the session
    app.before_request(_refuse_long_chunked_bodies)  # before anything parses a form or JSON body
    # Registered before the limiter's own hook, so it runs after it (Flask runs them in reverse).
    app.after_request(_retry_after_only_when_refused)
    limiter.init_app(app)  # before CSRF, so a request CSRF rejects still counts against the limit
    csrf.init_app(app)
    compression.init_app(app)
    static_files.init_app(app)
    login_manager.init_app(app)
    login_manager.user_loader(_load_user)
    login_manager.login_view = "auth.login"
    login_manager.login_message = lazy_gettext("Please log in to continue.")
    init_i18n(app)
    app.before_request(_refuse_nul)
    _register(app)
    app.after_request(_headers)
    app.after_request(_note_sign_in_seen)
    if app.config["TRUSTED_PROXIES"] > 0:  # else X-Forwarded-For is anyone's to forge
        hops = app.config["TRUSTED_PROXIES"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    return app


def _log_at(app: Flask, level: str) -> None:
    """The app's loggers ("grader", "grader.lti", ...) write from `level` on, as gunicorn's do. Left unset they
    took the root logger's WARNING, and an info line (the roster's skipped members) never reached the log."""
    logger = logging.getLogger(app.name)
    if logger.level == logging.NOTSET:  # a level the operator's own logging set up is kept
        logger.setLevel(level.upper())
    app.logger  # noqa: B018 - Flask adds its stderr handler here when nothing handles that level yet


def _course_of_page() -> dict[str, Any]:
    """Every page knows the course it is about and whether the reader teaches there (its menu shows the staff's
    pages then)."""
    from grader.web.course_context import page_course

    try:
        here = page_course()
    except SQLAlchemyError:  # an error page for a database that is down still renders
        here = None
    return {"this_course": here, "teaching": bool(here and here.staff)}


def _register(app: Flask) -> None:
    from grader.cli import register_commands
    from grader.web import api, auth, course_pages, course_settings_pages, errors, health, learn, teach
    from grader.web import course_content_pages  # noqa: F401
    from grader.web import analytics_pages, api_adaptive, api_code, api_courses, api_help, api_practice, audit_pages  # noqa: F401
    from grader.web import adaptive_settings_pages, mastery_pages, practise_next  # noqa: F401
    from grader.web import gradebook_pages  # noqa: F401
    from grader.web import help, practice, publishing_pages, regrading, sign_in_pages  # noqa: F401
    # (they add routes to the api, auth, learn and teach blueprints)
    from grader.web.filters import register_filters

    for blueprint in (auth.bp, learn.bp, teach.bp, api.bp, health.bp, course_pages.bp, course_settings_pages.bp):
        app.register_blueprint(blueprint)
    from grader.web.people_pages import bp as people_pages

    app.register_blueprint(people_pages)
    app.context_processor(_course_of_page)
    from grader.lti import setup as lti

    lti.init_app(app)
    csrf.exempt(api.bp)  # bearer tokens only, no cookies: nothing for a forged form to ride on
    errors.register(app)
    register_filters(app)
    register_commands(app)
