"""A course's gradebook: its learners × its exercises with best score and attempts, filtered, and as streamed CSV."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from datetime import datetime
from typing import Iterator

import sqlalchemy as sa

from grader.catalog.policy import is_open
from grader.catalog.spec import NUMERIC_KIND
from grader.extensions import db
from grader.catalog.variants import Variant
from grader.models import PUBLISHED, Attempt, Exercise, Progress, User, utcnow
from grader.code_models import Submission
from grader.course_models import LEARNER, CourseMember
from grader.services import attempts, exercises, extensions, submissions
from grader.services.course_content import offered, uses as exercises_used
from grader.services.course_rules import in_order
from grader.services.courses import Seat
from grader.services.exports import BATCH, csv_text, spreadsheet_safe


@dataclass(frozen=True)
class Filters:
    """Which course, and which of its rows and columns to show: a lesson, one exercise, learners whose email
    contains a text."""

    course_id: int
    lesson: str | None = None
    exercise: str | None = None
    learner: str | None = None


@dataclass(frozen=True)
class Cell:
    """One learner's standing on one exercise."""

    best_score: float | None  # the score that counts: set by hand when overridden
    attempts: int
    solved: bool
    overridden: bool = False
    opened: bool = True  # the exercise is open to learners, so it counts toward the average

    def opened_as(self, opened: bool) -> Cell:
        """This cell with the exercise's `opened` flag (the same object when it already has it)."""
        return self if self.opened == opened else replace(self, opened=opened)


NOT_TRIED = Cell(None, 0, False)


@dataclass(frozen=True)
class Row:
    """One learner's line of the gradebook."""

    user_id: int
    email: str
    cells: tuple[Cell, ...]

    @property
    def solved(self) -> int:
        """How many of the shown exercises are solved."""
        return sum(c.solved for c in self.cells)

    @property
    def average(self) -> float | None:
        """The mean score over the shown exercises that have opened, an exercise not attempted counting 0;
        None when none of them has opened (a 0 would read as a learner who did nothing)."""
        counted = [c.best_score or 0.0 for c in self.cells if c.opened]
        return sum(counted) / len(counted) if counted else None


def columns(filters: Filters) -> list[Exercise]:
    """The exercises shown (published ones: a draft counts toward no average), in the course's order."""
    query = sa.select(Exercise).where(Exercise.status == PUBLISHED,
                                      offered(Exercise.__table__, sa.literal(filters.course_id)))
    if filters.lesson:
        query = query.where(Exercise.lesson == filters.lesson)
    if filters.exercise:
        query = query.where(Exercise.id == filters.exercise)
    return [shown.exercise for shown in in_order(filters.course_id, list(db.session.scalars(query)))]


def _learners(filters: Filters) -> sa.Select:
    query = (sa.select(User.id, User.email).join(CourseMember, CourseMember.user_id == User.id)
             .where(CourseMember.course_id == filters.course_id, CourseMember.role == LEARNER).order_by(User.email))
    if filters.learner:
        query = query.where(User.email.contains(filters.learner.strip().lower(), autoescape=True))
    return query


# What a cell needs, read as the table's plain columns: building a Progress object per cell, or even ORM rows of
# its attributes, costs more than the query.
_PROGRESS = Progress.__table__
_CELL_COLUMNS = (_PROGRESS.c.user_id, _PROGRESS.c.exercise_id, _PROGRESS.c.best_score, _PROGRESS.c.override_score,
                 _PROGRESS.c.attempts_used, _PROGRESS.c.solved_at.is_not(None))


