"""Flask extensions, created unbound and initialised in the app factory."""

from __future__ import annotations

from typing import Any, Callable

from flask import request
from flask_compress import Compress
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager, current_user
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf import CSRFProtect
from sqlalchemy import MetaData
from sqlalchemy.orm import DeclarativeBase

# Stable constraint names so Alembic can alter them on every backend (SQLite batch mode included).
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with the naming convention."""

    metadata = MetaData(naming_convention=NAMING)


db = SQLAlchemy(model_class=Base)
migrate = Migrate(render_as_batch=True)
login_manager = LoginManager()
csrf = CSRFProtect()
limiter = Limiter(key_func=get_remote_address)
compress = Compress()  # text replies: zstd, brotli or gzip, as the browser offers


def user_key() -> str:
    """The rate limiter's key for a signed-in user's requests: the account, or the address before login."""
    return f"user:{current_user.id}" if current_user.is_authenticated else request.remote_addr or "-"


def _showing_drawn_numbers() -> bool:
    return "numbers" in request.args  # numbers drawn already, shown again: a reload, a language switch


def practice_draws(key_func: Callable[[], str]) -> Callable[[Any], Any]:
    """The limit on new practice numbers: one budget per learner, for the page and the API together;
    showing numbers drawn before (?numbers=) does not use it. `key_func` must give `user:<id>`."""
    # New numbers come with their worked solution: a bound, so nobody can draw until a classmate's come up.
    return limiter.shared_limit("30 per minute; 300 per day", scope="practice-draws", key_func=key_func,
                                exempt_when=_showing_drawn_numbers)  # fmt: skip
