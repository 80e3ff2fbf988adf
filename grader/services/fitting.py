"""`flask adaptive fit`: BKT parameters per skill from one course's stored answers, then every learner's states
replayed with them. Run by an operator now and then (never per request); too little data keeps the defaults."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from grader.adaptive import bkt
from grader.catalog.skills import skill_order
from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillParams
from grader.models import utcnow
from grader.services import mastery
from grader.services.courses import Seat


@dataclass(frozen=True)
class Fitted:
    """One skill's outcome in one course."""

    skill: str
    fit: bkt.Fit


def answer_sequences(course_id: int) -> dict[str, list[list[bool]]]:
    """Per skill, each learner's answers in the course (right or wrong), in the order they were given."""
    e = SkillEvent
    rows = db.session.execute(sa.select(e.skill, e.user_id, e.correct).where(
        e.course_id == course_id, e.correct.is_not(None)).order_by(e.skill, e.user_id, e.at, e.id))  # fmt: skip
    found: dict[str, dict[int, list[bool]]] = {}
    for skill, user_id, correct in rows:
        found.setdefault(skill, {}).setdefault(user_id, []).append(bool(correct))
    return {skill: list(by_user.values()) for skill, by_user in found.items()}


def fit_course(course_id: int) -> list[Fitted]:
    """Fit each skill the course has answers on, store the fitted ones and replay its learners' states; commits."""
    outcomes = [Fitted(skill, bkt.fit(seqs)) for skill, seqs in answer_sequences(course_id).items()]
    for done in outcomes:
        if done.fit.fitted:
            p = done.fit.params
            db.session.merge(SkillParams(course_id=course_id, skill=done.skill, prior=p.prior, learn=p.learn,
                                         guess=p.guess, slip=p.slip, learners=done.fit.learners,
                                         observations=done.fit.observations, fitted_at=utcnow()))  # fmt: skip
    db.session.flush()
    refitted = [d.skill for d in outcomes if d.fit.fitted]
    learners = db.session.scalars(sa.select(SkillEvent.user_id).where(SkillEvent.course_id == course_id).distinct())
    for user_id in list(learners):
        mastery.recompute(Seat(course_id, user_id), refitted)
    db.session.commit()
    return sorted(outcomes, key=lambda d: skill_order(d.skill))
