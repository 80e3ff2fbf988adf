"""Health endpoints for a load balancer in front of several web hosts (no login, no cookies needed).

/healthz says the process serves requests. /readyz says whether it can do useful work: it is 503
only when the database is unreachable. A broker that is down is reported but does not fail it,
because code submissions are still stored then and sent once the broker is back; taking every
web host out of rotation for it would turn a delay into an outage.
"""

from __future__ import annotations

from flask import Blueprint, jsonify
from flask.typing import ResponseReturnValue

from grader.config import broker_url
from grader.extensions import limiter
from grader.services import health

bp = Blueprint("health", __name__)


@bp.get("/healthz")
@limiter.exempt
def alive() -> ResponseReturnValue:
    """The process is up (checks nothing else)."""
    return jsonify(status="ok")


@bp.get("/readyz")
@limiter.exempt
def ready() -> ResponseReturnValue:
    """The database answers (else 503); the broker's state is reported alongside."""
    database = health.database_reachable()
    url = broker_url()
    broker = "not used" if url is None else "ok" if health.broker_reachable(url) else "unreachable"
    body = {"status": "ok" if database else "unavailable", "database": "ok" if database else "unreachable",
            "broker": broker}  # fmt: skip
    return jsonify(body), 200 if database else 503
