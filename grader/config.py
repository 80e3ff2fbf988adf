"""The web app's settings, read from the environment here, once, when the app is made.

The processes around the app read their own (gunicorn.conf.py: GRADER_BIND, GRADER_WORKERS, ...;
grader/tasks.py: the queue's timings; grader/sandbox: GRADER_SANDBOX*, GRADER_BWRAP), their numbers
through grader/environment.py, so a malformed one is refused the same way. All of them are listed in
docs/operators/configuration.md.

GRADER_DATABASE_URL      SQLAlchemy URL (default: SQLite in instance/grader.db)
GRADER_SECRET_KEY        session signing key (default: generated once, kept in instance/secret_key)
GRADER_RATELIMIT_STORAGE Flask-Limiter storage URI (default: a SQLite file shared by this machine's
                         processes, beside a SQLite database, else in instance/; redis://host:6379/1
                         for several hosts; memory:// counts in each process alone)
GRADER_RATELIMIT_ENABLED  "false" switches rate limits off (benchmarks only; default on)
GRADER_BROKER_URL        Redis URL for Celery code grading, e.g. redis://localhost:6379/0
                         (default: none, grading runs on a local pool in each web process)
GRADER_EXERCISES_DIR     exercise files to sync (default: exercises/ beside the package)
GRADER_MAX_UPLOAD_BYTES  largest request body accepted (default: 1 MiB)
GRADER_SMTP_URL          mail server for password reset links, smtp://[user:password@]host[:port]
                         (add ?starttls=true to upgrade the connection) or smtps://... for TLS from
                         the start (default: none; instructors hand out reset links instead)
GRADER_MAIL_FROM         the sender of that mail (default: grader@localhost)
GRADER_BASE_URL          the site's public address for links in mail, e.g. https://grader.example.org
                         (needed with GRADER_SMTP_URL: a link is never built from the request's Host)
GRADER_TRUSTED_PROXIES   reverse proxies in front of gunicorn whose X-Forwarded-For/-Proto to believe
                         (default: 0, the peer address is the client's)
GRADER_SIGN_IN_IDLE_DAYS a browser sign-in unused for this many days ends (1 to 3650; default: 14)
GRADER_SECURE_COOKIES    "true" sends cookies over HTTPS only (default: true when GRADER_BASE_URL is https)
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from limits.storage import SCHEMES
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from grader import rate_limit_store  # registers the sqlite:// storage with the limits package
from grader.environment import flag, log_level, sandbox_mode, sandbox_slots, whole_number
from grader.services.mail import SmtpServer

PROJECT_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INSTANCE = PROJECT_ROOT / "instance"
MAX_IDLE_DAYS = 3650


def _secret_key(instance: Path, env: Mapping[str, str]) -> str:
    """The configured key, or one generated on first run and kept (mode 0600) in instance/."""
    if env.get("GRADER_SECRET_KEY"):
        return env["GRADER_SECRET_KEY"]
    path = instance / "secret_key"
    if not path.exists():
        instance.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text().strip()


def broker_url(env: Mapping[str, str] | None = None) -> str | None:
    """The Celery broker, when grading is queued; anything but a Redis URL is refused, naming the variable."""
    env = os.environ if env is None else env
    url = env.get("GRADER_BROKER_URL") or None
    if url is not None and urlsplit(url).scheme not in ("redis", "rediss"):
        raise ValueError("GRADER_BROKER_URL must be a Redis URL such as redis://localhost:6379/0")
    return url


def engine_options(database_url: str) -> dict[str, Any]:
    """SQLAlchemy engine options for a database URL.

    A server database gets a liveness check on checkout, so a restarted server costs no request;
    SQLite has no server to lose, so its connections skip the extra round trip.
    """
    server = make_url(database_url).get_backend_name() != "sqlite"
    return {"pool_pre_ping": True} if server else {}


def _mail_server(env: Mapping[str, str]) -> SmtpServer | None:
    """The SMTP server for reset links, if configured; a broken setting stops the app at start."""
    url = env.get("GRADER_SMTP_URL")
    if not url:
        return None
    if not env.get("GRADER_BASE_URL"):
        raise ValueError("GRADER_SMTP_URL needs GRADER_BASE_URL: links in mail are never built from a request's Host")
    return SmtpServer.from_url(url)


def _database_url(env: Mapping[str, str], instance: Path) -> str:
    """The database URL, or SQLite in instance/; a malformed one is refused at start (never echoed: it can hold a password)."""
    url = env.get("GRADER_DATABASE_URL") or f"sqlite:///{instance / 'grader.db'}"
    try:
        make_url(url).get_dialect()  # an unknown database, or a port that is no number, stops here
    except (ArgumentError, NoSuchModuleError, ValueError):
        raise ValueError("GRADER_DATABASE_URL is not a database URL; it looks like sqlite:///path/grader.db "
                         "or postgresql+psycopg://user:password@host/grader") from None
    return url


def _rate_limit_storage(env: Mapping[str, str], database_url: str, instance: Path) -> str:
    """The Flask-Limiter storage URI; an unknown scheme is refused at start, naming the variable.

    By default a SQLite file that every gunicorn worker of this machine counts in (memory:// would
    give each worker the whole limit): beside a SQLite database, so each install keeps its own,
    else in instance/.
    """
    uri = env.get("GRADER_RATELIMIT_STORAGE")
    if not uri:
        database = make_url(database_url)
        beside = database.get_backend_name() == "sqlite" and database.database not in (None, "", ":memory:")
        folder = Path(str(database.database)).resolve().parent if beside else instance.resolve()
        return f"{rate_limit_store.SCHEME}:///{folder / 'rate-limits.db'}"
    scheme = urlsplit(uri).scheme
    # A sqlite URI naming no file is refused here, not at the first login.
    no_file = scheme == rate_limit_store.SCHEME and (not uri.startswith("sqlite:///") or uri == "sqlite:///")
    if scheme not in SCHEMES or no_file:  # the URL itself is not repeated: it can hold a password
        raise ValueError("GRADER_RATELIMIT_STORAGE must be memory:// or a redis://host:port/db URL, "
                         "or sqlite:////path/to/rate-limits.db")  # fmt: skip
    return uri


def _base_url(env: Mapping[str, str]) -> str | None:
    """The site's public address for links, without a trailing slash; it must be an http(s) URL."""
    url = (env.get("GRADER_BASE_URL") or "").rstrip("/")
    parts = urlsplit(url)
    if url and (parts.scheme not in ("http", "https") or not parts.hostname):
        raise ValueError("GRADER_BASE_URL must look like https://grader.example.org")
    return url or None


