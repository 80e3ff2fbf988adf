"""Deep linking: an instructor picks from the catalogue and the LMS gets a signed resource link with a line item."""

from __future__ import annotations

import json
import re

import jwt
from flask import Flask
from flask.testing import FlaskClient
from jwt.algorithms import RSAAlgorithm

from tests.lti.conftest import launch
from tests.lti.platform import CLAIM, CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, FakePlatform
from tests.web.conftest import csrf_from

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"


def deep_link_launch(client: FlaskClient, platform: FakePlatform, roles: tuple[str, ...] = (INSTRUCTOR,)):  # type: ignore[no-untyped-def]
    settings = {"deep_link_return_url": f"{platform.url}/deep-link-return", "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"], "data": "opaque-42"}
    return launch(client, platform, sub="teacher-1", roles=roles, message_type="LtiDeepLinkingRequest",
                  resource_link=None, deep_linking_settings=None, **{DL + "deep_linking_settings": settings})


def tool_decode(platform: FakePlatform, token: str) -> dict:  # type: ignore[type-arg]
    [key] = platform.tool_jwks["keys"]
    assert jwt.get_unverified_header(token)["kid"] == key["kid"]
    return jwt.decode(token, RSAAlgorithm.from_jwk(json.dumps(key)), algorithms=["RS256"], audience=platform.issuer)


def test_an_instructor_picks_an_exercise_and_the_lms_gets_a_signed_resource_link(app: Flask,
                                                                                 platform: FakePlatform) -> None:
    client = app.test_client()
    response = deep_link_launch(client, platform)
    assert response.status_code == 303 and response.headers["Location"].endswith("/lti/pick")
    page = client.get("/lti/pick").get_data(as_text=True)
    assert 'value="lesson:gpt2-block"' in page and 'value="exercise:block-layernorm"' in page
    answer = client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": "exercise:block-layernorm"})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and f'action="{platform.url}/deep-link-return"' in html
    assert f"form-action 'self' {platform.url}" in answer.headers["Content-Security-Policy"]
    token = re.search(r'name="JWT" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    message = tool_decode(platform, token)  # signed with the key the tool publishes
    assert (message["iss"], message[CLAIM + "deployment_id"]) == (CLIENT_ID, DEPLOYMENT_ID)
    assert message[CLAIM + "message_type"] == "LtiDeepLinkingResponse" and message[DL + "data"] == "opaque-42"
    [item] = message[DL + "content_items"]
    assert item["type"] == "ltiResourceLink" and item["url"] == "http://localhost/lti/launch"
    assert item["custom"] == {"exercise": "block-layernorm"}
    assert item["lineItem"]["scoreMaximum"] == 100.0 and item["lineItem"]["resourceId"] == "exercise:block-layernorm"
    # The link it made launches learners onto that exercise.
    learner = app.test_client()
    assert launch(learner, platform, custom=item["custom"]).headers["Location"].endswith("/exercises/block-layernorm")


def test_a_whole_lesson_can_be_picked(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    deep_link_launch(client, platform)
    page = client.get("/lti/pick").get_data(as_text=True)
    html = client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": "lesson:ffn-memory"}).get_data(as_text=True)
    token = re.search(r'name="JWT" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    [item] = tool_decode(platform, token)[DL + "content_items"]
    assert item["custom"] == {"lesson": "ffn-memory"}


def test_the_picker_refuses_learners_unknown_items_and_forged_forms(app: Flask, platform: FakePlatform) -> None:
    learner = app.test_client()
    assert deep_link_launch(learner, platform, roles=("http://purl.imsglobal.org/vocab/lis/v2/membership#Learner",)
                            ).status_code == 403
    assert app.test_client().get("/lti/pick").status_code == 403  # not from a deep-linking launch
    client = app.test_client()
    deep_link_launch(client, platform)
    page = client.get("/lti/pick").get_data(as_text=True)
    assert client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": "exercise:nope"}).status_code == 400
    assert client.post("/lti/pick", data={"target": "exercise:block-layernorm"}).status_code == 400  # no CSRF token
