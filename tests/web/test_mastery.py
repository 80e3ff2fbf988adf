"""The learner model's state per skill: written in the transaction of each graded attempt, practice check, hint and
give-up; replayed by a regrade and an override; practice never changes a score."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.adaptive import bkt, curve
from grader.adaptive.model import ATTEMPT, Observation
from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillState
from grader.models import Progress, utcnow
from grader.services import accounts, mastery, overrides, regrade
from tests.web.api_support import ADA, API, EXERCISE, MISTAKE, answers_of, attempt_rows, auth, post, typed
from tests.web.conftest import seat


def _user(app: Flask, email: str = ADA) -> int:
    with app.app_context():
        user = accounts.user_by_email(email)
        assert user is not None
        return user.id


def states(app: Flask, email: str = ADA) -> dict[str, tuple[float, int]]:
    with app.app_context():
        rows = db.session.scalars(sa.select(SkillState).where(SkillState.user_id == _user(app, email)))
        return {r.skill: (r.p_known, r.evidence) for r in rows}


def events(app: Flask) -> list[tuple[str, str, bool | None, str | None]]:
    with app.app_context():
        rows = db.session.scalars(sa.select(SkillEvent).order_by(SkillEvent.id))
        return [(r.source, r.skill, r.correct, r.mistake) for r in rows]


def test_a_graded_attempt_with_a_named_mistake_lowers_the_skill_and_is_stored_with_it(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app, mistake=MISTAKE))).status_code == 201
    assert events(app) == [("attempt", "layernorm-stats", False, MISTAKE)] * 3  # mu, sigma and u
    p_known, evidence = states(app)["layernorm-stats"]
    expected = curve.p_known([[False] * 3], bkt.DEFAULT)  # one opportunity, three wrong answers
    assert evidence == 3 and abs(p_known - expected) < 1e-9 and p_known < bkt.DEFAULT.prior
    assert post(client, token, typed(answers_of(app))).status_code == 201
    assert states(app)["layernorm-stats"][0] > p_known and states(app)["layernorm-stats"][1] == 6


def test_an_unreadable_answer_stores_no_attempt_and_moves_no_skill(app: Flask, client: FlaskClient, token: str) -> None:
    assert post(client, token, {"mu": "x", "sigma": "1", "u": "[1; 2; 3; 4]"}).status_code == 422
    assert states(app) == {} and events(app) == []


def test_a_hint_and_a_give_up_are_noted_on_the_exercises_skills(app: Flask, client: FlaskClient, token: str) -> None:
    assert client.post(f"{API}/exercises/{EXERCISE}/hints", headers=auth(token)).status_code == 200
    assert events(app) == [("hint", "layernorm-stats", None, None)]
    assert states(app)["layernorm-stats"] == (bkt.DEFAULT.prior, 0)  # a hint is no answer: P(known) stays
    assert client.post(f"{API}/exercises/{EXERCISE}/give-up", headers=auth(token)).status_code == 200
    assert events(app)[-1] == ("give-up", "layernorm-stats", False, None)
    assert states(app)["layernorm-stats"] == (curve.p_known([[False]], bkt.DEFAULT), 1)  # a wrong answer


def test_a_practice_check_moves_the_skill_but_stores_no_attempt_and_never_changes_the_score(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app))).status_code == 201
    with app.app_context():
        before = db.session.get(Progress, (seat(_user(app)).course_id, _user(app), EXERCISE))
        assert before is not None
        scored = (before.best_score, before.attempts_used, before.solved_at)
    numbers = client.get(f"{API}/exercises/{EXERCISE}/practice", headers=auth(token)).get_json()["numbers"]
    wrong = {"mu": "0.000", "sigma": "0.000", "u": "[0.000; 0.000; 0.000; 0.000]"}
    reply = client.post(f"{API}/exercises/{EXERCISE}/practice", json={"numbers": numbers, "answers": wrong},
                        headers=auth(token))  # fmt: skip
    assert reply.status_code == 200
    assert [e for e in events(app) if e[0] == "practice"] == [("practice", "layernorm-stats", False, None)] * 3
    assert states(app)["layernorm-stats"][1] == 6
    with app.app_context():
        after = db.session.get(Progress, (seat(_user(app)).course_id, _user(app), EXERCISE))
        assert after is not None and (after.best_score, after.attempts_used, after.solved_at) == scored
    assert len(attempt_rows(app)) == 1


def test_a_regrade_rewrites_the_attempts_evidence_and_replays_the_state(app: Flask, client: FlaskClient,
                                                                        token: str) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app, mistake=MISTAKE))).status_code == 201
    live = states(app)["layernorm-stats"]
    with app.app_context():  # as if the stored state had drifted (parameters refitted, a release that missed one)
        db.session.execute(sa.update(SkillState).values(p_known=0.5, evidence=0))
        db.session.execute(sa.delete(SkillEvent).where(SkillEvent.part == "u"))
        db.session.commit()
        regrade.regrade(EXERCISE)
    assert states(app)["layernorm-stats"] == live  # the attempt's observations rebuilt, the state replayed
    assert len(events(app)) == 3


def test_an_override_replays_the_state_from_the_stored_answers(app: Flask, client: FlaskClient, token: str) -> None:
    assert post(client, token, typed(answers_of(app))).status_code == 201
    live = states(app)["layernorm-stats"]
    with app.app_context():
        db.session.execute(sa.update(SkillState).values(p_known=0.01))
        db.session.commit()
        overrides.set_score(seat(_user(app)), EXERCISE, "40", "a typo in the prompt", by=_user(app))
    assert states(app)["layernorm-stats"] == live


def test_mastery_of_a_skill_never_practised_is_its_prior(app: Flask, client: FlaskClient, token: str) -> None:
    with app.app_context():
        shown = mastery.mastery_of(seat(_user(app)), ["gelu"])
    assert [(m.skill, m.p_known, m.evidence, m.mastered) for m in shown] == [("gelu", bkt.DEFAULT.prior, 0, False)]


def test_a_moment_stamped_before_one_stored_meanwhile_is_folded_as_a_replay_would(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    # An attempt stamps its time, then waits for the learner's lock while a code verdict, stamped later, is stored.
    later = utcnow()
    with app.app_context():
        mine = seat(_user(app))
        mastery.record(mine, EXERCISE, [Observation("layernorm-stats", True, later, ATTEMPT, None, "mu")])
        mastery.record(mine, EXERCISE, [Observation("layernorm-stats", False, later - timedelta(seconds=5), ATTEMPT,
                                                    "sample-variance", "mu")])  # fmt: skip
        db.session.commit()
        live = mastery.states_of(mine)["layernorm-stats"]
        mastery.recompute(mine, ["layernorm-stats"])
        db.session.commit()
        assert mastery.states_of(mine)["layernorm-stats"] == live
    assert live.p_known == curve.p_known([[False], [True]], bkt.DEFAULT)  # in time order, not in the order stored
