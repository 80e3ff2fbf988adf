"""The learner model's writes: store a moment's observations and fold them into the learner's skill states, in the
caller's transaction (the attempt's, the practice check's, the hint's); replay them after a regrade.

The model itself (grader.adaptive) is pure; this module reads and writes its tables. Nothing here refits: the
parameters are those `flask adaptive fit` stored for the course, else bkt.DEFAULT.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Mapping, Sequence

import sqlalchemy as sa

from grader.adaptive import bkt, evidence
from grader.adaptive.model import Observation, SkillState, fresh, history_of, replay, step
from grader.catalog.skills import skill_order
from grader.catalog.spec import CODE_KIND, ExerciseSpec
from grader.codecheck.spec import CodeExerciseSpec
from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillParams, SkillState as StateRow
from grader.models import utcnow
from grader.services import exercises
from grader.services.courses import Seat
from grader.services.dialect import for_session, per_dialect

_EVENTS, _STATES, _PARAMS = SkillEvent.__table__, StateRow.__table__, SkillParams.__table__
# The rows that note a practice answer already checked (its fingerprint in `part`) have a source of their own and no
# skill, so no reader of the evidence (a replay, a fit, the recent mistakes) ever takes one for an observation.
CHECKED, NO_SKILL = "checked", ""
_STATE_KEY = [_STATES.c.course_id, _STATES.c.user_id, _STATES.c.skill]
_NEW_STATE = per_dialect(lambda d: d.insert(_STATES).on_conflict_do_nothing(index_elements=_STATE_KEY))


def params_for(course_id: int, skills: Iterable[str]) -> dict[str, bkt.Params]:
    """Each skill's BKT parameters in the course: fitted ones where stored, else the defaults."""
    wanted = list(skills)
    rows = db.session.execute(sa.select(_PARAMS).where(_PARAMS.c.course_id == course_id,
                                                       _PARAMS.c.skill.in_(wanted))).mappings()  # fmt: skip
    fitted = {r["skill"]: bkt.Params(r["prior"], r["learn"], r["guess"], r["slip"]) for r in rows}
    return {skill: fitted.get(skill, bkt.DEFAULT) for skill in wanted}


def _event_row(seat: Seat, exercise_id: str, attempt_id: int | None, o: Observation) -> dict[str, object]:
    return {"course_id": seat.course_id, "user_id": seat.user_id, "exercise_id": exercise_id, "attempt_id": attempt_id,
            "source": o.source, "part": o.part, "skill": o.skill, "correct": o.correct, "mistake": o.mistake,
            "at": o.at}  # fmt: skip


def _locked_states(seat: Seat, params: dict[str, bkt.Params]) -> dict[str, SkillState]:
    """The learner's states of these skills, made where missing, locked until the transaction ends."""
    key = {"course_id": seat.course_id, "user_id": seat.user_id}
    db.session.execute(for_session(_NEW_STATE), [{**key, "skill": s, "p_known": p.prior, "evidence": 0,
                                                  "updated_at": utcnow()} for s, p in params.items()])  # fmt: skip
    mine = sa.select(_STATES).where(_STATES.c.course_id == seat.course_id, _STATES.c.user_id == seat.user_id,
                                    _STATES.c.skill.in_(list(params)))  # fmt: skip
    rows = db.session.execute(mine.with_for_update()).mappings()
    return {r["skill"]: SkillState(r["skill"], r["p_known"], r["evidence"], r["card"], r["due_at"]) for r in rows}


_UPDATE_STATE = sa.update(_STATES).where(
    _STATES.c.course_id == sa.bindparam("b_course"), _STATES.c.user_id == sa.bindparam("b_user"),
    _STATES.c.skill == sa.bindparam("b_skill"),
).values(p_known=sa.bindparam("b_p"), evidence=sa.bindparam("b_evidence"), card=sa.bindparam("b_card"),
         due_at=sa.bindparam("b_due"), updated_at=sa.bindparam("b_at"))  # fmt: skip


def _store(seat: Seat, states: Iterable[SkillState], now: datetime) -> None:
    """Every changed state in one statement (executemany), however many skills the moment touched."""
    rows = [{"b_course": seat.course_id, "b_user": seat.user_id, "b_skill": s.skill, "b_p": s.p_known,
             "b_evidence": s.evidence, "b_card": s.card, "b_due": s.due_at, "b_at": now} for s in states]  # fmt: skip
    if rows:
        db.session.execute(_UPDATE_STATE, rows)


def record(seat: Seat, exercise_id: str, observations: Sequence[Observation], attempt_id: int | None = None) -> None:
    """Store one moment's observations and fold them into the learner's states (in the caller's transaction)."""
    if not observations:
        return
    params = params_for(seat.course_id, dict.fromkeys(o.skill for o in observations))
    states = _locked_states(seat, params)
    earlier = stored_observations(seat, params)
    db.session.execute(sa.insert(_EVENTS), [_event_row(seat, exercise_id, attempt_id, o) for o in observations])
    _fold(seat, observations, params, states, earlier)


def _fold(seat: Seat, observations: Sequence[Observation], params: dict[str, bkt.Params],
          states: dict[str, SkillState], earlier: Sequence[Observation]) -> None:  # fmt: skip
    """Step the locked states of the skills the moment's observations touch, after the `earlier` stored ones (the
    learner's curve so far), and store them."""
    if not observations:
        return
    touched = [skill for skill in params if any(o.skill == skill for o in observations)]
    if any(o.at > observations[0].at for o in earlier if o.skill in touched):
        # A moment stored meanwhile bears a later time (this one was stamped before it waited for the lock): fold
        # them all in time order, as a replay would, so that a later replay changes nothing.
        recompute(seat, touched)
        return
    _store(seat, [step(states[s], [o for o in observations if o.skill == s], params[s], history_of(s, earlier))
                  for s in touched], observations[0].at)  # fmt: skip


