"""The code exercises' tables: each submission as sent and as graded, and the draft kept when a learner asks for
help with code in the editor."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from grader.extensions import db
from grader.models import utcnow


class Submission(db.Model):  # type: ignore[name-defined,misc]
    """A code submission: the source as sent, and once graded its result, score and timings."""

    __tablename__ = "submissions"
    __table_args__ = (sa.Index("ix_submissions_user_exercise", "user_id", "exercise_id", "course_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"), index=True)
    version: Mapped[int]
    seed: Mapped[int]  # inputs are fresh per submission
    source: Mapped[str] = mapped_column(sa.Text)
    source_hash: Mapped[str] = mapped_column(sa.String(64))
    status: Mapped[str] = mapped_column(sa.String(16), default="pending", index=True)  # pending, graded, failed
    result: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, default=None)
    # The result's messages as sentences (grader.texts), so pages can show them in any language.
    feedback: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, default=None)
    score: Mapped[float | None] = mapped_column(default=None)
    number: Mapped[int | None] = mapped_column(default=None)  # counted attempt number once graded
    late: Mapped[bool] = mapped_column(default=False, server_default=sa.false())  # sent after the due date
    attempts_claimed: Mapped[int] = mapped_column(default=0)  # delivery attempts, for the reaper
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    graded_at: Mapped[datetime | None] = mapped_column(default=None)
    grading_ms: Mapped[float | None] = mapped_column(default=None)


class CodeDraft(db.Model):  # type: ignore[name-defined,misc]
    """The code a learner had in a code exercise's editor when they asked for help: kept, never graded."""

    __tablename__ = "code_drafts"

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"), primary_key=True)
    source: Mapped[str] = mapped_column(sa.Text)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
