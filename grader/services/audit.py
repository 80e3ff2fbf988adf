"""The audit trail: what instructors and operators did to scores, due dates, exercises and accounts.

`note` adds an event to the current transaction, so it is stored with the change it describes or
not at all. An action done in several transactions (a regrade, one learner each) is one event, stored
as it starts and brought up to date by `amend` in each of its transactions. An event with no actor was
made on the command line (an operator).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import aliased

from grader.extensions import db
from grader.models import AuditEvent, User

PAGE = 100
ACTIONS = ("score.set", "score.removed", "extension.set", "extension.removed", "regrade", "exercise.saved",
           "exercise.published", "exercise.unpublished", "reset_link", "account.deleted",
           "members.imported", "member.role", "member.removed", "course.settings", "course.content",
           "exercise.copied")  # fmt: skip
# Changes to an exercise of the shared catalogue (events of no course): every course using it sees them.
CATALOGUE_ACTIONS = ("exercise.saved", "exercise.published", "exercise.unpublished")


def note(actor_id: int | None, action: str, learner_id: int | None = None, exercise_id: str | None = None,
         *, course_id: int | None = None, **detail: Any) -> AuditEvent:  # fmt: skip
    """Add an event to the current transaction (the caller commits it with its change); `course_id` is the
    course it happened in, if it belongs to one.

    Without an actor it was an operator, and the event says so: an actor whose account is later
    erased also ends up without one.
    """
    assert action in ACTIONS, action
    if actor_id is None:
        detail.setdefault("by", "operator")
    event = AuditEvent(actor_id=actor_id, action=action, learner_id=learner_id, exercise_id=exercise_id,
                       course_id=course_id, detail=detail)  # fmt: skip
    db.session.add(event)
    return event


def record(actor_id: int | None, action: str, learner_id: int | None = None, exercise_id: str | None = None,
           *, course_id: int | None = None, **detail: Any) -> int:  # fmt: skip
    """Store an event on its own (for an action that writes nothing else, or before one that takes several
    transactions); commits and returns the event's id."""
    event = note(actor_id, action, learner_id, exercise_id, course_id=course_id, **detail)
    db.session.flush()
    event_id = event.id  # read before the commit expires it (reading it after would query again)
    db.session.commit()
    return event_id


def amend(event_id: int, **detail: Any) -> None:
    """Replace an event's details in the current transaction (the caller commits it with its change),
    keeping who did it: each transaction of a long action says what the action has done so far."""
    event = db.session.get(AuditEvent, event_id)
    assert event is not None, event_id  # events are never deleted
    who = {"by": event.detail["by"]} if "by" in (event.detail or {}) else {}
    event.detail = {**detail, **who}  # a new dict: the JSON column sees a change only on assignment


@dataclass(frozen=True)
class Entry:
    """An event as the audit page shows it: the people by email (None: an operator, or an erased account)."""

    id: int
    at: datetime
    actor: str | None
    action: str
    learner: str | None
    exercise_id: str | None
    detail: dict[str, Any]


def latest(before: int | None = None, action: str | None = None, limit: int = PAGE, *,
           course_id: int | None = None, site_wide: bool = True) -> list[Entry]:  # fmt: skip
    """Events newest first, older than event `before` when given, of one action when given.

    With `course_id`, one course's trail: its events, and the shared catalogue's changes (no course, no learner);
    `site_wide` adds the rest of the events of no course (accounts deleted, ...), for the site's admins.
    """
    actor, learner = aliased(User), aliased(User)
    query = (sa.select(AuditEvent, actor.email, learner.email)
             .outerjoin(actor, actor.id == AuditEvent.actor_id).outerjoin(learner, learner.id == AuditEvent.learner_id)
             .order_by(AuditEvent.id.desc()).limit(limit))  # fmt: skip
    if course_id is not None:
        query = query.where(_in_trail_of(course_id, site_wide))
    if before is not None:
        query = query.where(AuditEvent.id < before)
    if action:
        query = query.where(AuditEvent.action == action)
    return [Entry(e.id, e.created_at, actor_email, e.action, learner_email, e.exercise_id, e.detail or {})
            for e, actor_email, learner_email in db.session.execute(query)]  # fmt: skip


def _in_trail_of(course_id: int, site_wide: bool) -> sa.ColumnElement[bool]:
    """A course's events; a catalogue change (no course, no learner) concerns every course that uses it."""
    no_course = AuditEvent.course_id.is_(None)
    if site_wide:
        return sa.or_(AuditEvent.course_id == course_id, no_course)
    catalogue = sa.and_(no_course, AuditEvent.learner_id.is_(None), AuditEvent.action.in_(CATALOGUE_ACTIONS))
    return sa.or_(AuditEvent.course_id == course_id, catalogue)
