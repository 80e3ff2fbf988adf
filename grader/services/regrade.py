"""Regrading: the stored attempts on a numeric exercise graded again against its current version.

For an exercise fixed after learners used it (a tolerance too tight, a part that asked the wrong
thing). Each attempt keeps what was typed, its seed, number and time; its verdicts, score and late
mark are recomputed under the current version's rules and the learner's own due date, and it then
counts as graded on that version (earlier scores are not kept: the gradebook shows the new ones).
An attempt the current version cannot read (a part it no longer has, or more digits than were
typed) keeps its verdict and version, and so does one whose answers the learner already sent to
the current version. Best scores and solved times are recomputed from
the attempts, and the learner model's states of the exercise's skills replayed from the stored observations. Each learner is one transaction that locks their progress row first, as an attempt
does: a learner submitting meanwhile waits for it or goes first, and other learners' attempts go
through between two learners (SQLite's write lock is held for one learner at a time). Interrupted,
it can simply be run again: an attempt already regraded grades the same.

The audit trail has one `regrade` event per run, stored before the first learner and brought up to
date in each learner's transaction, so every committed change is on the trail with its counts: while
learners are left to regrade (a run going on, or one that was interrupted) it says how many (`left`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa

from grader import grade_events, wrong_parts
from grader.adaptive import evidence
from grader.catalog.catalog import check_answers
from grader.catalog.spec import CODE_KIND, ExerciseSpec
from grader.extensions import db
from grader.models import Attempt, ExerciseVersion, Progress
from grader.services import audit, mastery
from grader.services.courses import Seat
from grader.services.dialect import lock_rows
from grader.services.attempts import CodeExercise
from grader.services.course_rules import for_learner
from grader.services.exercises import current_version, existing, spec_of, variant_of


@dataclass
class Regraded:
    """What a regrade did."""

    version: int
    attempts: int = 0  # seen
    changed: int = 0  # attempts whose score changed
    kept: list[int] = field(default_factory=list)  # ids of attempts left as they were
    learners: set[int] = field(default_factory=set)

    def add(self, part: Regraded) -> None:
        """Count one course's part of the run in."""
        self.attempts, self.changed = self.attempts + part.attempts, self.changed + part.changed
        self.kept.extend(part.kept)
        self.learners |= part.learners


def regrade(exercise_id: str, by: int | None = None, course_id: int | None = None) -> Regraded:
    """Grade every attempt on the exercise in one course (None: in every course, one after another) again
    against its current version; commits per learner.

    `by` is the instructor who asked (None: an operator); each course's audit trail has an event for its part.
    An instructor regrades in their course only: a shared exercise's learners in other courses are their
    instructors' to regrade.
    """
    current = _numeric_version(exercise_id)
    spec = spec_of(current)
    by_course = _learners_by_course(exercise_id, course_id) or {course_id: []}  # no one: still an event
    db.session.rollback()
    report = Regraded(current.version)
    for course, learners in by_course.items():
        part = Regraded(current.version)
        event = audit.record(by, "regrade", None, exercise_id, course_id=course, **_so_far(part, len(learners)))
        for done, seat in enumerate(learners, start=1):
            policy = for_learner(spec, seat)
            _regrade_learner(seat, current, policy, part, event, len(learners) - done)
        report.add(part)
    return report


def _learners_by_course(exercise_id: str, course_id: int | None) -> dict[int | None, list[Seat]]:
    """Everyone with an attempt on the exercise, by course (in one course when `course_id` is given)."""
    found = sa.select(Attempt.course_id, Attempt.user_id).where(Attempt.exercise_id == exercise_id)
    if course_id is not None:
        found = found.where(Attempt.course_id == course_id)
    by_course: dict[int | None, list[Seat]] = {}
    for course, user in db.session.execute(found.distinct().order_by(Attempt.course_id, Attempt.user_id)):
        by_course.setdefault(course, []).append(Seat(course, user))
    return by_course


def _so_far(report: Regraded, left: int) -> dict[str, int]:
    """The regrade event's details: the run's counts, and the learners still to regrade while there are some."""
    counts = {"version": report.version, "attempts": report.attempts, "changed": report.changed,
              "kept": len(report.kept)}  # fmt: skip
    return {**counts, "left": left} if left else counts


