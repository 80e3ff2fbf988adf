"""A user's own data: everything kept about them, as JSON; and erasing an account with all of it.

The export is what the learner has already been shown (answers as typed, verdicts, scores, code
and its results), never secrets: no password hash, no token hash, no variant seed. Erasing relies
on the schema: every row that belongs to a user references it ON DELETE CASCADE, and rows an
instructor made for others (extensions granted, exercise versions authored) keep theirs with
the author set to NULL.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa

from grader.course_models import Course, CourseMember
from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillState
from grader.models import ApiToken, Attempt, Extension, Progress, SignIn, User, utc_text, utcnow
from grader.code_models import CodeDraft, Submission
from grader.services import audit
from grader.services.accounts import AccountError, password_matches

FORMAT = "grader-personal-data/1"
# Parts of the app with tables of their own about users (LTI: LMS accounts, grade links) add them here at start.
_MORE: dict[str, tuple[tuple[Any, ...], Any, Any]] = {}
# The code of the course a token is bound to (null: any of its owner's courses).
_TOKEN_COURSE = sa.select(Course.code).where(Course.id == ApiToken.course_id).scalar_subquery().label("course")


def add_rows(name: str, columns: tuple[Any, ...], user_column: Any, order: Any) -> None:
    """Export these columns too, under `name`: the rows whose `user_column` is the user, ordered by `order`."""
    _MORE[name] = (columns, user_column, order)


def _moment(value: datetime | None) -> str | None:
    return None if value is None else utc_text(value)


def _rows(*columns: Any, where: Any, order: Any) -> list[dict[str, Any]]:
    """The selected columns as dicts, times as ISO 8601 UTC."""
    result = db.session.execute(sa.select(*columns).where(where).order_by(*order))
    return [{k: _moment(v) if isinstance(v, datetime) else v for k, v in row._mapping.items()} for row in result]


def export(user: User) -> dict[str, Any]:
    """Everything kept about the user, JSON-ready."""
    uid = user.id
    return {
        "format": FORMAT,
        "exported_at": _moment(utcnow()),
        "account": {"email": user.email, "role": user.role, "locale": user.locale,
                    "created_at": _moment(user.created_at)},
        "api_tokens": _rows(ApiToken.name, ApiToken.prefix, _TOKEN_COURSE, ApiToken.created_at, ApiToken.expires_at,
                            ApiToken.last_used_at, ApiToken.revoked_at, where=ApiToken.user_id == uid,
                            order=[ApiToken.id]),  # fmt: skip
        "sign_ins": _rows(SignIn.agent, SignIn.created_at, SignIn.last_seen_at, where=SignIn.user_id == uid,
                          order=[SignIn.id]),
        "progress": _rows(Progress.exercise_id.label("exercise"), Progress.best_score, Progress.attempts_used,
                          Progress.solved_at, Progress.last_attempt_at, Progress.override_score,
                          Progress.override_reason, Progress.override_at, where=Progress.user_id == uid,
                          order=[Progress.exercise_id]),
        "attempts": _rows(Attempt.exercise_id.label("exercise"), Attempt.version, Attempt.number, Attempt.created_at,
                          Attempt.late, Attempt.answers, Attempt.score, Attempt.raw_score, Attempt.results,
                          where=Attempt.user_id == uid, order=[Attempt.id]),
        "submissions": _rows(Submission.exercise_id.label("exercise"), Submission.version, Submission.number,
                             Submission.created_at, Submission.status, Submission.late, Submission.score,
                             Submission.source, Submission.result, Submission.graded_at,
                             where=Submission.user_id == uid, order=[Submission.id]),
        # Code kept from the editor when they asked for help (grader.services.code_drafts).
        "code_drafts": _rows(CodeDraft.exercise_id.label("exercise"), CodeDraft.source, CodeDraft.updated_at,
                             where=CodeDraft.user_id == uid, order=[CodeDraft.exercise_id, CodeDraft.course_id]),
        "extensions": _rows(Extension.exercise_id.label("exercise"), Extension.due_at, Extension.created_at,
                            where=Extension.user_id == uid, order=[Extension.exercise_id]),
        # The learner model's view of them (grader.services.mastery): per skill, and the evidence it rests on.
        "mastery": _rows(SkillState.skill, SkillState.p_known, SkillState.evidence, SkillState.due_at,
                         SkillState.updated_at, where=SkillState.user_id == uid,
                         order=[SkillState.course_id, SkillState.skill]),
        "skill_evidence": _rows(SkillEvent.exercise_id.label("exercise"), SkillEvent.part, SkillEvent.skill,
                                SkillEvent.source, SkillEvent.correct, SkillEvent.mistake, SkillEvent.at,
                                where=SkillEvent.user_id == uid, order=[SkillEvent.id]),
        **{name: _rows(*columns, where=user_column == uid, order=[order])
           for name, (columns, user_column, order) in _MORE.items()},
    }  # fmt: skip


def erase(user: User, by: int | None) -> None:
    """Delete the account and everything that belongs to it, in one transaction; commits.

    `by` is who asked: the user themselves, or None for an operator. The audit event keeps only
    the role and who asked, nothing that names the person.
    """
    # One event in each course the person was in: its staff see why a row left their gradebook.
    in_courses: list[int | None] = list(db.session.scalars(
        sa.select(CourseMember.course_id).where(CourseMember.user_id == user.id)))
    for course_id in in_courses or [None]:
        audit.note(None, "account.deleted", course_id=course_id, role=user.role,
                   by="self" if by == user.id else "operator")  # fmt: skip
    db.session.execute(sa.delete(User).where(User.id == user.id))
    db.session.commit()
    db.session.expunge_all()  # loaded objects of the erased user must not be written back


def close_own_account(user: User, password: str) -> None:
    """A learner erases their own account, confirming with their password; raises AccountError why not."""
    if user.is_staff:
        raise AccountError("Instructor accounts are closed by an operator, on the command line.")
    if not password_matches(user, password):
        raise AccountError("Your current password is not right.")
    erase(user, user.id)
