"""Health endpoints for a load balancer in front of several web hosts (no login, no cookies needed).

/healthz says the process serves requests. /readyz says whether it can do useful work: it is 503
when the database is unreachable, when its schema is not this release's (grader/schema_version.py:
an upgrade half done, or another release's database), or when this host's own rate-limit file
cannot count (logins and registrations refuse then: grader/web/limit_store.py). A broker that is
down is reported but does not fail it, because code submissions are still stored then and sent once
the broker is back; taking every web host out of rotation for it would turn a delay into an outage.
A shared (Redis) rate-limit store is not checked here, for the same reason.
"""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from grader.config import broker_url
from grader.extensions import limiter
from grader.schema_version import SERVING
from grader.services import health
from grader.web.limit_store import store_state

bp = Blueprint("health", __name__)


@bp.get("/healthz")
@limiter.exempt
def alive() -> ResponseReturnValue:
    """The process is up (checks nothing else)."""
    return jsonify(status="ok")


@bp.get("/readyz")
@limiter.exempt
def ready() -> ResponseReturnValue:
    """The database answers at this release's schema and this host's rate-limit file counts (else 503);
    the broker's state alongside."""
    database = health.database_reachable()
    schema = health.schema_state() if database else "unknown"
    url = broker_url()
    broker = "not used" if url is None else "ok" if health.broker_reachable(url) else "unreachable"
    limits = store_state()
    ready = database and schema in SERVING and limits != "unusable"
    body = {"status": "ok" if ready else "unavailable", "database": "ok" if database else "unreachable",
            "schema": schema, "broker": broker, "rate_limits": limits}  # fmt: skip
    return jsonify(body), 200 if ready else 503
