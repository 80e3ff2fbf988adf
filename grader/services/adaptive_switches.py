"""Instructors' choices for "Practise next": off for the course or one lesson, or pinned to the lineup's order."""

from __future__ import annotations

from dataclasses import dataclass

import sqlalchemy as sa

from grader.extensions import db
from grader.mastery_models import AdaptiveSwitch
from grader.services import audit

WHOLE_COURSE = ""  # the lesson of the course-wide switch


@dataclass(frozen=True)
class Switches:
    """Whether "Practise next" is offered in a place, and whether it follows the lineup instead of the model."""

    enabled: bool = True
    pinned: bool = False


def switches(course_id: int, lesson: str | None = None) -> Switches:
    """The choices that apply: the course's, then a lesson's over them (off anywhere is off; pinned anywhere is)."""
    places = [WHOLE_COURSE] if lesson is None else [WHOLE_COURSE, lesson]
    rows = db.session.scalars(sa.select(AdaptiveSwitch).where(AdaptiveSwitch.course_id == course_id,
                                                              AdaptiveSwitch.lesson.in_(places)))  # fmt: skip
    found = list(rows)
    return Switches(all(r.enabled for r in found), any(r.pinned for r in found))


def own(course_id: int) -> dict[str, Switches]:
    """Every choice stored for the course, by lesson ("" for the whole course)."""
    rows = db.session.scalars(sa.select(AdaptiveSwitch).where(AdaptiveSwitch.course_id == course_id))
    return {r.lesson: Switches(r.enabled, r.pinned) for r in rows}


def set_switches(course_id: int, lesson: str, enabled: bool, pinned: bool, by: int | None) -> None:
    """Store the choice for the course (lesson "") or one lesson, on the course's audit trail; commits."""
    row = db.session.get(AdaptiveSwitch, (course_id, lesson))
    if row is None:
        row = AdaptiveSwitch(course_id=course_id, lesson=lesson)
        db.session.add(row)
    row.enabled, row.pinned = enabled, pinned
    choice = "off" if not enabled else "pinned to the course's order" if pinned else "chosen by the model"
    audit.note(by, "course.settings", course_id=course_id, practise_next=f"{lesson or 'the whole course'}: {choice}")
    db.session.commit()
