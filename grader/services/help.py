"""Help for a stuck learner: hints on request, and giving up to see the worked solution.

A hint is one more step of the worked solution, with the learner's own numbers. Each costs later
attempts the exercise's `hint_penalty`. Giving up ends scoring on the learner's variant (their
attempts so far keep their scores) and shows the solution; practice with new numbers opens.
Both are single conditional writes, so two clicks at once count once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Sequence, cast

import sqlalchemy as sa

from grader.catalog.policy import AttemptPolicy
from grader.codecheck.spec import CodeExerciseSpec
from grader.extensions import db
from grader.models import Progress, utcnow
from grader.adaptive.model import GIVE_UP, HINT
from grader.services import attempts, exercises, mastery
from grader.services.course_rules import for_learner
from grader.services.courses import Seat
from grader.services.dialect import for_session, per_dialect

_PROGRESS = Progress.__table__
_MINE = ((_PROGRESS.c.course_id == sa.bindparam("cid")) & (_PROGRESS.c.user_id == sa.bindparam("uid"))
         & (_PROGRESS.c.exercise_id == sa.bindparam("eid")))
_STILL_SCORING = _PROGRESS.c.solved_at.is_(None) & _PROGRESS.c.gave_up_at.is_(None)
_ENSURE = per_dialect(
    lambda d: d.insert(_PROGRESS).values(course_id=sa.bindparam("cid"), user_id=sa.bindparam("uid"),
                                         exercise_id=sa.bindparam("eid"))
    .on_conflict_do_nothing(index_elements=[_PROGRESS.c.course_id, _PROGRESS.c.user_id, _PROGRESS.c.exercise_id])
)  # fmt: skip
_NEXT_HINT = (
    sa.update(_PROGRESS)
    .where(_MINE, _STILL_SCORING, _PROGRESS.c.hints_used < sa.bindparam("available"))
    .values(hints_used=_PROGRESS.c.hints_used + 1)
)
_GIVE_UP = sa.update(_PROGRESS).where(_MINE, _STILL_SCORING).values(gave_up_at=sa.bindparam("now"))


@dataclass(frozen=True)
class Help:
    """What help the exercise page offers a learner now."""

    hints: tuple[str, ...]  # the steps asked for so far
    remaining: int  # hints still to ask for (0 when hints are not offered)
    penalty: float  # what each hint costs later attempts
    solution_offered: bool  # stuck: counted wrong attempts reached the exercise's `solution_after`
    gave_up: bool
    scoring: bool  # not finished: giving up is still possible


def help_for(policy: AttemptPolicy, steps: Sequence[str], mine: Progress | None, finished: bool) -> Help:
    """The help shown to a learner with progress `mine` on an exercise whose hints are `steps`."""
    used = min(mine.hints_used, len(steps)) if mine else 0
    scoring = not finished
    remaining = len(steps) - used if policy.offer_hints and scoring else 0
    wrong = mine.attempts_used if mine and mine.solved_at is None else 0
    return Help(tuple(steps[:used]), remaining, policy.hint_penalty, scoring and policy.offers_solution(wrong),
                bool(mine and mine.gave_up_at), scoring)  # fmt: skip


def _changed(result: sa.Result[Any]) -> bool:
    return cast(sa.CursorResult[Any], result).rowcount == 1


def _ensure_row(seat: Seat, exercise_id: str) -> dict[str, object]:
    key = {"cid": seat.course_id, "uid": seat.user_id, "eid": exercise_id}
    db.session.execute(for_session(_ENSURE), key)
    return key


def take_hint(seat: Seat, exercise_id: str, available: int) -> bool:
    """Reveal the learner's next hint in the seat's course, if any is left and they are still scoring; True when
    one was."""
    key = _ensure_row(seat, exercise_id)
    taken = _changed(db.session.execute(_NEXT_HINT, {**key, "available": available}))
    if taken:
        mastery.helped(seat, exercise_id, HINT, utcnow())
    db.session.commit()
    return taken


def give_up(seat: Seat, exercise_id: str, now: datetime | None = None) -> bool:
    """End scoring on the learner's variant in the seat's course and open its solution; True unless already
    solved or given up."""
    key = _ensure_row(seat, exercise_id)
    now = now or utcnow()
    ended = _changed(db.session.execute(_GIVE_UP, {**key, "now": now}))
    if ended:
        mastery.helped(seat, exercise_id, GIVE_UP, now)
    db.session.commit()
    return ended


def _code_policy(seat: Seat, exercise_id: str) -> CodeExerciseSpec:
    """A code exercise's spec as it applies to the learner (open: learner_variant checked that before the kind)."""
    return for_learner(exercises.code_spec_of(exercises.existing_version(exercise_id)), seat)


def policy_and_hints(seat: Seat, exercise_id: str, locale: str, early: bool = False) -> tuple[AttemptPolicy, list[str]]:
    """The exercise's policy for the learner and its hints in `locale`, typed answers or code alike. Raises
    UnknownExercise or NotOpen for an exercise the seat's course does not offer them."""
    try:
        stored, variant = attempts.learner_variant(seat, exercise_id, early=early)
        return stored.policy(), list(variant.hints_in(locale))
    except attempts.CodeExercise:
        spec = _code_policy(seat, exercise_id)
        return spec, list(spec.hints_in(locale))


def help_now(seat: Seat, exercise_id: str, locale: str, early: bool = False) -> Help:
    """What help the learner has and may ask for on the exercise now (as its page shows it)."""
    policy, steps = policy_and_hints(seat, exercise_id, locale, early)
    mine = attempts.progress_of(seat, exercise_id)
    return help_for(policy, steps, mine, attempts.finished(mine, policy, utcnow()))


def worked_solution(seat: Seat, exercise_id: str, locale: str, early: bool = False) -> tuple[str, ...] | None:
    """The worked solution with the learner's numbers once they are done with them (as its page shows it);
    None before, with nothing made or stored."""
    try:
        spec: AttemptPolicy = attempts.open_version(seat, exercise_id, early).policy()  # makes no seed
    except attempts.CodeExercise:
        spec = _code_policy(seat, exercise_id)
    if not attempts.finished(attempts.progress_of(seat, exercise_id), spec, utcnow()):
        return None
    if isinstance(spec, CodeExerciseSpec):
        return tuple(spec.solution_in(locale))
    return attempts.learner_variant(seat, exercise_id, early=early)[1].solution_in(locale)