def _regrade_learner(seat: Seat, current: ExerciseVersion, policy: ExerciseSpec, report: Regraded,
                     event_id: int, left: int) -> None:  # fmt: skip
    """One learner's attempts and standing in one course, and the run's audit event brought up to date, in one
    transaction."""
    exercise_id = current.exercise_id
    lock_rows(Progress.best_score, Progress.course_id == seat.course_id, Progress.user_id == seat.user_id,
              Progress.exercise_id == exercise_id)
    mine = list(db.session.scalars(sa.select(Attempt).where(
        Attempt.course_id == seat.course_id, Attempt.user_id == seat.user_id, Attempt.exercise_id == exercise_id
    ).order_by(Attempt.id)))  # fmt: skip
    taken = {a.answers_hash for a in mine if a.version == current.version}
    report.learners.add(seat.user_id)
    report.attempts += len(mine)
    regraded = []
    for attempt in mine:
        if attempt.version != current.version and attempt.answers_hash in taken:
            report.kept.append(attempt.id)
        elif _grade_again(attempt, current, policy, report):
            taken.add(attempt.answers_hash)
            regraded.append(attempt)
    wrong_parts.rewrite(db.session.connection(), [
        {"id": a.id, "user_id": a.user_id, "course_id": a.course_id, "exercise_id": a.exercise_id,
         "answers": a.answers, "results": a.results}
        for a in regraded])  # fmt: skip
    _replay_skills(seat, exercise_id, regraded, policy)
    if _recount(seat, exercise_id, mine, policy):
        grade_events.changed(seat.course_id, seat.user_id, exercise_id)
    audit.amend(event_id, **_so_far(report, left))
    db.session.commit()


def _replay_skills(seat: Seat, exercise_id: str, regraded: list[Attempt], policy: ExerciseSpec) -> None:
    """The regraded attempts' observations rewritten, and the learner's states of their skills replayed."""
    touched: set[str] = set()
    for attempt in regraded:
        seen = evidence.of_results(policy, attempt.results, attempt.created_at)
        touched |= mastery.rewrite_attempt(seat, exercise_id, attempt.id, seen)
    mastery.recompute(seat, touched)


def _numeric_version(exercise_id: str) -> ExerciseVersion:
    exercise = existing(exercise_id)
    if exercise.kind == CODE_KIND:
        raise CodeExercise(exercise_id)
    found = current_version(exercise_id)
    assert found is not None  # an exercise always has its current version
    return found


def _grade_again(attempt: Attempt, current: ExerciseVersion, policy: ExerciseSpec, report: Regraded) -> bool:
    """Regrade one attempt in place; False (and left as it was) when the current version cannot read it."""
    variant = variant_of(current, attempt.seed)
    known = {p.spec.id for p in variant.parts}
    result = check_answers(variant, {k: v for k, v in attempt.answers.items() if k in known})
    if set(attempt.answers) - known or not result.counted:
        report.kept.append(attempt.id)
        return False
    score = policy.kept_score(result.score, attempt.number, attempt.created_at, attempt.hints_used)
    report.changed += score != attempt.score
    attempt.results = {k: r.to_record() for k, r in result.parts.items()}
    attempt.parsed = {k: r.value for k, r in result.parts.items()}
    attempt.raw_score, attempt.score, attempt.late = result.score, score, policy.is_late(attempt.created_at)
    attempt.version = current.version
    return True


def _recount(seat: Seat, exercise_id: str, attempts: list[Attempt], policy: ExerciseSpec) -> bool:
    """Best score and solved time from the learner's attempts in one course, as if they had been graded this way;
    whether either changed."""
    progress = db.session.get(Progress, (seat.course_id, seat.user_id, exercise_id))
    if progress is None:
        return False
    before = (progress.best_score, progress.solved_at)
    solved: list[datetime] = [a.created_at for a in attempts if policy.solves(a.raw_score, a.created_at)]
    progress.best_score = max((a.score for a in attempts), default=0.0)
    progress.solved_at = min(solved, default=None)
    return (progress.best_score, progress.solved_at) != before
