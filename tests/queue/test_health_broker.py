"""/readyz reports the broker, against a real redis-server that is then stopped."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.queue.support import Redis


def test_a_broker_that_goes_down_is_reported_but_the_host_stays_ready(client: FlaskClient, redis: Redis) -> None:
    assert client.get("/readyz").get_json() == {"status": "ok", "database": "ok", "schema": "unversioned", "broker": "ok",
                                             "rate_limits": "off"}
    redis.stop()
    ready = client.get("/readyz")
    assert ready.status_code == 200  # submissions are still stored and sent once the broker is back
    assert ready.get_json() == {"status": "ok", "database": "ok", "schema": "unversioned",
                                "broker": "unreachable", "rate_limits": "off"}
