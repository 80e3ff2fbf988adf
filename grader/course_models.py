"""Courses: one deployment serves many. A course has members with a course role, and lists the exercises
it uses, in its own order, with its own dates and limits over the exercise file's defaults.

Learner work (progress, attempts, submissions, extensions) carries the course it was done in, so a
learner in two courses has separate progress in each. The catalogue (exercises/) is shared by every
course; an exercise written in the web editor belongs to the course it was written in.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from grader.extensions import db
from grader.models import utcnow

INSTRUCTOR, TA, LEARNER = "instructor", "ta", "learner"
COURSE_ROLES = (INSTRUCTOR, TA, LEARNER)
STAFF_ROLES = (INSTRUCTOR, TA)  # see learners and their work in the course
DEFAULT_COURSE = "default"  # every row made before courses existed was moved into it
CODE_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$"


class Course(db.Model):  # type: ignore[name-defined,misc]
    """A course (a class, term or section): its code in URLs, its title, language and dates."""

    __tablename__ = "courses"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(sa.String(40), unique=True)  # URL-safe: ml101-2027s
    title: Mapped[str] = mapped_column(sa.String(200))
    locale: Mapped[str] = mapped_column(sa.String(16), default="en")
    starts_at: Mapped[datetime | None] = mapped_column(default=None)  # UTC
    ends_at: Mapped[datetime | None] = mapped_column(default=None)  # UTC; read-only for learners after it
    # Joining with a code: the code learners type or follow, whether it works, until when.
    join_code: Mapped[str | None] = mapped_column(sa.String(32), unique=True, default=None)
    join_enabled: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    join_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    # Everyone with an account here is a learner of it, new accounts included: a one-class site (`default`).
    open_enrolment: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    # Uses every published exercise of the shared catalogue, in its order, as the one class did; otherwise
    # the course uses the exercises it lists (CourseExercise) and those written in it.
    whole_catalogue: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"), default=None)

    def ended(self, now: datetime) -> bool:
        """Whether the course is over at `now`: learners can still read their work, not add to it."""
        return self.ends_at is not None and now >= self.ends_at


class CourseMember(db.Model):  # type: ignore[name-defined,misc]
    """One person in one course, with their role there: instructor, ta or learner."""

    __tablename__ = "course_members"
    __table_args__ = (sa.CheckConstraint("role IN ('instructor', 'ta', 'learner')", name="course_role"),
                      sa.Index("ix_course_members_user_id", "user_id"))  # fmt: skip

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    role: Mapped[str] = mapped_column(sa.String(12), default=LEARNER)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    added_by: Mapped[str] = mapped_column(sa.String(12), default="staff")  # staff, code, import, lti, migration


class CourseExercise(db.Model):  # type: ignore[name-defined,misc]
    """An exercise a course uses, at its place in the course, with the course's own settings.

    Each setting left empty keeps the exercise file's; `settings` holds the policy fields a course may
    set (penalties, hints, giving up, solution_after), checked by grader.catalog.policy.
    """

    __tablename__ = "course_exercises"
    __table_args__ = (sa.Index("ix_course_exercises_exercise_id", "exercise_id"),)

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"), primary_key=True)
    position: Mapped[int] = mapped_column(default=0)
    opens_at: Mapped[datetime | None] = mapped_column(default=None)
    due_at: Mapped[datetime | None] = mapped_column(default=None)
    max_attempts: Mapped[int | None] = mapped_column(default=None)
    settings: Mapped[dict[str, Any] | None] = mapped_column(sa.JSON, default=None)
