"""Health checks for load balancers and monitoring: can this host reach its database and broker?"""

from __future__ import annotations

import redis
import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from grader import schema_version
from grader.extensions import db

BROKER_TIMEOUT_SECONDS = 1.0


def database_reachable() -> bool:
    """Whether a trivial query goes through."""
    try:
        db.session.execute(sa.text("SELECT 1"))
        return True
    except SQLAlchemyError:
        return False
    finally:
        db.session.rollback()


def schema_state() -> str:
    """The database's schema against this release's migrations (grader/schema_version.py)."""
    try:
        return schema_version.schema_state(db.session.connection())
    finally:
        db.session.rollback()


def broker_reachable(url: str) -> bool:
    """Whether the Redis broker answers a PING within a second."""
    client = redis.Redis.from_url(url, socket_connect_timeout=BROKER_TIMEOUT_SECONDS,
                                  socket_timeout=BROKER_TIMEOUT_SECONDS)  # fmt: skip
    try:
        return bool(client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        client.close()
