"""Extensions: an instructor gives one learner their own due date on one exercise.

An extension replaces the exercise's due date for that learner only, and only while the exercise
has one. Attempts already stored keep the score and the late mark they were given.
"""

from __future__ import annotations

from datetime import datetime

from grader.extensions import db
from grader.models import Extension


def own_due(user_id: int, exercise_id: str) -> datetime | None:
    """The learner's own due date on the exercise (naive UTC), if an instructor set one."""
    found = db.session.get(Extension, (user_id, exercise_id))
    return None if found is None else found.due_at


def grant(user_id: int, exercise_id: str, due_utc: datetime, granted_by: int) -> None:
    """Set (or move) the learner's own due date; commits."""
    found = db.session.get(Extension, (user_id, exercise_id))
    if found is None:
        db.session.add(Extension(user_id=user_id, exercise_id=exercise_id, due_at=due_utc, granted_by=granted_by))
    else:
        found.due_at, found.granted_by = due_utc, granted_by
    db.session.commit()


def withdraw(user_id: int, exercise_id: str) -> bool:
    """Remove the learner's own due date; False when there was none. Commits."""
    found = db.session.get(Extension, (user_id, exercise_id))
    if found is None:
        return False
    db.session.delete(found)
    db.session.commit()
    return True
