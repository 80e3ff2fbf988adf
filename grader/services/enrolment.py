"""A course's people: who is in it and how they joined; changing a role, removing someone, adding people by
email one at a time or from a file or list.

Removing someone ends their access only: their work in the course stays stored, and comes back with them.
An import adds new people and raises roles a row names explicitly; it never lowers a role (it reports it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from grader.course_models import COURSE_ROLES, INSTRUCTOR, TA, Course, CourseMember
from grader.extensions import db
from grader.models import User
from grader.services import accounts, audit, courses
from grader.services.courses import CourseError
from grader.services.dialect import lock_rows
from grader.services.enrolment_rows import Problem, Row, Rows, read_csv, read_list
from grader.texts import Refusal

PAGE = 100
RANK = {"learner": 0, TA: 1, INSTRUCTOR: 2}
_CHUNK = 500  # emails per IN (...) lookup, well under SQLite's limit on parameters


@dataclass(frozen=True)
class Person:
    """A member of a course as the People page lists them."""

    user_id: int
    email: str
    role: str
    added_by: str
    since: datetime


def people(course_id: int, role: str | None = None, query: str = "", page: int = 1) -> tuple[list[Person], int]:
    """A page of the course's members (instructors first, then by email), of one role and matching an email
    fragment when given, and how many match in all."""
    where = [CourseMember.course_id == course_id]
    if role in COURSE_ROLES:
        where.append(CourseMember.role == role)
    if query.strip():
        where.append(User.email.contains(accounts.normalise_email(query), autoescape=True))
    base = sa.select(CourseMember.user_id).join(User, User.id == CourseMember.user_id).where(*where)
    total = db.session.scalar(sa.select(sa.func.count()).select_from(base.subquery())) or 0
    order = sa.case({INSTRUCTOR: 0, TA: 1}, value=CourseMember.role, else_=2)
    rows = db.session.execute(
        sa.select(User.id, User.email, CourseMember.role, CourseMember.added_by, CourseMember.created_at)
        .join(User, User.id == CourseMember.user_id).where(*where)
        .order_by(order, User.email).limit(PAGE).offset(PAGE * (max(page, 1) - 1))
    ).all()  # fmt: skip
    return [Person(*row) for row in rows], int(total)


def member(course_id: int, user_id: int) -> Person | None:
    """One member of the course, or None for someone not in it."""
    row = db.session.execute(
        sa.select(User.id, User.email, CourseMember.role, CourseMember.added_by, CourseMember.created_at)
        .join(User, User.id == CourseMember.user_id)
        .where(CourseMember.course_id == course_id, CourseMember.user_id == user_id)
    ).first()  # fmt: skip
    return None if row is None else Person(*row)


def _membership(course_id: int, user_id: int) -> CourseMember:
    found = db.session.get(CourseMember, (course_id, user_id))
    if found is None:
        raise CourseError("This person is not in the course.")
    return found


def _keep_an_instructor(course_id: int, leaving: CourseMember) -> None:
    """Refuse when `leaving` is the course's last instructor: a course always has someone to run it. The
    course's instructor rows are locked first, so two instructors demoting each other at once cannot both pass."""
    if leaving.role != INSTRUCTOR:
        return
    lock_rows(CourseMember.role, CourseMember.course_id == course_id, CourseMember.role == INSTRUCTOR)
    if courses.member_counts(course_id)[INSTRUCTOR] <= 1:
        raise CourseError("This is the course's only instructor. Make someone else an instructor first.")


def change_role(course_id: int, user_id: int, role: str, actor_id: int | None) -> None:
    """Give a member another course role; commits. Raises CourseError for an unknown role, someone not in the
    course, or the last instructor."""
    if role not in COURSE_ROLES:
        raise CourseError("A course role is one of %(roles)s.", roles=", ".join(COURSE_ROLES))
    found = _membership(course_id, user_id)
    if found.role == role:
        return
    if role != INSTRUCTOR:
        _keep_an_instructor(course_id, found)
    audit.note(actor_id, "member.role", user_id, course_id=course_id, role=role, was=found.role)
    found.role = role
    db.session.commit()


def remove(course_id: int, user_id: int, actor_id: int | None) -> None:
    """End a member's access to the course (their work there stays stored); commits. Raises CourseError for
    someone not in it or the last instructor."""
    found = _membership(course_id, user_id)
    _keep_an_instructor(course_id, found)
    audit.note(actor_id, "member.removed", user_id, course_id=course_id, role=found.role)
    db.session.delete(found)
    db.session.commit()


