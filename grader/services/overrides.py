"""Score overrides: an instructor sets one learner's score on one exercise, with a reason.

The override takes the place of the best score wherever a score is shown or exported: the
gradebook and its CSV, the learner's dashboard, exercise page and API progress. The learner sees
the reason. Attempts go on being graded and stored as before, regrading leaves the override
alone, and it never marks an exercise solved; removing it brings the best score back.
"""

from __future__ import annotations

import re
from typing import Any, cast

import sqlalchemy as sa

from grader import grade_events
from grader.extensions import db
from grader.models import Progress, utcnow
from grader.services import audit, mastery
from grader.services.courses import Seat
from grader.services.dialect import for_session, per_dialect
from grader.texts import Refusal

MAX_REASON = 500
_PERCENT = re.compile(r"^\s*(\d{1,3}(?:[.,]\d+)?)\s*%?\s*$")
_PROGRESS = Progress.__table__
_FIELDS = ("override_score", "override_reason", "override_by", "override_at")


class OverrideError(Refusal):
    """An override that cannot be set; `field` is what to correct (score or reason), the message says how."""

    def __init__(self, field: str, template: str, **values: Any) -> None:
        super().__init__(template, **values)
        self.field = field


def _upsert(dialect: Any) -> Any:
    insert = dialect.insert(_PROGRESS)
    return insert.on_conflict_do_update(index_elements=[_PROGRESS.c.course_id, _PROGRESS.c.user_id,
                                                                       _PROGRESS.c.exercise_id],
                                        set_={name: insert.excluded[name] for name in _FIELDS})  # fmt: skip


_SET = per_dialect(_upsert)  # one statement: an attempt may be making the progress row at the same moment


def score_from_percent(text: str) -> float:
    """A score from 0 to 1 out of a percentage as typed ("80", "80 %", "72,5")."""
    match = _PERCENT.match(text)
    value = float(match.group(1).replace(",", ".")) if match else -1.0
    if not 0 <= value <= 100:
        raise OverrideError("score", "Give a score between 0 and 100.")
    return value / 100


def set_score(seat: Seat, exercise_id: str, percent: str, reason: str, by: int) -> float:
    """Set (or change) the learner's score on the exercise in the seat's course, with the reason they will see;
    commits.

    Returns the score (0 to 1) read from `percent`, as typed.
    """
    score, reason = score_from_percent(percent), reason.strip()
    if not reason or len(reason) > MAX_REASON:
        raise OverrideError("reason", "Give a reason, in at most %(count)d characters: the learner sees it.",
                            count=MAX_REASON)  # fmt: skip
    values = {"override_score": score, "override_reason": reason, "override_by": by, "override_at": utcnow()}
    key = {"course_id": seat.course_id, "user_id": seat.user_id, "exercise_id": exercise_id}
    db.session.execute(for_session(_SET), {**key, **values})
    audit.note(by, "score.set", seat.user_id, exercise_id, course_id=seat.course_id, score=score, reason=reason)
    grade_events.changed(seat.course_id, seat.user_id, exercise_id)
    mastery.replay_exercise(seat, exercise_id)
    db.session.commit()
    return score


def remove(seat: Seat, exercise_id: str, by: int) -> bool:
    """Remove the learner's override in the seat's course, so the best attempt counts again; False when there was
    none. Commits."""
    cleared = cast(sa.CursorResult[Any], db.session.execute(
        sa.update(Progress).where(Progress.course_id == seat.course_id, Progress.user_id == seat.user_id,
                                  Progress.exercise_id == exercise_id, Progress.override_score.is_not(None))
        .values(dict.fromkeys(_FIELDS))
    ))  # fmt: skip
    if cleared.rowcount == 1:
        audit.note(by, "score.removed", seat.user_id, exercise_id, course_id=seat.course_id)
        grade_events.changed(seat.course_id, seat.user_id, exercise_id)
        mastery.replay_exercise(seat, exercise_id)
    db.session.commit()
    return cleared.rowcount == 1
