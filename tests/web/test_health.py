"""Health endpoints for a load balancer: /healthz (the process) and /readyz (its database)."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from grader import create_app


def test_alive_and_ready_on_the_embedded_default(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_BROKER_URL", raising=False)
    assert client.get("/healthz").get_json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    # Tables made by create_all (no migrations ran), and limits off as in every web test.
    assert ready.get_json() == {"status": "ok", "database": "ok", "schema": "unversioned", "broker": "not used",
                                "rate_limits": "off"}  # fmt: skip
    assert "Set-Cookie" not in ready.headers  # a probe leaves no session behind


def test_without_its_database_a_host_is_alive_but_not_ready(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_BROKER_URL", raising=False)
    app = create_app({"INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "k" * 32,
                      "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://grader:x@127.0.0.1:9/none"})  # fmt: skip
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.get_json() == {"status": "unavailable", "database": "unreachable", "schema": "unknown",
                                "broker": "not used", "rate_limits": "ok"}  # fmt: skip
    assert "127.0.0.1" not in ready.get_data(as_text=True)  # no connection details or errors leak out
