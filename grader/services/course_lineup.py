"""A course's content as its instructors arrange it: which exercises it uses, in which order, and each one's
own dates, attempt limit and policy over the file's (read back by services.course_rules)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import sqlalchemy as sa

from grader.catalog.policy import CourseRules, check_course_rules
from grader.course_models import Course, CourseExercise
from grader.extensions import db
from grader.models import Exercise
from grader.services import audit
from grader.services.course_content import offered
from grader.services.course_rules import Placed, in_order, rules_from
from grader.services.courses import CourseError
from grader.services.exercises import all_exercises
from grader.texts import Text, say

RULE_FIELDS = ("opens", "due", "max_attempts", "penalty", "late_credit", "offer_hints", "hint_penalty",
               "solution_after")  # fmt: skip


@dataclass(frozen=True)
class Entry:
    """One exercise of a course's content: where it stands, and what the course sets for it."""

    placed: Placed
    rules: CourseRules | None
    own: bool  # written in this course: it stays in it (unpublish it to hide it)


def _rows(course_id: int) -> dict[str, CourseExercise]:
    return {r.exercise_id: r for r in db.session.scalars(
        sa.select(CourseExercise).where(CourseExercise.course_id == course_id))}  # fmt: skip


def lineup(course: Course) -> list[Entry]:
    """Every exercise the course uses (drafts too), in the course's order."""
    used = list(db.session.scalars(sa.select(Exercise).where(offered(Exercise.__table__, sa.literal(course.id)))))
    rows = _rows(course.id)
    return [Entry(p, rules_from(rows.get(p.exercise.id)), p.exercise.course_id == course.id)
            for p in in_order(course.id, used)]  # fmt: skip


def addable(course: Course) -> list[Exercise]:
    """The shared catalogue's exercises (and the course's own) it does not use yet, in the catalogue's order."""
    used = {e.placed.exercise.id for e in lineup(course)}
    return [e for e in all_exercises() if e.id not in used and e.course_id in (None, course.id)]


def _renumber(course: Course, ids: list[str]) -> None:
    """Give the course a row for each exercise, at its place in `ids` (1, 2, ...)."""
    rows = _rows(course.id)
    for number, exercise_id in enumerate(ids, start=1):
        row = rows.get(exercise_id)
        if row is None:
            db.session.add(CourseExercise(course_id=course.id, exercise_id=exercise_id, position=number))
        else:
            row.position = number


def use_list(course: Course, by: int) -> None:
    """Switch a course from the whole catalogue to its own list, made of what it uses now, in that order; commits."""
    if not course.whole_catalogue:
        return
    ids = [e.placed.exercise.id for e in lineup(course)]
    course.whole_catalogue = False
    _renumber(course, ids)
    audit.note(by, "course.content", course_id=course.id, change="list", exercises=len(ids))
    db.session.commit()


def _listing(course: Course) -> list[str]:
    if course.whole_catalogue:
        raise CourseError("This course uses the whole catalogue: switch it to its own list first.")
    return [e.placed.exercise.id for e in lineup(course)]


def add(course: Course, exercise_id: str, by: int) -> None:
    """Add a catalogue exercise (or one of the course's own) at the end of the course's list; commits."""
    ids = _listing(course)
    if exercise_id not in {e.id for e in addable(course)}:
        raise CourseError("There is no such exercise to add.")
    _renumber(course, [*ids, exercise_id])
    audit.note(by, "course.content", None, exercise_id, course_id=course.id, change="added")
    db.session.commit()


def remove(course: Course, exercise_id: str, by: int) -> None:
    """Take an exercise out of the course's list (learners' work on it is kept); commits."""
    ids = _listing(course)
    exercise = db.session.get(Exercise, exercise_id)
    if exercise is None or exercise_id not in ids:
        raise CourseError("There is no such exercise to add.")
    if exercise.course_id == course.id:
        raise CourseError("An exercise written in this course stays in it: unpublish it to hide it from learners.")
    row = db.session.get(CourseExercise, (course.id, exercise_id))
    if row is not None:
        db.session.delete(row)
    audit.note(by, "course.content", None, exercise_id, course_id=course.id, change="removed")
    db.session.commit()


def move(course: Course, exercise_id: str, step: int, by: int) -> None:
    """Move an exercise one place up (-1) or down (+1) in the course's list; commits."""
    ids = _listing(course)
    if exercise_id not in ids:
        raise CourseError("There is no such exercise to add.")
    at = ids.index(exercise_id)
    to = min(max(at + step, 0), len(ids) - 1)
    ids[at], ids[to] = ids[to], ids[at]
    _renumber(course, ids)
    db.session.commit()


def save_rules(course: Course, exercise_id: str, values: Mapping[str, str], by: int) -> dict[str, Text]:
    """Set the course's own rules for an exercise it uses (empty fields keep the file's); commits. Or the problem
    with each field, and nothing changed."""
    entry = next((e for e in lineup(course) if e.placed.exercise.id == exercise_id), None)
    if entry is None:
        raise CourseError("There is no such exercise to add.")
    found, problems = check_course_rules({k: values.get(k) for k in RULE_FIELDS})
    if problems:
        return problems
    own = found or CourseRules()
    opens, due = own.opens_at or entry.placed.exercise.opens_at, own.due_at or entry.placed.exercise.due_at
    if opens is not None and due is not None and opens >= due:  # one date the course's, the other the file's
        return {"opens": say("the exercise must open before its due date")}
    if db.session.get(CourseExercise, (course.id, exercise_id)) is None and not course.whole_catalogue:
        _renumber(course, [e.placed.exercise.id for e in lineup(course)])  # a row at its place as shown now
    elif db.session.get(CourseExercise, (course.id, exercise_id)) is None:  # the catalogue's order: no place
        db.session.add(CourseExercise(course_id=course.id, exercise_id=exercise_id, position=0))
    row = db.session.get(CourseExercise, (course.id, exercise_id))
    assert row is not None
    row.opens_at, row.due_at, row.max_attempts = own.opens_at, own.due_at, own.max_attempts
    row.settings = dict(own.settings) or None
    audit.note(by, "course.content", None, exercise_id, course_id=course.id, change="rules")
    db.session.commit()
    return {}
