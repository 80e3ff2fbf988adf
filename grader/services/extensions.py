"""Extensions: an instructor gives one learner their own due date on one exercise.

An extension gives that learner the later of its date and the exercise's, and only while the exercise
has one. Attempts already stored keep the score and the late mark they were given.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from grader.catalog.lessons import exercise_order
from grader import grade_events
from grader.extensions import db
from grader.models import Exercise, Extension
from grader.services import audit


def own_due(user_id: int, exercise_id: str) -> datetime | None:
    """The learner's own due date on the exercise (naive UTC), if an instructor set one."""
    found = db.session.get(Extension, (user_id, exercise_id))
    return None if found is None else found.due_at


def with_due_dates(exercise_id: str) -> list[str]:
    """The exercises of the given exercise's lesson that have a due date, in the dashboard's order."""
    lesson = sa.select(Exercise.lesson).where(Exercise.id == exercise_id).scalar_subquery()
    found = db.session.scalars(sa.select(Exercise).where(Exercise.lesson == lesson, Exercise.due_at.is_not(None)))
    return [e.id for e in sorted(found, key=lambda e: exercise_order(e.lesson, e.position, e.id))]


def not_later(exercise_ids: list[str], due_utc: datetime) -> list[str]:
    """Those of the exercises whose own due date is already at or after `due_utc`: an extension to it gives nothing."""
    found = db.session.scalars(sa.select(Exercise.id).where(Exercise.id.in_(exercise_ids), Exercise.due_at >= due_utc))
    return sorted(found, key=exercise_ids.index)


def grant(user_id: int, exercise_ids: list[str], due_utc: datetime, granted_by: int) -> None:
    """Set (or move) the learner's own due date on each exercise; commits once."""
    for exercise_id in exercise_ids:
        found = db.session.get(Extension, (user_id, exercise_id))
        if found is None:
            db.session.add(Extension(user_id=user_id, exercise_id=exercise_id, due_at=due_utc, granted_by=granted_by))
        else:
            found.due_at, found.granted_by = due_utc, granted_by
    audit.note(granted_by, "extension.set", user_id, _one(exercise_ids), due=due_utc.isoformat() + "Z",
               exercises=exercise_ids)  # fmt: skip
    _tell(user_id, exercise_ids)
    db.session.commit()


def withdraw(user_id: int, exercise_ids: list[str], by: int) -> int:
    """Remove the learner's own due dates on these exercises; returns how many there were. Commits."""
    removed = int(db.session.execute(sa.delete(Extension).where(  # type: ignore[attr-defined]
        Extension.user_id == user_id, Extension.exercise_id.in_(exercise_ids))).rowcount)  # fmt: skip
    if removed:
        audit.note(by, "extension.removed", user_id, _one(exercise_ids), exercises=exercise_ids)
        _tell(user_id, exercise_ids)
    db.session.commit()
    return removed


def _tell(user_id: int, exercise_ids: list[str]) -> None:
    """A due date that changed may change what the gradebook shows (a regrade applies it to stored attempts)."""
    for exercise_id in exercise_ids:
        grade_events.changed(user_id, exercise_id)


def _one(exercise_ids: list[str]) -> str | None:
    return exercise_ids[0] if len(exercise_ids) == 1 else None
