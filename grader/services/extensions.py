"""Extensions: a course's staff give one learner of it their own due date on one exercise.

An extension gives that learner the later of its date and the exercise's, and only while the exercise
has one. Attempts already stored keep the score and the late mark they were given.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from grader.catalog.lessons import exercise_order
from grader import grade_events
from grader.extensions import db
from grader.course_models import CourseExercise
from grader.models import Exercise, Extension
from grader.services.course_content import offered
from grader.services import audit
from grader.services.courses import Seat


def own_due(seat: Seat, exercise_id: str) -> datetime | None:
    """The learner's own due date on the exercise in the seat's course (naive UTC), if its staff set one."""
    found = db.session.get(Extension, (seat.course_id, seat.user_id, exercise_id))
    return None if found is None else found.due_at


def _due_column() -> sa.ColumnElement[datetime | None]:
    """The due date in the course (CourseExercise outer-joined): the course's own, else the file's."""
    return sa.func.coalesce(CourseExercise.due_at, Exercise.due_at)


def _in_course(course_id: int) -> sa.Select[str, str, int]:
    return (sa.select(Exercise.id, Exercise.lesson, Exercise.position)
            .outerjoin(CourseExercise, (CourseExercise.exercise_id == Exercise.id) & (CourseExercise.course_id == course_id))
            .where(offered(Exercise.__table__, sa.literal(course_id))))  # fmt: skip


def with_due_dates(course_id: int, exercise_id: str) -> list[str]:
    """The exercises of the given exercise's lesson that have a due date in the course, in the catalogue's order."""
    lesson = sa.select(Exercise.lesson).where(Exercise.id == exercise_id).scalar_subquery()
    found = db.session.execute(_in_course(course_id).where(Exercise.lesson == lesson, _due_column().is_not(None)))
    return [eid for eid, lesson_slug, position in sorted(found, key=lambda r: exercise_order(r[1], r[2], r[0]))]


def not_later(course_id: int, exercise_ids: list[str], due_utc: datetime) -> list[str]:
    """Those of the exercises whose due date in the course is already at or after `due_utc`: an extension to it
    gives nothing."""
    found = db.session.execute(_in_course(course_id).where(Exercise.id.in_(exercise_ids), _due_column() >= due_utc))
    return sorted((eid for eid, _, _ in found), key=exercise_ids.index)


def grant(seat: Seat, exercise_ids: list[str], due_utc: datetime, granted_by: int) -> None:
    """Set (or move) the learner's own due date on each exercise in the seat's course; commits once."""
    for exercise_id in exercise_ids:
        found = db.session.get(Extension, (seat.course_id, seat.user_id, exercise_id))
        if found is None:
            db.session.add(Extension(course_id=seat.course_id, user_id=seat.user_id, exercise_id=exercise_id,
                                     due_at=due_utc, granted_by=granted_by))
        else:
            found.due_at, found.granted_by = due_utc, granted_by
    audit.note(granted_by, "extension.set", seat.user_id, _one(exercise_ids), course_id=seat.course_id,
               due=due_utc.isoformat() + "Z", exercises=exercise_ids)  # fmt: skip
    _tell(seat, exercise_ids)
    db.session.commit()


def withdraw(seat: Seat, exercise_ids: list[str], by: int) -> int:
    """Remove the learner's own due dates on these exercises in the seat's course; returns how many there were.
    Commits."""
    removed = int(db.session.execute(sa.delete(Extension).where(  # type: ignore[attr-defined]
        Extension.course_id == seat.course_id, Extension.user_id == seat.user_id,
        Extension.exercise_id.in_(exercise_ids))).rowcount)  # fmt: skip
    if removed:
        audit.note(by, "extension.removed", seat.user_id, _one(exercise_ids), course_id=seat.course_id, exercises=exercise_ids)
        _tell(seat, exercise_ids)
    db.session.commit()
    return removed


def _tell(seat: Seat, exercise_ids: list[str]) -> None:
    """A due date that changed may change what the gradebook shows (a regrade applies it to stored attempts)."""
    for exercise_id in exercise_ids:
        grade_events.changed(seat.course_id, seat.user_id, exercise_id)


def _one(exercise_ids: list[str]) -> str | None:
    return exercise_ids[0] if len(exercise_ids) == 1 else None
