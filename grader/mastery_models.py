"""The learner model's tables: each learner's evidence and state per course and skill, fitted parameters, switches.

skill_events is the stored sequence of observations (answers, graded code, practice checks, hints, give-ups) that a
regrade replays, with notes of the practice answers already checked (source `checked`, no skill, the answer's
fingerprint in `part`: a repeat adds nothing); skill_states is the fold of it that pages read (nothing is refitted
per request).
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from grader.extensions import db
from grader.models import utcnow


class SkillEvent(db.Model):  # type: ignore[name-defined,misc]
    """One observation of a learner's skill in a course: an answer to a part (maybe a named mistake) or a hint."""

    __tablename__ = "skill_events"
    __table_args__ = (sa.Index("ix_skill_events_learner_skill", "course_id", "user_id", "skill", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(sa.String(80))
    # The graded attempt it came from (a regrade rewrites these); None for code, practice, hints and give-ups.
    attempt_id: Mapped[int | None] = mapped_column(sa.ForeignKey("attempts.id", ondelete="CASCADE"), default=None,
                                                   index=True)
    source: Mapped[str] = mapped_column(sa.String(10))  # attempt | code | practice | hint | give-up | checked
    part: Mapped[str | None] = mapped_column(sa.String(80), default=None)
    skill: Mapped[str] = mapped_column(sa.String(40))
    correct: Mapped[bool | None] = mapped_column(default=None)  # None: a hint, no answer
    mistake: Mapped[str | None] = mapped_column(sa.String(80), default=None)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class SkillState(db.Model):  # type: ignore[name-defined,misc]
    """A learner's skill in a course as the model sees it now: P(known), answers seen, the fsrs card and its due date."""

    __tablename__ = "skill_states"

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    skill: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    p_known: Mapped[float]
    evidence: Mapped[int] = mapped_column(default=0)
    card: Mapped[str | None] = mapped_column(sa.Text, default=None)  # fsrs Card.to_dict() as JSON
    due_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class SkillParams(db.Model):  # type: ignore[name-defined,misc]
    """BKT parameters fitted from one course's answers to one skill (`flask adaptive fit`); absent: the defaults."""

    __tablename__ = "skill_params"

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    skill: Mapped[str] = mapped_column(sa.String(40), primary_key=True)
    prior: Mapped[float]
    learn: Mapped[float]
    guess: Mapped[float]
    slip: Mapped[float]
    learners: Mapped[int]
    observations: Mapped[int]
    fitted_at: Mapped[datetime] = mapped_column(default=utcnow)


class AdaptiveSwitch(db.Model):  # type: ignore[name-defined,misc]
    """An instructor's choice for "Practise next" in a course (lesson "") or one of its lessons: off, or pinned to
    the lineup's order instead of the model's choice."""

    __tablename__ = "adaptive_switches"

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    lesson: Mapped[str] = mapped_column(sa.String(80), primary_key=True)
    enabled: Mapped[bool] = mapped_column(default=True)
    pinned: Mapped[bool] = mapped_column(default=False)
