"""Launches that must be refused: each says which check failed, creates nothing, and is logged."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import time
from typing import Any, Callable

import jwt
import pytest
import sqlalchemy as sa
from cryptography.hazmat.primitives import serialization
from flask import Flask

from grader.extensions import db
from grader.lti.models import GradeLink, LtiAccount, UsedNonce
from grader.models import SignIn, User
from tests.lti.conftest import launch, start_login
from grader.lti.launch import CLAIM
from tests.lti.platform import LEARNER, FakePlatform, new_key


def nothing_made(app: Flask) -> None:
    with app.app_context():
        for model in (User, LtiAccount, GradeLink, SignIn):
            assert db.session.scalar(sa.select(sa.func.count()).select_from(model)) == 0, model


def refused(app: Flask, response, words: str, caplog: pytest.LogCaptureFixture, reason: str) -> None:  # type: ignore[no-untyped-def]
    page = response.get_data(as_text=True)
    assert response.status_code == 400, page
    assert words in page
    assert f"LTI launch refused ({reason})" in caplog.text
    nothing_made(app)


@pytest.fixture(autouse=True)
def _log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="grader.lti")


def test_an_expired_token(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    past = int(time.time()) - 3600
    response = launch(app.test_client(), platform, iat=past - 300, exp=past)
    refused(app, response, "This launch has expired", caplog, "expired")


def test_a_replayed_token(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    client = app.test_client()
    auth = start_login(client, platform)
    form = {"id_token": platform.sign(platform.claims(auth["nonce"])), "state": auth["state"]}
    assert client.post("/lti/launch", data=form).status_code == 303
    with app.app_context():
        before = db.session.scalar(sa.select(sa.func.count()).select_from(SignIn))
    again = client.post("/lti/launch", data=form)
    assert again.status_code == 400 and "was used already" in again.get_data(as_text=True)
    assert "LTI launch refused (replayed)" in caplog.text
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(SignIn)) == before
        assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 1


def test_a_token_replayed_in_another_browser_session(app: Flask, platform: FakePlatform,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    client = app.test_client()
    auth = start_login(client, platform)
    form = {"id_token": platform.sign(platform.claims(auth["nonce"])), "state": auth["state"]}
    assert client.post("/lti/launch", data=form).status_code == 303
    thief = app.test_client()
    thief_auth = start_login(thief, platform)  # a login of its own: a state cookie, but another nonce
    again = thief.post("/lti/launch", data={**form, "state": thief_auth["state"]})
    assert again.status_code == 400 and "LTI launch refused (replayed)" in caplog.text


def test_a_spent_nonce_is_refused_even_with_a_fresh_session_entry(app: Flask, platform: FakePlatform,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    client = app.test_client()
    auth = start_login(client, platform)
    with app.app_context():
        db.session.add(UsedNonce(nonce=auth["nonce"]))
        db.session.commit()
    response = launch_with(client, platform, auth)
    refused(app, response, "was used already", caplog, "replayed")


def launch_with(client, platform: FakePlatform, auth: dict[str, str], **claims):  # type: ignore[no-untyped-def]
    token = platform.sign(platform.claims(auth["nonce"], **claims))
    return client.post("/lti/launch", data={"id_token": token, "state": auth["state"]})


def test_a_token_signed_with_another_key(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    response = launch(app.test_client(), platform, token=lambda nonce: platform.sign(platform.claims(nonce), new_key()))
    refused(app, response, "not signed with the platform", caplog, "signature")


def test_a_token_with_an_unknown_key_id(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    response = launch(app.test_client(), platform, token=lambda nonce: platform.sign(platform.claims(nonce), kid="x"))
    refused(app, response, "not signed with the platform", caplog, "signature")


def test_a_token_for_another_tool(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    response = launch(app.test_client(), platform, aud="another-tool")
    refused(app, response, "addressed to another tool", caplog, "audience")


def test_an_unknown_issuer(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    response = launch(app.test_client(), platform, iss="https://lms.elsewhere.example")
    refused(app, response, "not registered with this site", caplog, "issuer")


def test_an_unknown_issuer_at_login(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    response = app.test_client().get("/lti/login", query_string={"iss": "https://lms.elsewhere.example",
                                                                 "login_hint": "x", "client_id": "c"})
    refused(app, response, "not registered with this site", caplog, "issuer")


def test_an_unknown_deployment(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    response = launch(app.test_client(), platform, deployment_id="deployment-99")
    refused(app, response, "deployment that is not registered", caplog, "deployment")


@pytest.mark.parametrize("claim", ["sub", "version", "roles", "message_type"])
def test_a_missing_claim(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture, claim: str) -> None:
    response = launch(app.test_client(), platform, **{claim: None})
    refused(app, response, "missing information the LTI standard requires", caplog, "claims")


def test_no_id_token_or_garbage(app: Flask, platform: FakePlatform, caplog: pytest.LogCaptureFixture) -> None:
    client = app.test_client()
    start_login(client, platform)
    assert client.post("/lti/launch", data={}).status_code == 400
    response = client.post("/lti/launch", data={"id_token": "not-a-jwt", "state": "x"})
    refused(app, response, "missing information", caplog, "claims")


def test_a_launch_that_did_not_begin_in_this_browser(app: Flask, platform: FakePlatform,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    auth = start_login(app.test_client(), platform)
    response = launch_with(app.test_client(), platform, auth)  # another browser: no state cookie, no nonce
    refused(app, response, "did not begin in this browser", caplog, "state")


def test_refusals_are_translated(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    auth = start_login(client, platform)
    token = platform.sign(platform.claims(auth["nonce"], aud="another-tool"))
    page = client.post("/lti/launch", data={"id_token": token, "state": auth["state"]},
                       headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert "another tool" not in page and "lang=\"ru\"" in page


def _unsigned(platform: FakePlatform) -> Callable[[str], str]:
    def token(nonce: str) -> str:  # alg "none": a header and claims with no signature at all
        return jwt.encode(platform.claims(nonce), None, algorithm="none", headers={"kid": "platform-key-1"})
    return token


def _keyed_with_the_public_key(platform: FakePlatform) -> Callable[[str], str]:
    def token(nonce: str) -> str:  # algorithm confusion: HS256 keyed with the platform's public key
        public = platform.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                        serialization.PublicFormat.SubjectPublicKeyInfo)  # fmt: skip
        header = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "platform-key-1"}).encode())
        body = base64.urlsafe_b64encode(json.dumps(platform.claims(nonce)).encode())
        signed = header.rstrip(b"=") + b"." + body.rstrip(b"=")
        mac = base64.urlsafe_b64encode(hmac.new(public, signed, hashlib.sha256).digest()).rstrip(b"=")
        return (signed + b"." + mac).decode()
    return token


def _replacing(platform: FakePlatform, **replaced: Any) -> Callable[[str], str]:
    def token(nonce: str) -> str:  # claims set as they are (claims() reads `nonce` and `roles` itself)
        return platform.sign({**platform.claims(nonce), **replaced})
    return token


REPLACED: dict[str, dict[str, Any]] = {
    "roles as one string": {CLAIM + "roles": LEARNER},
    "nonce as an object": {"nonce": {"n": 1}},
}
FORGED_SHAPES: dict[str, dict[str, Any]] = {
    "sub as a number": {"sub": 12345},
    "sub empty": {"sub": ""},
    "sub of 10,000 characters": {"sub": "s" * 10_000},
    "an unknown message type": {"message_type": "LtiSomethingElse"},
    "LTI 1.1's version": {"version": "1.1"},
    "deployment id as a list": {"deployment_id": ["deployment-1"]},
    "issued an hour ahead": {"iat": int(time.time()) + 3600, "exp": int(time.time()) + 7200},
    "roles holding an object": {"roles": [{"role": LEARNER}]},
}


@pytest.mark.parametrize("shape", ["unsigned", "keyed with the public key", *REPLACED, *FORGED_SHAPES])
def test_a_forged_launch_shape_is_refused_and_makes_nothing(app: Flask, platform: FakePlatform,
                                                          caplog: pytest.LogCaptureFixture, shape: str) -> None:  # fmt: skip
    makers = {"unsigned": _unsigned, "keyed with the public key": _keyed_with_the_public_key}
    if shape in makers:
        response = launch(app.test_client(), platform, token=makers[shape](platform))
    elif shape in REPLACED:
        response = launch(app.test_client(), platform, token=_replacing(platform, **REPLACED[shape]))
    else:
        response = launch(app.test_client(), platform, **FORGED_SHAPES[shape])
    assert response.status_code == 400, (shape, response.status_code)
    assert "LTI launch refused (" in caplog.text and "Traceback" not in response.get_data(as_text=True)
    nothing_made(app)
