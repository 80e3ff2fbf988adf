"""Grade passback: attempts and code submissions send the learner's score to the line item, through a
persistent outbox that survives a platform that is down."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.lti import outbox
from grader.lti.models import OutgoingScore
from grader.models import utcnow
from tests.layer_norm_sources import GOOD
from tests.lti.conftest import launch, wait_for
from tests.lti.platform import CLIENT_ID, FakePlatform
from tests.web.test_code import send
from tests.web.test_learn import expected, fmt, post_answers

EMAIL = "learner-1@school.example"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"


def launched(app: Flask, platform: FakePlatform, exercise: str) -> FlaskClient:
    client = app.test_client()
    assert launch(client, platform, custom={"exercise": exercise}).status_code == 303
    return client


def answer(app: Flask, client: FlaskClient, right: bool) -> None:
    off = 0.0 if right else 1.0
    answers = {k: fmt([x + off for x in v] if isinstance(v, list) else v + off)  # type: ignore[operator]
               for k, v in expected(app, "block-layernorm", EMAIL).items()}
    assert post_answers(client, "block-layernorm", answers).status_code in (200, 303)


def outbox_rows(app: Flask) -> list[OutgoingScore]:
    with app.app_context():
        return list(db.session.scalars(sa.select(OutgoingScore).order_by(OutgoingScore.id)))


def test_each_attempt_that_changes_the_score_is_sent_to_the_line_item(app: Flask, platform: FakePlatform) -> None:
    client = launched(app, platform, "block-layernorm")
    answer(app, client, right=False)
    first = wait_for(lambda: platform.scores)[0]
    assert first["path"] == "/lineitems/1/scores?course=1"
    assert first["type"] == "application/vnd.ims.lis.v1.score+json"
    score = first["score"]
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == ("learner-1", 0.0, 100.0)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Submitted", "FullyGraded")
    assert score["timestamp"].endswith("Z")
    answer(app, client, right=True)
    second = wait_for(lambda: platform.scores[1:])[0]["score"]
    assert (second["scoreGiven"], second["activityProgress"]) == (100.0, "Completed")
    assert second["timestamp"] >= score["timestamp"]
    # The tool's client assertion was checked against its own /lti/jwks by the token endpoint.
    claims = platform.token_requests[0]["claims"]
    assert (claims["iss"], claims["sub"]) == (CLIENT_ID, CLIENT_ID)
    assert platform.token_requests[0]["form"]["scope"] == SCORE_SCOPE
    wait_for(lambda: all(row.sent_at is not None for row in outbox_rows(app)))  # recorded after the reply


def test_an_attempt_that_changes_nothing_sends_nothing(app: Flask, platform: FakePlatform) -> None:
    client = launched(app, platform, "block-layernorm")
    answer(app, client, right=True)
    wait_for(lambda: platform.scores)
    answer(app, client, right=False)  # a worse attempt: the kept score stays 100
    assert len(outbox_rows(app)) == 1


def test_a_graded_code_submission_is_sent(app: Flask, platform: FakePlatform) -> None:
    client = launched(app, platform, "code-layer-norm")
    assert send(client, GOOD).status_code == 303
    score = wait_for(lambda: platform.scores, seconds=120)[0]["score"]
    assert (score["userId"], score["scoreGiven"], score["activityProgress"]) == ("learner-1", 100.0, "Completed")


def test_scores_wait_while_the_platform_is_down_and_go_once_it_is_back(app: Flask, platform: FakePlatform) -> None:
    client = launched(app, platform, "block-layernorm")
    platform.down = True
    answer(app, client, right=False)
    answer(app, client, right=True)  # the learner's page never waits on the platform
    wait_for(lambda: all(row.tries >= 1 or row.last_error == "superseded" for row in outbox_rows(app))
             and any(row.tries >= 1 for row in outbox_rows(app)))
    assert platform.scores == []
    with app.app_context():
        assert outbox.waiting() >= 1
        assert outbox.deliver_due().sent == []  # its next try is later: nothing due yet
    platform.down = False
    with app.app_context():  # the backoff passes
        db.session.execute(sa.update(OutgoingScore).values(next_try_at=utcnow() - timedelta(seconds=1)))
        db.session.commit()
    result = app.test_cli_runner().invoke(args=["submissions", "reap"])
    assert "LTI scores sent 1" in result.output, result.output
    # Only the latest score went: the older one, superseded, would have been overwritten anyway.
    assert [s["score"]["scoreGiven"] for s in platform.scores] == [100.0]
    with app.app_context():
        assert outbox.waiting() == 0


def test_sending_a_score_again_sends_the_same_score_and_timestamp(app: Flask, platform: FakePlatform) -> None:
    client = launched(app, platform, "block-layernorm")
    answer(app, client, right=True)
    wait_for(lambda: all(row.sent_at is not None for row in outbox_rows(app)))
    with app.app_context():  # as if the sender died before recording the send
        db.session.execute(sa.update(OutgoingScore).values(sent_at=None, next_try_at=utcnow()))
        db.session.commit()
        assert len(outbox.deliver_due().sent) == 1
    first, again = platform.scores
    assert first["score"] == again["score"]  # same timestamp: the platform keeps one score