@dataclass
class Report:
    """What an import did, or would do once its bad rows are fixed (`imported` False: nothing was written)."""

    imported: bool = False
    added: list[dict[str, Any]] = field(default_factory=list)  # row, email, role, new_account
    raised: list[dict[str, Any]] = field(default_factory=list)  # row, email, role, was
    kept: list[dict[str, Any]] = field(default_factory=list)  # row, email, role, asked: a lower role not applied
    unchanged: int = 0
    bad: list[Problem] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The report as plain data (the CLI's --json), reasons in English."""
        bad = [{"row": p.number, "given": p.given, "reason": str(p.reason)} for p in self.bad]
        return {"imported": self.imported, "added": self.added, "raised": self.raised, "kept": self.kept,
                "unchanged": self.unchanged, "bad": bad}  # fmt: skip


def _email_for_row(email: str) -> str:
    """A row's email as registration checks a new one; an existing account's email as it is stored (accounts made
    before the checks keep theirs)."""
    try:
        return accounts.new_email(email)
    except Refusal:
        if (found := accounts.user_by_email(email)) is not None:
            return found.email
        raise


def import_file(course_id: int, data: bytes, actor_id: int | None, good_only: bool = False) -> Report:
    """Import a CSV file into the course (see enrolment_rows.read_csv). Raises ListRefused for an unreadable file."""
    return _import(course_id, read_csv(data, _email_for_row), actor_id, good_only, "csv")


def import_list(course_id: int, text: str, actor_id: int | None, good_only: bool = False) -> Report:
    """Import a pasted list of emails into the course, each as a learner. Raises ListRefused for one too long."""
    return _import(course_id, read_list(text, _email_for_row), actor_id, good_only, "list")


def add_person(course_id: int, email: str, role: str, actor_id: int | None) -> Report:
    """Add one person by email with a role (an account is made for a new address); an import of one row."""
    rows = Rows()
    try:
        rows.good.append(Row(1, _email_for_row(email), "", role, True))
    except Refusal as refused:
        raise CourseError(refused.text) from None
    return _import(course_id, rows, actor_id, False, "form")


def _import(course_id: int, rows: Rows, actor_id: int | None, good_only: bool, source: str) -> Report:
    report = Report(bad=rows.bad)
    if (rows.bad and not good_only) or not rows.good:
        return report  # nothing is written until the bad rows are fixed, or left out on request
    course = db.session.get(Course, course_id)
    assert course is not None
    users = _users_by_email([row.email for row in rows.good])
    roles = _roles(course_id, [user.id for user in users.values()])
    open_ids = [i for i in courses.open_course_ids() if i != course_id]  # this one they join with their row's role
    fresh = accounts.add_unset_accounts([r.email for r in rows.good if r.email not in users], open_ids, course.locale)
    for row in rows.good:
        found = users.get(row.email) or fresh[row.email]
        _apply(course, row, found, row.email in fresh, roles, report, "staff" if source == "form" else "import")
    one = report.added[0]["user_id"] if source == "form" and report.added else None
    audit.note(actor_id, "members.imported", one, course_id=course_id, source=source, added=len(report.added),
               new_accounts=sum(1 for a in report.added if a["new_account"]), raised=len(report.raised),
               unchanged=report.unchanged + len(report.kept), skipped=len(report.bad))  # fmt: skip
    try:
        db.session.commit()
    except sa.exc.IntegrityError:  # an address registered while the import ran
        db.session.rollback()
        raise CourseError("Someone registered one of these addresses at the same moment. Import again.") from None
    report.imported = True
    return report


def _apply(course: Course, row: Row, user: User, fresh: bool, roles: dict[int, str], report: Report,
           how: str) -> None:  # fmt: skip
    """Add one good row's person, or raise their role when the row names a higher one."""
    was = roles.get(user.id)
    entry = {"row": row.number, "email": user.email, "role": row.role, "user_id": user.id}
    if was is None:
        db.session.add(CourseMember(course_id=course.id, user_id=user.id, role=row.role, added_by=how))
        report.added.append({**entry, "new_account": fresh})
    elif row.role_given and RANK[row.role] > RANK[was]:
        db.session.get(CourseMember, (course.id, user.id)).role = row.role  # type: ignore[union-attr]
        report.raised.append({**entry, "was": was})
    elif row.role_given and RANK[row.role] < RANK[was]:
        report.kept.append({**entry, "role": was, "asked": row.role})
    else:
        report.unchanged += 1


def _users_by_email(emails: list[str]) -> dict[str, User]:
    found: dict[str, User] = {}
    for start in range(0, len(emails), _CHUNK):
        chunk = emails[start : start + _CHUNK]
        found.update({u.email: u for u in db.session.scalars(sa.select(User).where(User.email.in_(chunk)))})
    return found


def _roles(course_id: int, user_ids: list[int]) -> dict[int, str]:
    found: dict[int, str] = {}
    for start in range(0, len(user_ids), _CHUNK):
        chunk = user_ids[start : start + _CHUNK]
        found.update((user_id, role) for user_id, role in db.session.execute(
            sa.select(CourseMember.user_id, CourseMember.role)
            .where(CourseMember.course_id == course_id, CourseMember.user_id.in_(chunk))))  # fmt: skip
    return found
