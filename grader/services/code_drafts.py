"""Code drafts: what a learner had in a code exercise's editor when they asked for a hint or gave up.

The help buttons send the editor's text with them; it is kept here, one row per seat and exercise, and the
page shows it again, until the learner sends code to be graded (that submission replaces it). A draft is
checked as submissions are (UTF-8, at most 64 KB, no NUL byte) but may be empty, and is never graded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa

from grader.code_grading import read_text
from grader.extensions import db
from grader.models import utcnow
from grader.code_models import CodeDraft, Submission
from grader.services.courses import Seat
from grader.services.dialect import for_session, per_dialect

_DRAFTS = CodeDraft.__table__
_KEY = [_DRAFTS.c.course_id, _DRAFTS.c.user_id, _DRAFTS.c.exercise_id]


def _upsert(dialect: Any) -> Any:
    """Insert the draft, or replace the text and time of the one there."""
    insert = dialect.insert(_DRAFTS)
    return insert.on_conflict_do_update(index_elements=_KEY, set_={"source": insert.excluded.source,
                                                                   "updated_at": insert.excluded.updated_at})


_KEEP = per_dialect(_upsert)


def _mine(seat: Seat, exercise_id: str) -> sa.ColumnElement[bool]:
    return sa.and_(CodeDraft.course_id == seat.course_id, CodeDraft.user_id == seat.user_id,
                   CodeDraft.exercise_id == exercise_id)  # fmt: skip


def keep(seat: Seat, exercise_id: str, typed: str) -> None:
    """Store `typed` as the learner's draft of the exercise in the seat's course, replacing theirs; commits.
    Raises SourceRejected, storing nothing, for code a submission would refuse for its size or encoding."""
    source = read_text(typed)
    row = {"course_id": seat.course_id, "user_id": seat.user_id, "exercise_id": exercise_id, "source": source,
           "updated_at": utcnow()}  # fmt: skip
    db.session.execute(for_session(_KEEP), row)
    db.session.commit()


def forget(seat: Seat, exercise_id: str) -> None:
    """Delete the learner's draft of the exercise in the caller's transaction (code sent to be graded replaces it)."""
    db.session.execute(sa.delete(CodeDraft).where(_mine(seat, exercise_id)))


def in_editor(seat: Seat, exercise_id: str, history: Sequence[Submission], shown: Submission | None,
              stub: str) -> str:  # fmt: skip
    """What the code page's editor starts with: the draft, when it is newer than the latest submission and the
    page shows that one (or none); else the submission shown; else the stub."""
    latest = history[0] if history else None
    if shown is latest:  # an older submission asked for by name shows its own code, to look back at
        draft = db.session.scalar(sa.select(CodeDraft).where(_mine(seat, exercise_id)))
        if draft is not None and (latest is None or draft.updated_at > latest.created_at):
            return draft.source
    return shown.source if shown is not None else stub
