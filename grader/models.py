"""Typed SQLAlchemy models: users and tokens, exercises and their versions, variants, attempts, progress.

Code submissions and drafts are in grader.code_models, courses in grader.course_models, the learner model in
grader.mastery_models.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from typing import Any

import sqlalchemy as sa
from flask_login import UserMixin
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.extensions import db

# Site roles: admins run the site (LMS platforms, accounts, every course); staff may create courses. Everyone
# else is "learner" here: what a person may do in a course is their course role (grader.course_models).
ROLES = ("learner", "staff", "admin")
SITE_STAFF = ("staff", "admin")
# An exercise's state for learners: a draft was never published; published ones are seen (from their
# opening date); unpublished ones are hidden again, their learners' work kept.
DRAFT, PUBLISHED, UNPUBLISHED = "draft", "published", "unpublished"
SIGN_IN_KEY = "sign_in"  # where a loaded User keeps its sign-in's secret, in its SQLAlchemy instance info


def utcnow() -> datetime:
    """The current time in UTC (naive, as stored)."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


def utc_text(moment: datetime) -> str:
    """A stored (naive UTC) time as ISO 8601 that says it is UTC: 2026-12-01T10:00:00Z."""
    return moment.isoformat(timespec="seconds") + "Z"


class User(UserMixin, db.Model):  # type: ignore[name-defined,misc]
    """A person with an account; `role` is their site role (ROLES)."""

    __tablename__ = "users"
    __table_args__ = (sa.CheckConstraint("role IN ('learner', 'staff', 'admin')", name="role"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(sa.String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(sa.String(255))
    role: Mapped[str] = mapped_column(sa.String(16), default="learner")
    locale: Mapped[str] = mapped_column(sa.String(16), default="en")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    tokens: Mapped[list[ApiToken]] = relationship(back_populates="user", cascade="all, delete-orphan")

    @property
    def is_admin(self) -> bool:
        """True for the site's operators."""
        return self.role == "admin"

    @property
    def is_staff(self) -> bool:
        """True for those who may create courses (admins included)."""
        return self.role in SITE_STAFF

    def password_fingerprint(self) -> str:
        """A short digest of the password hash: it changes whenever the password does."""
        return hashlib.sha256(self.password_hash.encode()).hexdigest()[:20]

    def __eq__(self, other: object) -> bool:
        """The same account (Flask-Login's mixin would compare sign-in secrets instead)."""
        return other is self or (isinstance(other, User) and self.id is not None and other.id == self.id)

    def __hash__(self) -> int:
        return hash((User, self.id))

    def sign_in_secret(self) -> str | None:
        """The secret of the sign-in this object was loaded for or signed in with (grader.services.sign_ins)."""
        secret: object = sa.inspect(self).info.get(SIGN_IN_KEY)
        return secret if isinstance(secret, str) else None

    def get_id(self) -> str:
        """What the session cookie keeps: this object's sign-in secret, so that ending the sign-in on the
        server ends that cookie too."""
        secret = self.sign_in_secret()
        if secret is None:
            raise LookupError("this user object carries no sign-in")
        return secret


class ApiToken(db.Model):  # type: ignore[name-defined,misc]
    """A bearer token for the JSON API; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(sa.String(80))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    prefix: Mapped[str] = mapped_column(sa.String(12))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
    # NULL: never expires (tokens made before expiry existed, and the operator's `flask users token`).
    expires_at: Mapped[datetime | None] = mapped_column(default=None)
    # NULL: acts in any of its owner's courses; else only in this one.
    course_id: Mapped[int | None] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), default=None,
                                                  index=True)

    user: Mapped[User] = relationship(back_populates="tokens")


class SignIn(db.Model):  # type: ignore[name-defined,misc]
    """A browser session on the server: the cookie holds a secret whose SHA-256 is stored here, so
    signing out, a new password or the owner ending it from another browser makes the cookie worthless."""

    __tablename__ = "sign_ins"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    secret_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    agent: Mapped[str] = mapped_column(sa.String(200), default="")  # the browser's User-Agent, cut short
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class Exercise(db.Model):  # type: ignore[name-defined,misc]
    """An exercise; its content lives in versions, and attempts keep the version they were graded on.

    current_version is the version learners get (while published); latest_version is the newest one
    stored, which is a draft while it is ahead of current_version. The listing columns (title, dates,
    attempt limit) are the current version's.
    """

    __tablename__ = "exercises"
    __table_args__ = (sa.CheckConstraint("status IN ('draft', 'published', 'unpublished')", name="status"),)

    id: Mapped[str] = mapped_column(sa.String(80), primary_key=True)
    lesson: Mapped[str] = mapped_column(sa.String(80), index=True)
    title: Mapped[str] = mapped_column(sa.String(200))
    titles: Mapped[dict[str, str] | None] = mapped_column(sa.JSON, default=None)  # per language, when translated
    due_at: Mapped[datetime | None] = mapped_column(default=None)  # the current version's due date (UTC), if any
    opens_at: Mapped[datetime | None] = mapped_column(default=None)  # learners see it from then on (UTC), if set
    max_attempts: Mapped[int | None] = mapped_column(default=None)  # the current version's attempt limit, if any
    position: Mapped[int] = mapped_column(default=100)
    kind: Mapped[str] = mapped_column(sa.String(16), default="numeric")
    current_version: Mapped[int] = mapped_column(default=1)
    latest_version: Mapped[int] = mapped_column(default=1, server_default="1")
    status: Mapped[str] = mapped_column(sa.String(12), default=PUBLISHED, server_default=PUBLISHED)
    origin: Mapped[str] = mapped_column(sa.String(8), default="file")  # file or web
    # The course a web exercise was written in: only its instructors edit it. None for the shared catalogue.
    course_id: Mapped[int | None] = mapped_column(sa.ForeignKey("courses.id", ondelete="SET NULL"), default=None,
                                                  index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)

    versions: Mapped[list[ExerciseVersion]] = relationship(
        back_populates="exercise", order_by="ExerciseVersion.version", cascade="all, delete-orphan"
    )

    def title_in(self, locale: str) -> str:
        """The title in `locale` when the exercise has one there, else as written."""
        return (self.titles or {}).get(locale, self.title)

    @property
    def published(self) -> bool:
        """Whether learners see it (from its opening date)."""
        return self.status == PUBLISHED

    @property
    def pending(self) -> bool:
        """Whether a newer version than the one learners get waits to be published."""
        return self.status == PUBLISHED and self.latest_version > self.current_version


class ExerciseVersion(db.Model):  # type: ignore[name-defined,misc]
    """One immutable version of an exercise: its YAML source, exactly as the catalogue reads it."""

    __tablename__ = "exercise_versions"
    __table_args__ = (sa.UniqueConstraint("exercise_id", "version", name="uq_exercise_versions_exercise_version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"))
    version: Mapped[int]
    source: Mapped[str] = mapped_column(sa.Text)
    source_hash: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    created_by: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"))

    exercise: Mapped[Exercise] = relationship(back_populates="versions")


class Variant(db.Model):  # type: ignore[name-defined,misc]
    """The stable seed of one learner's variant of one exercise."""

    __tablename__ = "variants"
    __table_args__ = (sa.UniqueConstraint("user_id", "exercise_id", name="uq_variants_user_exercise"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"))
    seed: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Extension(db.Model):  # type: ignore[name-defined,misc]
    """One learner's own due date for one exercise in one course, set by its staff (it replaces the course's)."""

    __tablename__ = "extensions"

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"), primary_key=True)
    due_at: Mapped[datetime]  # UTC
    granted_by: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Attempt(db.Model):  # type: ignore[name-defined,misc]
    """A graded attempt: what was typed, what it parsed to, the per-part verdicts and the score."""

    __tablename__ = "attempts"
    # The same answers to the same version count once; this index also serves lookups by learner and exercise.
    # (exercise_id, id, user_id): an exercise's latest attempts, read newest first along the index (the
    # statistics), whose user_id tells a learner's from an instructor's without reading the rows.
    __table_args__ = (
        sa.UniqueConstraint("user_id", "exercise_id", "course_id", "version", "answers_hash", name="uq_attempts_answers"),
        sa.Index("ix_attempts_exercise_latest", "course_id", "exercise_id", "id", "user_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"))
    version: Mapped[int]
    seed: Mapped[int]
    number: Mapped[int]  # 1 for the first counted attempt of this learner on this exercise
    answers: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    parsed: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    results: Mapped[dict[str, Any]] = mapped_column(sa.JSON)
    raw_score: Mapped[float]
    score: Mapped[float]  # after the exercise's penalty and, when late, its late credit
    late: Mapped[bool] = mapped_column(default=False, server_default=sa.false())  # made after the due date
    hints_used: Mapped[int] = mapped_column(default=0, server_default="0")  # before it was made: they cost
    answers_hash: Mapped[str] = mapped_column(sa.String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)  # the class's latest attempts


class Progress(db.Model):  # type: ignore[name-defined,misc]
    """Per learner, exercise and course: best score, attempts used, when solved. Updated with each attempt."""

    __tablename__ = "progress"
    # One exercise's figures read its rows across a course's learners; the key serves one learner's.
    __table_args__ = (sa.Index("ix_progress_course_exercise", "course_id", "exercise_id"),)

    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(sa.ForeignKey("exercises.id", ondelete="CASCADE"), primary_key=True)
    best_score: Mapped[float] = mapped_column(default=0.0)
    attempts_used: Mapped[int] = mapped_column(default=0)
    solved_at: Mapped[datetime | None] = mapped_column(default=None)
    last_attempt_at: Mapped[datetime | None] = mapped_column(default=None)
    hints_used: Mapped[int] = mapped_column(default=0, server_default="0")  # steps of the solution asked for
    gave_up_at: Mapped[datetime | None] = mapped_column(default=None)  # scoring ended; the solution shows
    # An instructor's score, with its reason, shown and exported in place of best_score until removed.
    override_score: Mapped[float | None] = mapped_column(default=None)
    override_reason: Mapped[str | None] = mapped_column(sa.String(500), default=None)
    override_by: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"), default=None)
    override_at: Mapped[datetime | None] = mapped_column(default=None)

    @property
    def overridden(self) -> bool:
        """True when an instructor set this score."""
        return self.override_score is not None

    @property
    def score(self) -> float:
        """The score that counts: the instructor's when set, else the best attempt's."""
        return self.best_score if self.override_score is None else self.override_score


class AuditEvent(db.Model):  # type: ignore[name-defined,misc]
    """Something an instructor or an operator did to grades, dates, exercises or accounts, and when.

    Written in the same transaction as the change it describes. People are referenced, never
    copied: erasing an account leaves its events with the person set to NULL.
    """

    __tablename__ = "audit_events"

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    actor_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"), default=None)
    action: Mapped[str] = mapped_column(sa.String(40))
    # The course it happened in; None for what belongs to the site (accounts, the shared catalogue).
    course_id: Mapped[int | None] = mapped_column(sa.ForeignKey("courses.id", ondelete="SET NULL"), default=None,
                                                  index=True)
    learner_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id", ondelete="SET NULL"), default=None)
    exercise_id: Mapped[str | None] = mapped_column(sa.String(80), default=None)  # kept as text: history outlives rows
    detail: Mapped[dict[str, Any]] = mapped_column(sa.JSON, default=dict)


# The courses, the LTI tables (grader/lti/models.py) and the figures' wrong parts belong to the same metadata:
# imported here so that create_all and the migration check see them wherever the models are loaded.
from grader import course_models as _course_models  # noqa: E402,F401
from grader import wrong_parts as _wrong_parts  # noqa: E402,F401
from grader.lti import models as _lti_models  # noqa: E402,F401
from grader import mastery_models as _mastery_models  # noqa: E402,F401
from grader import code_models as _code_models  # noqa: E402,F401
