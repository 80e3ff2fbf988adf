"""Which exercises a course uses, as SQL: services filter their statements with it."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from grader.course_models import LEARNER, Course, CourseExercise, CourseMember
from grader.extensions import db
from grader.models import Exercise

_COURSES, _LISTED = Course.__table__, CourseExercise.__table__


def offered(exercises: sa.TableClause | Any, course: sa.ColumnElement[int]) -> sa.ColumnElement[bool]:
    """True for an exercise `course` uses: one written in it, one it lists, or, for a course on the whole
    catalogue, any exercise of the shared catalogue (written in no course)."""
    whole = sa.select(_COURSES.c.whole_catalogue).where(_COURSES.c.id == course).scalar_subquery()
    # Its own FROM, even when the outer statement joins the course's rows too (services.course_rules).
    listed = sa.exists().where(_LISTED.c.course_id == course, _LISTED.c.exercise_id == exercises.c.id
                               ).correlate_except(_LISTED)
    return sa.or_(exercises.c.course_id == course, listed, sa.and_(whole.is_(True), exercises.c.course_id.is_(None)))


def uses(course_id: int, exercise_id: str) -> bool:
    """Whether the course uses the exercise (published or not)."""
    found = sa.select(Exercise.id).where(Exercise.id == exercise_id, offered(Exercise.__table__, sa.literal(course_id)))
    return db.session.scalar(found) is not None


def editable(course_id: int, exercise_id: str, site_staff: bool) -> bool:
    """Whether someone instructing the course may change the exercise: one written in the course; one of the
    shared catalogue the course uses only when they are site staff too, since a change there reaches every
    course (another course's own exercise is never theirs, even when both courses use it)."""
    exercise = db.session.get(Exercise, exercise_id)
    if exercise is None:
        return False
    if exercise.course_id is not None:
        return exercise.course_id == course_id
    return site_staff and uses(course_id, exercise_id)


def offered_ids(course_id: int) -> set[str]:
    """The ids of every exercise the course uses."""
    return set(db.session.scalars(sa.select(Exercise.id).where(offered(Exercise.__table__, sa.literal(course_id)))))


def use_exercises(course_id: int, exercise_ids: list[str]) -> None:
    """Make the course use these exercises, in this order, after those it uses already; commits."""
    last = db.session.scalar(sa.select(sa.func.max(CourseExercise.position)).where(CourseExercise.course_id == course_id))
    for offset, exercise_id in enumerate(exercise_ids, start=(last or 0) + 1):
        if db.session.get(CourseExercise, (course_id, exercise_id)) is None:
            db.session.add(CourseExercise(course_id=course_id, exercise_id=exercise_id, position=offset))
    db.session.commit()


def learners_of(course_id: int) -> sa.Select[Any]:
    """The ids of the course's learners (not its instructors or TAs), for `user_id.in_(...)`."""
    return sa.select(CourseMember.user_id).where(CourseMember.course_id == course_id, CourseMember.role == LEARNER)