def rows(filters: Filters, exercises: list[Exercise], offset: int = 0, limit: int | None = None) -> Iterator[Row]:
    """Gradebook rows (learners from `offset`, at most `limit`), read in batches so any class size streams;
    none when no exercise matches the filters (every learner at 0 over nothing would say nothing)."""
    if not exercises:
        return
    ids, now = [e.id for e in exercises], utcnow()
    opened = {shown.exercise.id: is_open(shown.opens_at, now) for shown in in_order(filters.course_id, exercises)}
    query = _learners(filters).offset(offset).limit(limit)
    learners = db.session.execute(query.execution_options(yield_per=BATCH))
    for batch in learners.partitions(BATCH):
        by_user = {uid: email for uid, email in batch}
        progress = db.session.execute(sa.select(*_CELL_COLUMNS).where(
            _PROGRESS.c.course_id == filters.course_id, _PROGRESS.c.user_id.in_(list(by_user)),
            _PROGRESS.c.exercise_id.in_(ids)))  # fmt: skip
        cells = {(uid, eid): _cell(best, override, used, solved)
                 for uid, eid, best, override, used, solved in progress}  # fmt: skip
        for uid, email in by_user.items():
            yield Row(uid, email, tuple(cells.get((uid, eid), NOT_TRIED).opened_as(opened[eid]) for eid in ids))


@lru_cache(maxsize=4096)
def _cell(best: float, override: float | None, used: int, solved: bool) -> Cell:
    # Cached: a class of 2,000 has ~60,000 cells but few distinct ones, and a Cell is immutable, so shared safely.
    if not (used or override is not None):
        return NOT_TRIED
    return Cell(best if override is None else override, used, bool(solved), override is not None)


def csv_lines(filters: Filters) -> Iterator[str]:
    """The gradebook as CSV text, one line at a time (header first)."""
    return csv_text(_csv_rows(filters))


def _csv_rows(filters: Filters) -> Iterator[list[object]]:
    exercises = columns(filters)
    header: list[object] = ["email", "solved", "average"]
    for exercise in exercises:
        header += [f"{exercise.id} best", f"{exercise.id} attempts"]
    yield header + ["set by hand"]
    for row in rows(filters, exercises):
        values: list[object] = [spreadsheet_safe(row.email), row.solved, _score(row.average)]
        for cell in row.cells:
            values += [_score(cell.best_score), cell.attempts]
        # The page marks a score an instructor set; so does the export, for whoever checks it later.
        yield values + [" ".join(e.id for e, cell in zip(exercises, row.cells) if cell.overridden)]


def _score(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


@dataclass(frozen=True)
class LearnerWork:
    """One learner's work on one exercise, newest first, as an instructor reviews it."""

    email: str
    exercise: Exercise
    progress: Progress | None
    attempts: list[Attempt]
    submissions: list[Submission]
    own_due: datetime | None  # the learner's own due date (UTC), if an instructor set one
    due_at: datetime | None = None  # the exercise's due date in the course (UTC): the course's own, else the file's
    variant: Variant | None = None  # numeric: the learner's variant of the current version, once they opened it


def learner_work(seat: Seat, exercise_id: str) -> LearnerWork | None:
    """Everything one learner sent for an exercise in the seat's course, with their standing; None if either is
    unknown there, or the person is not a learner of the course (staff are not in its gradebook, so no score or
    due date of theirs is set here)."""
    user, exercise = db.session.get(User, seat.user_id), db.session.get(Exercise, exercise_id)
    member = db.session.get(CourseMember, (seat.course_id, seat.user_id))
    if user is None or exercise is None or member is None or member.role != LEARNER:
        return None
    if not exercises_used(seat.course_id, exercise_id):
        return None
    return LearnerWork(user.email, exercise, db.session.get(Progress, (seat.course_id, seat.user_id, exercise_id)),
                       attempts.history(seat, exercise_id), submissions.history(seat, exercise_id),
                       extensions.own_due(seat, exercise_id), in_order(seat.course_id, [exercise])[0].due_at,
                       _their_variant(seat.user_id, exercise))  # fmt: skip


def _their_variant(user_id: int, exercise: Exercise) -> Variant | None:
    """The learner's variant of the current version (their stable seed), with its reference answers."""
    if exercise.kind != NUMERIC_KIND or (seed := attempts.seed_of(user_id, exercise.id)) is None:
        return None
    current = exercises.current_version(exercise.id)
    try:
        return None if current is None else exercises.variant_of(current, seed)
    except exercises.SpecInvalid:  # the attempts and the score form are still there to see and use
        return None
