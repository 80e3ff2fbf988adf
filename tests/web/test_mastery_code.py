"""Graded code submissions are evidence for the learner model, stored in the verdict's own transaction; code that
was not graded is none; an override replays it with the rest."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.adaptive import bkt, curve
from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillState
from grader.catalog.spec import NUMERIC_KIND
from grader.models import Exercise
from grader.code_models import Submission
from grader.services import overrides, submissions
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.web.api_support import API, auth
from tests.web.conftest import seat
from tests.web.test_code import rows, send
from tests.web.test_mastery import _user, events, states

SKILL = "layernorm-stats"  # code-layer-norm's skill; its no-eps mistake is not placed elsewhere by the catalogue


def test_passing_code_is_right_on_the_exercises_skill(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD)
    [row] = rows(app)
    assert row.status == "graded"
    assert events(app) == [("code", SKILL, True, None)]
    assert states(app) == {SKILL: (curve.p_known([[True]], bkt.DEFAULT), 1)}
    with app.app_context():  # stored with the verdict: the evidence is dated when the verdict is
        [at] = db.session.scalars(sa.select(SkillEvent.at))
        assert at == db.session.get(Submission, row.id).graded_at


def test_code_with_a_named_mistake_is_wrong_with_that_mistake(app: Flask, learner: FlaskClient) -> None:
    send(learner, NO_EPS)
    assert rows(app)[0].result["misconception"] == "no-eps"
    assert events(app) == [("code", SKILL, False, "no-eps")]
    assert states(app) == {SKILL: (curve.p_known([[False]], bkt.DEFAULT), 1)}


def test_code_that_fails_otherwise_is_wrong(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD.replace("return ", "return 1.5 + "))
    assert (rows(app)[0].result["status"], rows(app)[0].result["misconception"]) == ("failed", None)
    assert events(app) == [("code", SKILL, False, None)]


def test_code_with_a_syntax_error_says_nothing_of_the_skill(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD.replace("def layer_norm(", "def layer_norm(("))
    assert rows(app)[0].status == "failed"  # not graded, not counted
    assert events(app) == [] and states(app) == {}


def test_code_the_sandbox_could_not_grade_says_nothing_of_the_skill(
        app: Flask, learner: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    from grader.sandbox import SandboxUnavailable

    def unavailable() -> None:
        raise SandboxUnavailable("bwrap is not installed")

    monkeypatch.setattr(submissions, "default_pool", unavailable)
    send(learner, GOOD)
    assert rows(app)[0].status == "failed" and events(app) == [] and states(app) == {}


def test_a_second_delivery_of_the_same_verdict_adds_no_evidence(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD)
    with app.app_context():
        spec = submissions.code_spec_of(submissions.current_version("code-layer-norm"))  # type: ignore[arg-type]
        submissions.record(rows(app)[0].id, submissions.CodeResult("passed", 1.0), spec)
    assert events(app) == [("code", SKILL, True, None)]


def test_an_override_on_a_code_exercise_replays_its_code_evidence(app: Flask, learner: FlaskClient) -> None:
    send(learner, NO_EPS)
    send(learner, GOOD)
    live = states(app)[SKILL]
    assert live[1] == 2
    with app.app_context():  # as if the stored state had drifted
        db.session.execute(sa.update(SkillState).values(p_known=0.5, evidence=0))
        db.session.commit()
        overrides.set_score(seat(_user(app)), "code-layer-norm", "90", "a case was unfair", by=_user(app))
    assert states(app)[SKILL] == live


def test_a_mistake_named_in_code_sends_practice_to_its_skill_without_claiming_numbers_expose_it(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    # no-eps is the code grader's mistake; no typed part names it, so no numbers can be chosen to show it.
    made = client.post(f"{API}/exercises/code-layer-norm/submissions", json={"source": NO_EPS}, headers=auth(token))
    assert made.get_json()["result"]["misconception"] == "no-eps"
    with app.app_context():  # done with the lesson's own numbers, so what comes next is practice numbers
        typed_ones = list(db.session.scalars(sa.select(Exercise.id).where(Exercise.lesson == "gpt2-block",
                                                                          Exercise.kind == NUMERIC_KIND)))  # fmt: skip
    for exercise_id in typed_ones:
        assert client.post(f"{API}/exercises/{exercise_id}/give-up", headers=auth(token)).status_code == 200
    reply = client.get(f"{API}/practice/next?lesson=gpt2-block", headers=auth(token))
    assert reply.status_code == 200, reply.get_data(as_text=True)
    body = reply.get_json()
    assert (body["skill"], body["scored"]) == (SKILL, False) and body["numbers"]
    assert "“no ε under the square root”" in body["reason"] and "These numbers make it show" not in body["reason"]


def test_code_sent_again_once_solved_is_no_new_evidence(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD)
    send(learner, GOOD + "\n# the same code, a comment added\n")
    with app.app_context():
        for row in rows(app):
            assert submissions.wait_until_graded(row.id, seconds=120) is not None
    assert [row.score for row in rows(app)] == [1.0, 1.0]
    assert events(app) == [("code", SKILL, True, None)]  # the first solve only