def record_check(seat: Seat, exercise_id: str, observations: Sequence[Observation],
                 fingerprints: Mapping[str, str]) -> None:  # fmt: skip
    """Store a practice check's observations, but none of a part whose answer was already checked on the same numbers
    (`fingerprints`: each answered part's practice.fingerprint); note the new answers' fingerprints. In the caller's
    transaction."""
    params = params_for(seat.course_id, dict.fromkeys(o.skill for o in observations))
    if not params:
        return
    states = _locked_states(seat, params)  # first: the same answers checked twice at once wait here, then see them
    noted = set(db.session.scalars(sa.select(_EVENTS.c.part).where(
        _EVENTS.c.course_id == seat.course_id, _EVENTS.c.user_id == seat.user_id, _EVENTS.c.skill == NO_SKILL,
        _EVENTS.c.source == CHECKED, _EVENTS.c.exercise_id == exercise_id,
        _EVENTS.c.part.in_(list(fingerprints.values())))))  # fmt: skip
    new = {part for part, mark in fingerprints.items() if mark not in noted}
    shown = [o for o in observations if o.part in new]
    marks = [Observation(NO_SKILL, None, observations[0].at, CHECKED, None, fingerprints[part]) for part in new]
    earlier = stored_observations(seat, params) if shown else []
    if marks:  # the notes and the observations in one statement
        db.session.execute(sa.insert(_EVENTS), [_event_row(seat, exercise_id, None, o) for o in [*marks, *shown]])
    _fold(seat, shown, params, states, earlier)


def _spec(exercise_id: str) -> ExerciseSpec | CodeExerciseSpec:
    version = exercises.existing_version(exercise_id)
    kind = exercises.existing(exercise_id).kind
    return exercises.code_spec_of(version) if kind == CODE_KIND else exercises.spec_of(version)


def helped(seat: Seat, exercise_id: str, source: str, now: datetime) -> None:
    """Note a hint or a give-up on each of the exercise's skills (in the caller's transaction)."""
    record(seat, exercise_id, evidence.of_help(_spec(exercise_id), now, source))


def replay_exercise(seat: Seat, exercise_id: str) -> None:
    """Replay the learner's states of the exercise's skills from their stored observations (after an override: the
    score changed, the answers did not, so the states are what the stored answers make them)."""
    recompute(seat, evidence.exercise_skills(_spec(exercise_id)))


def stored_observations(seat: Seat, skills: Iterable[str]) -> list[Observation]:
    """The learner's stored observations on these skills in the course, in time order (as they were made)."""
    rows = db.session.execute(sa.select(_EVENTS).where(
        _EVENTS.c.course_id == seat.course_id, _EVENTS.c.user_id == seat.user_id, _EVENTS.c.skill.in_(list(skills)),
    ).order_by(_EVENTS.c.at, _EVENTS.c.id)).mappings()  # fmt: skip
    return [Observation(r["skill"], r["correct"], r["at"], r["source"], r["mistake"], r["part"]) for r in rows]


def rewrite_attempt(seat: Seat, exercise_id: str, attempt_id: int, observations: Sequence[Observation]) -> set[str]:
    """Replace a regraded attempt's observations (made at the attempt's time, so a replay keeps their place);
    returns the skills they touch, old and new."""
    old = db.session.execute(sa.select(_EVENTS.c.skill).where(_EVENTS.c.attempt_id == attempt_id)).scalars().all()
    db.session.execute(sa.delete(_EVENTS).where(_EVENTS.c.attempt_id == attempt_id))
    if observations:
        db.session.execute(sa.insert(_EVENTS), [_event_row(seat, exercise_id, attempt_id, o) for o in observations])
    return set(old) | {o.skill for o in observations}


def recompute(seat: Seat, skills: Iterable[str]) -> None:
    """Rebuild the learner's states of these skills by replaying their stored observations (a regrade, an override)."""
    wanted = sorted(set(skills), key=skill_order)
    if not wanted:
        return
    params = params_for(seat.course_id, wanted)
    _locked_states(seat, params)
    seen = stored_observations(seat, wanted)
    _store(seat, [replay(skill, seen, params[skill]) for skill in wanted], utcnow())


@dataclass(frozen=True)
class Mastery:
    """A learner's skill as pages and the API show it."""

    skill: str
    p_known: float
    mastered: bool
    evidence: int
    due_at: datetime | None


def states_of(seat: Seat) -> dict[str, SkillState]:
    """The learner's stored skill states in the course (skills never practised are absent)."""
    rows = db.session.execute(sa.select(_STATES).where(_STATES.c.course_id == seat.course_id,
                                                       _STATES.c.user_id == seat.user_id)).mappings()  # fmt: skip
    return {r["skill"]: SkillState(r["skill"], r["p_known"], r["evidence"], r["card"], r["due_at"]) for r in rows}


def mastery_of(seat: Seat, skills: Sequence[str]) -> list[Mastery]:
    """The learner's mastery of each of these skills, in order (a skill never practised at its prior)."""
    have = states_of(seat)
    params = params_for(seat.course_id, skills)
    states = [have.get(s) or fresh(s, params[s]) for s in skills]
    return [Mastery(s.skill, s.p_known, s.mastered, s.evidence, s.due_at) for s in states]