def _secure_cookies(env: Mapping[str, str]) -> bool:
    """Cookies over HTTPS only: as set, else whenever the public address is https."""
    return flag(env, "GRADER_SECURE_COOKIES", (env.get("GRADER_BASE_URL") or "").startswith("https://"))


def settings(instance: Path = DEFAULT_INSTANCE, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Flask configuration from the environment."""
    env = os.environ if env is None else env
    database_url = _database_url(env, instance)
    return {
        "SQLALCHEMY_DATABASE_URI": database_url,
        "SECRET_KEY": _secret_key(instance, env),
        "RATELIMIT_STORAGE_URI": _rate_limit_storage(env, database_url, instance),
        "RATELIMIT_ENABLED": flag(env, "GRADER_RATELIMIT_ENABLED", True),
        "EXERCISES_DIR": Path(env.get("GRADER_EXERCISES_DIR", PROJECT_ROOT / "exercises")),
        "MAX_CONTENT_LENGTH": whole_number(env, "GRADER_MAX_UPLOAD_BYTES", 2**20, 2**16, 2**30),
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SECURE": _secure_cookies(env),
        "REMEMBER_COOKIE_SECURE": _secure_cookies(env),
        "TRUSTED_PROXIES": whole_number(env, "GRADER_TRUSTED_PROXIES", 0, 0, 10),
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SIGN_IN_IDLE_DAYS": whole_number(env, "GRADER_SIGN_IN_IDLE_DAYS", 14, 1, MAX_IDLE_DAYS),
        "REMEMBER_COOKIE_HTTPONLY": True,
        "REMEMBER_COOKIE_SAMESITE": "Lax",
        "WTF_CSRF_TIME_LIMIT": None,
        "RATELIMIT_HEADERS_ENABLED": True,
        # A Redis outage must not take logins and attempts down with it: each process counts in
        # memory meanwhile (a looser limit for a while), and goes back to Redis once it answers.
        "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
        "RATELIMIT_SWALLOW_ERRORS": True,
        "MAIL_SERVER": _mail_server(env),
        "MAIL_FROM": env.get("GRADER_MAIL_FROM") or "grader@localhost",
        "BASE_URL": _base_url(env),
        # Read again where the sandbox starts (workers too); read here so a bad value stops the app at start.
        "SANDBOX_MODE": sandbox_mode(env),
        "SANDBOX_SLOTS": sandbox_slots(env),
        "LOG_LEVEL": log_level(env),
    }
