"""Moodle's shapes and the Moodle findings: short role names in the roster, pt_br, custom parameters, token
failures told in one line, and a deep-linking response without a `data` claim when none was sent."""

from __future__ import annotations

import logging
import re

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.lti.models import LtiAccount, OutgoingScore
from tests.lti.conftest import launch, wait_for
from tests.lti.platform import INSTRUCTOR, LEARNER, FakePlatform
from tests.lti.test_deep_linking import DL, tool_decode
from tests.lti.test_scores import answer
from tests.web.conftest import csrf_from

NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


@pytest.fixture
def moodle(platform: FakePlatform) -> FakePlatform:
    platform.moodle = True
    return platform


def test_the_roster_reads_short_role_names_and_says_what_it_skipped(app: Flask, moodle: FakePlatform,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="grader.lti")
    moodle.members = [
        {"user_id": "7", "name": "Bea", "email": "bea@school.example", "roles": [LEARNER], "status": "Active"},
        {"user_id": "8", "name": "Cid", "email": "cid@school.example", "roles": [LEARNER]},
        {"user_id": "9", "name": "Gone", "roles": [LEARNER], "status": "Inactive"},
        {"user_id": "2", "name": "Teacher", "roles": [INSTRUCTOR]},
    ]
    client = app.test_client()
    launch(client, moodle, sub="2", roles=(INSTRUCTOR,), **{NRPS: {"context_memberships_url": f"{moodle.url}/memberships"}})
    page = client.get("/lti/roster").get_data(as_text=True)
    client.post("/lti/roster", data={"csrf_token": csrf_from(page)})
    with app.app_context():
        assert set(db.session.scalars(sa.select(LtiAccount.subject))) == {"2", "7", "8"}
    assert "2 of 4 members skipped (1 not active, 1 not learners (teachers and others))" in caplog.text


def test_the_roster_s_skip_line_reaches_the_log_at_the_service_s_own_level(app: Flask, moodle: FakePlatform,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    # No caplog.set_level here: the app sets its loggers' level itself (GRADER_LOG_LEVEL, default info), as a
    # deployed one must. Left to the root logger's WARNING, a real Moodle's roster pull logged nothing.
    moodle.members = [
        {"user_id": "7", "name": "Bea", "email": "bea@school.example", "roles": [LEARNER], "status": "Active"},
        {"user_id": "2", "name": "Teacher", "roles": [INSTRUCTOR]},
    ]
    client = app.test_client()
    launch(client, moodle, sub="2", roles=(INSTRUCTOR,), **{NRPS: {"context_memberships_url": f"{moodle.url}/memberships"}})
    page = client.get("/lti/roster").get_data(as_text=True)
    client.post("/lti/roster", data={"csrf_token": csrf_from(page)})
    assert "1 of 2 members skipped (1 not learners (teachers and others))" in caplog.text


def test_a_moodle_launch_in_pt_br_with_custom_parameters(app: Flask, moodle: FakePlatform) -> None:
    client = app.test_client()
    response = launch(client, moodle, custom={"exercise": "block-layernorm", "extra": "ignored"})
    assert response.headers["Location"].endswith("/exercises/block-layernorm")
    assert '<html lang="pt"' in client.get("/exercises/block-layernorm").get_data(as_text=True)


def test_a_refused_token_request_is_one_line_without_the_page_or_the_url(app: Flask, moodle: FakePlatform,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="grader.lti")
    moodle.refuse_tokens = True
    client = app.test_client()
    launch(client, moodle, custom={"exercise": "block-layernorm"})
    answer(app, client, right=True)

    def failed() -> list[OutgoingScore]:
        with app.app_context():
            return [r for r in db.session.scalars(sa.select(OutgoingScore)) if r.tries >= 1]

    [row] = wait_for(failed)
    assert row.last_error == "token or service request refused by 127.0.0.1: HTTP 400"
    [record] = [r for r in caplog.records if "not sent" in r.getMessage()]
    assert "\n" not in record.getMessage() and "<" not in record.getMessage() and "http://" not in record.getMessage()


def test_a_deep_linking_response_has_no_data_claim_when_the_request_had_none(app: Flask, moodle: FakePlatform) -> None:
    client = app.test_client()
    settings = {"deep_link_return_url": f"{moodle.url}/deep-link-return", "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"]}
    launch(client, moodle, sub="2", roles=(INSTRUCTOR,), message_type="LtiDeepLinkingRequest", resource_link=None,
           **{DL + "deep_linking_settings": settings})
    page = client.get("/lti/pick").get_data(as_text=True)
    html = client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": "exercise:block-layernorm"}
                       ).get_data(as_text=True)  # fmt: skip
    token = re.search(r'name="JWT" value="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    message = tool_decode(moodle, token)
    assert DL + "data" not in message and len(message[DL + "content_items"]) == 1
