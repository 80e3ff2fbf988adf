"""Fixtures: the app on a fresh database, a fake LMS on loopback registered through the CLI, and a
launch helper that walks the OIDC flow as a browser would (login initiation, then the signed launch)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from grader.extensions import db
from grader.lti.models import LtiContext, Platform
from grader.services import courses
from tests.lti.platform import CLIENT_ID, DEPLOYMENT_ID, FakePlatform
from tests.web.conftest import build_app


@pytest.fixture
def platform() -> Iterator[FakePlatform]:
    fake = FakePlatform()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def app(tmp_path: Path, platform: FakePlatform) -> Iterator[Flask]:
    app = build_app(tmp_path)
    result = app.test_cli_runner().invoke(args=platform.cli_args())
    assert result.exit_code == 0, result.output
    platform.tool_jwks = app.test_client().get("/lti/jwks").get_json()
    map_context(app, platform, "default")  # as on a site that had one class before courses: tests of other
    yield app                              # courses use other context ids
    with app.app_context():
        db.engine.dispose()


def map_context(app: Flask, platform: FakePlatform, code: str, context_id: str = "course-1") -> None:
    """Map the platform's LMS course `context_id` to our course `code`, as its instructor's first launch would."""
    with app.app_context():
        course = courses.by_code(code)
        platform_id = db.session.scalar(sa.select(Platform.id).where(Platform.issuer == platform.issuer))
        assert course is not None and platform_id is not None
        db.session.add(LtiContext(platform_id=platform_id, deployment_id=DEPLOYMENT_ID, context_id=context_id,
                                  course_id=course.id, title="Transformers 101"))  # fmt: skip
        db.session.commit()


def start_login(client: FlaskClient, platform: FakePlatform, **params: str) -> dict[str, str]:
    """The platform's login initiation; returns the authorisation request the tool redirects to."""
    query = {"iss": platform.issuer, "login_hint": "hint-1", "target_link_uri": "http://localhost/lti/launch",
             "client_id": CLIENT_ID, "lti_deployment_id": DEPLOYMENT_ID, **params}
    response = client.get("/lti/login", query_string=query)
    assert response.status_code == 302, response.get_data(as_text=True)
    location = urlsplit(response.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == f"{platform.url}/auth"
    return {k: v[0] for k, v in parse_qs(location.query).items()}


def launch(client: FlaskClient, platform: FakePlatform, token: Callable[[str], str] | None = None,
           **claims: Any) -> TestResponse:
    """A whole launch: login initiation, then the id_token (made by `token` from the nonce, else signed
    claims) posted to /lti/launch from the platform's site."""
    auth = start_login(client, platform)
    id_token = token(auth["nonce"]) if token else platform.sign(platform.claims(auth["nonce"], **claims))
    return client.post("/lti/launch", data={"id_token": id_token, "state": auth["state"]},
                       headers={"Sec-Fetch-Site": "cross-site"})


def wait_for(check: Callable[[], Any], seconds: float = 20.0) -> Any:
    """Poll until `check` is truthy (the background sender works on its own thread)."""
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
    return found
