"""Tables for LTI: registered platforms and their deployments, linked accounts, used nonces,
grade links (a learner's line item for an exercise or lesson) and the outbox of scores to send."""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column, relationship

from grader.extensions import db
from grader.models import utcnow


class Platform(db.Model):  # type: ignore[name-defined,misc]
    """An LMS registered by the operator: its issuer, our client id there, and its OAuth2/OIDC endpoints."""

    __tablename__ = "lti_platforms"
    __table_args__ = (sa.UniqueConstraint("issuer", "client_id", name="uq_lti_platforms_issuer_client"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(sa.String(255))
    client_id: Mapped[str] = mapped_column(sa.String(255))
    auth_login_url: Mapped[str] = mapped_column(sa.String(500))
    auth_token_url: Mapped[str] = mapped_column(sa.String(500))
    key_set_url: Mapped[str] = mapped_column(sa.String(500))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    deployments: Mapped[list[Deployment]] = relationship(cascade="all, delete-orphan", back_populates="platform")


class Deployment(db.Model):  # type: ignore[name-defined,misc]
    """One deployment of the tool on a platform (a platform may install it several times)."""

    __tablename__ = "lti_deployments"
    __table_args__ = (sa.UniqueConstraint("platform_id", "deployment_id", name="uq_lti_deployments_platform_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(sa.String(255))

    platform: Mapped[Platform] = relationship(back_populates="deployments")


class LtiContext(db.Model):  # type: ignore[name-defined,misc]
    """An LMS course (platform, deployment, context id) and the course of ours it is: made on the first
    instructor launch, or linked by an instructor to a course they teach. Learners of an unmapped context
    are told the course is not set up yet."""

    __tablename__ = "lti_contexts"
    __table_args__ = (sa.UniqueConstraint("platform_id", "deployment_id", "context_id",
                                          name="uq_lti_contexts_platform_deployment_context"),)  # fmt: skip

    id: Mapped[int] = mapped_column(primary_key=True)
    platform_id: Mapped[int] = mapped_column(sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    deployment_id: Mapped[str] = mapped_column(sa.String(255))
    context_id: Mapped[str] = mapped_column(sa.String(255))
    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(sa.String(200), default="")  # the LMS's name for it, as last launched
    memberships_url: Mapped[str | None] = mapped_column(sa.String(500), default=None)  # NRPS, checked
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LtiAccount(db.Model):  # type: ignore[name-defined,misc]
    """The platform's user (issuer, sub) and the account of ours it signs in as."""

    __tablename__ = "lti_accounts"
    __table_args__ = (sa.UniqueConstraint("issuer", "subject", name="uq_lti_accounts_issuer_subject"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    issuer: Mapped[str] = mapped_column(sa.String(255))
    subject: Mapped[str] = mapped_column(sa.String(255))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(sa.String(200), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class UsedNonce(db.Model):  # type: ignore[name-defined,misc]
    """An id_token's nonce, kept once it launched: the same token again is a replay."""

    __tablename__ = "lti_nonces"

    nonce: Mapped[str] = mapped_column(sa.String(255), primary_key=True)
    used_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class GradeLink(db.Model):  # type: ignore[name-defined,misc]
    """Where a learner's score on an exercise (or a lesson's mean) goes: a line item on a platform."""

    __tablename__ = "lti_grade_links"
    __table_args__ = (sa.UniqueConstraint("account_id", "lineitem", name="uq_lti_grade_links_account_lineitem"),
                      sa.Index("ix_lti_grade_links_user_target", "user_id", "target"))

    id: Mapped[int] = mapped_column(primary_key=True)
    account_id: Mapped[int] = mapped_column(sa.ForeignKey("lti_accounts.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id", ondelete="CASCADE"))
    platform_id: Mapped[int] = mapped_column(sa.ForeignKey("lti_platforms.id", ondelete="CASCADE"))
    course_id: Mapped[int] = mapped_column(sa.ForeignKey("courses.id", ondelete="CASCADE"), index=True)
    target: Mapped[str] = mapped_column(sa.String(90))  # "exercise:<id>" or "lesson:<slug>"
    lineitem: Mapped[str] = mapped_column(sa.String(500))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class OutgoingScore(db.Model):  # type: ignore[name-defined,misc]
    """A score to send to a line item: written with the attempt, sent after commit, retried until sent."""

    __tablename__ = "lti_outbox"
    __table_args__ = (sa.Index("ix_lti_outbox_due", "sent_at", "next_try_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    link_id: Mapped[int] = mapped_column(sa.ForeignKey("lti_grade_links.id", ondelete="CASCADE"), index=True)
    score_given: Mapped[float]
    score_maximum: Mapped[float]
    activity_progress: Mapped[str] = mapped_column(sa.String(20))
    grading_progress: Mapped[str] = mapped_column(sa.String(20))
    scored_at: Mapped[datetime]  # the score's timestamp: the platform keeps the latest
    tries: Mapped[int] = mapped_column(default=0)
    next_try_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(default=None)  # or superseded by a later score
    last_error: Mapped[str | None] = mapped_column(sa.String(300), default=None)
