"""The login's state apart from the session: a link to /lti/login changes no signed-in session, framing follows
validated launches only, refusals show inside the platform's frame and name their real cause."""

from __future__ import annotations

import logging

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.lti.conftest import launch, start_login
from tests.lti.platform import CLIENT_ID, DEPLOYMENT_ID, FakePlatform
from tests.web.conftest import PASSWORD, csrf_from, login, make_user

HTTPS = "https://localhost"


def cookie_names(client: FlaskClient) -> set[str]:
    return {cookie.key for cookie in client._cookies.values()}  # type: ignore[attr-defined]


def login_query(platform: FakePlatform, **changed: str) -> dict[str, str]:
    return {"iss": platform.issuer, "login_hint": "hint-1", "target_link_uri": "http://localhost/lti/launch",
            "client_id": CLIENT_ID, "lti_deployment_id": DEPLOYMENT_ID, **changed}


@pytest.fixture(autouse=True)
def _log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="grader.lti")


def test_a_link_to_lti_login_leaves_a_signed_in_session_alone(app: Flask, platform: FakePlatform) -> None:
    app.config["SESSION_COOKIE_SECURE"] = True  # over https, where SameSite=None would be given
    make_user(app, "ada@example.com")
    client = app.test_client()
    page = client.get("/login", base_url=HTTPS).get_data(as_text=True)
    client.post("/login", base_url=HTTPS, data={"email": "ada@example.com", "password": PASSWORD,
                                                "csrf_token": csrf_from(page)})  # fmt: skip
    lured = client.get("/lti/login", base_url=HTTPS, query_string=login_query(platform))
    assert lured.status_code == 302
    session_cookies = [h for h in lured.headers.getlist("Set-Cookie") if h.startswith("session=")]
    assert session_cookies == []  # the session is not rewritten, so not made SameSite=None either
    after = client.get("/", base_url=HTTPS)
    assert "frame-ancestors 'none'" in after.headers["Content-Security-Policy"]
    assert after.headers["X-Frame-Options"] == "DENY"
    assert all("SameSite=None" not in h for h in after.headers.getlist("Set-Cookie") if h.startswith("session="))


def test_a_password_sign_in_ends_the_framing_a_launch_allowed(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    launch(client, platform, custom={"exercise": "block-layernorm"})
    assert f"frame-ancestors {platform.url}" in client.get("/").headers["Content-Security-Policy"]
    make_user(app, "ada@example.com")
    login(client, "ada@example.com")
    assert "frame-ancestors 'none'" in client.get("/").headers["Content-Security-Policy"]


def test_state_cookies_are_removed_after_a_launch(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    start_login(client, platform)
    assert {"lti1p3-login"} <= cookie_names(client) and any(n.startswith("lti1p3-state-") for n in cookie_names(client))
    client = app.test_client()
    launch(client, platform, custom={"exercise": "block-layernorm"})
    assert not any(name.startswith("lti1p3-") for name in cookie_names(client)), cookie_names(client)


def test_a_refusal_shows_inside_the_platform_frame_with_a_new_window_link(app: Flask,
                                                                          platform: FakePlatform) -> None:
    refused = launch(app.test_client(), platform, aud="another-tool")
    assert refused.status_code == 400
    assert f"frame-ancestors {platform.url}" in refused.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in refused.headers
    page = refused.get_data(as_text=True)
    assert f'href="{platform.url}/course" target="_blank" rel="noopener">Open in a new window</a>' in page
    ru = app.test_client().get("/lti/login", query_string=login_query(platform, client_id="second-tool"),
                               headers={"Accept-Language": "ru"})  # fmt: skip
    assert ru.status_code == 400 and f"frame-ancestors {platform.url}" in ru.headers["Content-Security-Policy"]
    assert 'target="_blank"' in ru.get_data(as_text=True) and "Open in a new window" not in ru.get_data(as_text=True)
    assert "/lti/login?iss=" in ru.get_data(as_text=True)  # the login again, in a window of its own


def test_an_unknown_client_id_is_named_as_such(app: Flask, platform: FakePlatform,
                                               caplog: pytest.LogCaptureFixture) -> None:
    response = app.test_client().get("/lti/login", query_string=login_query(platform, client_id="second-tool"))
    assert response.status_code == 400 and "not with the client id it sent" in response.get_data(as_text=True)
    assert "LTI launch refused (client)" in caplog.text and "refused (issuer)" not in caplog.text


def test_a_lost_login_cookie_is_not_called_a_replay(app: Flask, platform: FakePlatform,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    client = app.test_client()
    auth = start_login(client, platform)
    client.delete_cookie("lti1p3-login", path="/lti/")  # withheld, as SameSite does on plain http
    client.delete_cookie("session")  # where pylti1p3 kept the nonce
    token = platform.sign(platform.claims(auth["nonce"]))
    response = client.post("/lti/launch", data={"id_token": token, "state": auth["state"]})
    assert response.status_code == 400 and "did not begin in this browser" in response.get_data(as_text=True)
    assert "LTI launch refused (state)" in caplog.text and "replayed" not in caplog.text
