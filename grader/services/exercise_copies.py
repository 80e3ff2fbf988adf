"""Copying an exercise written in one course into another course of the same instructor.

The copy is a new exercise (a new id, its own versions and learners' work) that belongs to the target course,
saved as a draft there; the audit trail of the target course says where it came from.
"""

from __future__ import annotations

import re

import sqlalchemy as sa

from grader.catalog.loader import parse_yaml
from grader.course_models import Course
from grader.extensions import db
from grader.models import Exercise
from grader.services import audit, exercise_yaml
from grader.services.courses import CourseError
from grader.services.exercises import latest_version, parse_any_source, save_source

MAX_ID = 80  # the catalogue's longest exercise id
_ID_LINE = re.compile(r"^id:[^\n]*$", re.MULTILINE)


def copy_id(exercise_id: str, code: str) -> str:
    """A free id for the copy: `<id>-<course code>`, shortened to fit, with -2, -3, ... when taken."""
    base = f"{exercise_id}-{code}"[:MAX_ID].rstrip("-")
    taken = set(db.session.scalars(sa.select(Exercise.id).where(Exercise.id.startswith(base))))
    found, number = base, 1
    while found in taken:
        number += 1
        found = f"{base[:MAX_ID - len(str(number)) - 1].rstrip('-')}-{number}"
    return found


def _with_id(source: str, new_id: str) -> str:
    """The source with its exercise id changed, its layout kept where the id is on a line of its own."""
    changed = _ID_LINE.sub(f"id: {new_id}", source, count=1)
    if parse_any_source(changed, "stored").id == new_id:
        return changed
    data = parse_yaml(source)
    data["id"] = new_id
    return exercise_yaml.dump(data)


def copy(exercise_id: str, source: Course, target: Course, by: int) -> str:
    """Copy the newest version of an exercise written in `source` into `target` as a draft; commits and returns
    the copy's id. Raises CourseError for an exercise not written in `source` (the catalogue's are shared)."""
    exercise = db.session.get(Exercise, exercise_id)
    stored = latest_version(exercise_id)
    if exercise is None or stored is None or exercise.course_id != source.id:
        raise CourseError("Only an exercise written in one of your courses can be copied.")
    if source.id == target.id:
        raise CourseError("Choose another course to copy it into.")
    new_id = copy_id(exercise_id, target.code)
    save_source(_with_id(stored.source, new_id), by, "web", publish=False, course_id=target.id)
    audit.note(by, "exercise.copied", None, new_id, course_id=target.id, source=exercise_id, course=source.code)
    db.session.commit()
    return new_id
