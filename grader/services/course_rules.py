"""A course's own dates, attempt limit and policy for each exercise it uses, over the exercise file's.

The one place that reads CourseExercise's settings: services get an exercise's rules in a course here (a
spec with them applied, or SQL columns that take the course's value when it has one).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from grader.catalog.lessons import exercise_order
from grader.catalog.policy import P, CourseRules, for_course, rules
from grader.course_models import Course, CourseExercise
from grader.extensions import db
from grader.models import Exercise
from grader.services.courses import Seat
from grader.services.extensions import own_due

LISTED = CourseExercise.__table__


def listed_in(exercises: Any, course: sa.ColumnElement[int] | int) -> sa.ColumnElement[bool]:
    """The outer-join condition from an exercises table to the course's row for each exercise."""
    return (LISTED.c.exercise_id == exercises.c.id) & (LISTED.c.course_id == course)


def opens_column(exercises: Any) -> sa.ColumnElement[datetime | None]:
    """The opening date that applies: the course's, else the file's (with LISTED outer-joined)."""
    return sa.func.coalesce(LISTED.c.opens_at, exercises.c.opens_at)


def rules_columns() -> tuple[sa.ColumnElement[Any], ...]:
    """The course's own columns, to select beside an exercise and turn into rules with `rules_from`."""
    return LISTED.c.opens_at, LISTED.c.due_at, LISTED.c.max_attempts, LISTED.c.settings


def rules_from(row: tuple[Any, ...] | CourseExercise | None) -> CourseRules | None:
    """CourseRules from the four rules columns (or a CourseExercise row), None when the course sets nothing."""
    if row is None:
        return None
    if isinstance(row, CourseExercise):
        return rules(row.opens_at, row.due_at, row.max_attempts, row.settings)
    return rules(*row)


def rules_of(course_id: int, exercise_id: str) -> CourseRules | None:
    """The course's own rules for the exercise, if it sets any."""
    return rules_from(db.session.get(CourseExercise, (course_id, exercise_id)))


def opens_in(course_id: int, exercise: Exercise) -> datetime | None:
    """The exercise's opening date in the course: the course's own, else the file's."""
    return placed(exercise, db.session.get(CourseExercise, (course_id, exercise.id))).opens_at


def in_course(spec: P, course_id: int, exercise_id: str) -> P:
    """The exercise's spec as it applies in the course: the course's settings over the file's."""
    return for_course(spec, rules_of(course_id, exercise_id))


@dataclass(frozen=True)
class Placed:
    """An exercise as a course lists it: its dates and limit in the course, and its place in the course's order."""

    exercise: Exercise
    opens_at: datetime | None
    due_at: datetime | None
    max_attempts: int | None
    position: int | None  # None: not listed (a whole-catalogue course's, or written in the course)

    @property
    def order(self) -> tuple[Any, ...]:
        """Sort key: the course's order first, then the catalogue's lesson order."""
        e = self.exercise
        return (self.position is None, self.position or 0, exercise_order(e.lesson, e.position, e.id))


def ordered(course_id: int) -> bool:
    """Whether the course has its own order (a list), not the whole catalogue's."""
    course = db.session.get(Course, course_id)
    return course is not None and not course.whole_catalogue


def placed(exercise: Exercise, row: CourseExercise | None, in_list: bool = True) -> Placed:
    """The exercise with the course's values over its own (`row` is the course's CourseExercise, if any); its
    place is the row's in a course with a list (`in_list`), the catalogue's in a course on the whole of it."""
    found = rules_from(row)
    return Placed(exercise,
                  found.opens_at if found and found.opens_at else exercise.opens_at,
                  found.due_at if found and found.due_at else exercise.due_at,
                  found.max_attempts if found and found.max_attempts else exercise.max_attempts,
                  row.position if row is not None and in_list else None)  # fmt: skip


def in_order(course_id: int, exercises: list[Exercise]) -> list[Placed]:
    """The exercises with the course's values, in the course's order (one query for the course's rows)."""
    rows = {r.exercise_id: r for r in db.session.scalars(
        sa.select(CourseExercise).where(CourseExercise.course_id == course_id))}  # fmt: skip
    in_list = ordered(course_id)
    return sorted((placed(e, rows.get(e.id), in_list) for e in exercises), key=lambda p: p.order)


def for_learner(spec: P, seat: Seat) -> P:
    """The exercise's spec as it applies to one learner: their course's settings, then their own due date."""
    exercise_id = getattr(spec, "id")
    return in_course(spec, seat.course_id, exercise_id).with_due(own_due(seat, exercise_id))
