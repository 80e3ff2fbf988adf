"""`flask adaptive fit`: too little data keeps the defaults and says so; enough data stores fitted parameters and
replays the learners' states with them."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import sqlalchemy as sa
from flask import Flask

from grader.adaptive import bkt, curve
from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillParams, SkillState
from grader.models import utcnow
from grader.services import courses, fitting
from tests.web.conftest import make_user


def test_too_little_data_keeps_the_defaults_and_says_so(app: Flask) -> None:
    uid = make_user(app, "ada@example.com")
    with app.app_context():
        course = courses.ensure_default()
        db.session.add(SkillEvent(course_id=course.id, user_id=uid, exercise_id="block-gelu", source="attempt",
                                  part="neg", skill="gelu", correct=True, at=utcnow()))  # fmt: skip
        db.session.commit()
    said = app.test_cli_runner().invoke(args=["adaptive", "fit", "--course", "default"])
    assert said.exit_code == 0, said.output
    assert "default gelu: too little data (1 learners, 1 answers; a fit needs 10 learners and 200 answers): " \
           "keeps the defaults" in said.output
    with app.app_context():
        assert db.session.scalars(sa.select(SkillParams)).all() == []
    unknown = app.test_cli_runner().invoke(args=["adaptive", "fit", "--course", "nope"])
    assert unknown.exit_code != 0 and "no course with code nope" in unknown.output


def test_enough_answers_are_fitted_stored_and_replayed(app: Flask) -> None:
    true = bkt.Params(prior=0.3, learn=0.2, guess=0.15, slip=0.05)
    answers = bkt.simulate(true, learners=40, length=15, rng=np.random.default_rng(5))
    learners = [make_user(app, f"l{i}@example.com") for i in range(len(answers))]
    start = utcnow() - timedelta(days=1)
    with app.app_context():
        course = courses.ensure_default()
        db.session.add_all(SkillEvent(course_id=course.id, user_id=uid, exercise_id="block-gelu", source="attempt",
                                      part="neg", skill="gelu", correct=right, at=start + timedelta(minutes=k))
                           for uid, seq in zip(learners, answers) for k, right in enumerate(seq))  # fmt: skip
        db.session.commit()
        [done] = fitting.fit_course(course.id)
        stored = db.session.get(SkillParams, (course.id, "gelu"))
        assert done.fit.fitted and stored is not None and stored.observations == 600 and stored.learners == 40
        assert stored.guess <= bkt.GUESS_MAX and stored.slip <= bkt.SLIP_MAX
        states = db.session.scalars(sa.select(SkillState)).all()
        assert len(states) == 40 and all(s.evidence == 15 for s in states)
        fitted = bkt.Params(stored.prior, stored.learn, stored.guess, stored.slip)
        first = db.session.get(SkillState, (course.id, learners[0], "gelu"))
        assert first is not None
        p = curve.p_known([[right] for right in answers[0]], fitted)
        assert abs(first.p_known - p) < 1e-9  # replayed with the fitted parameters
