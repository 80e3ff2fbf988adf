"""Courses and their members: making a course, adding people with a course role, finding a person's courses."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from grader.course_models import CODE_PATTERN, COURSE_ROLES, DEFAULT_COURSE, INSTRUCTOR, LEARNER, Course, CourseMember
from grader.extensions import db
from grader.models import User, utcnow
from grader.texts import Refusal

MAX_TITLE = 200


class CourseError(Refusal):
    """A course request that cannot be carried out; the message is for the user."""


@dataclass(frozen=True)
class Seat:
    """A person's place in one course: whose work, in which course. Learner work is kept per seat."""

    course_id: int
    user_id: int


@dataclass(frozen=True)
class Membership:
    """One of a person's courses and their role in it."""

    course_id: int
    code: str
    title: str
    role: str
    ends_at: datetime | None = None


def check_code(code: str) -> str:
    """A course code as given, when it is URL-safe (lower-case letters, digits, inner hyphens); else CourseError."""
    if not re.fullmatch(CODE_PATTERN, code):
        raise CourseError("A course code is 1 to 40 lower-case letters, digits and hyphens, such as ml101-2027s.")
    return code


def create(code: str, title: str, locale: str = "en", by: int | None = None, whole_catalogue: bool = False) -> Course:
    """Make a course (its maker, when given, becomes its instructor), on the whole catalogue or with a list of
    its own (empty until exercises are added); commits. Raises CourseError."""
    title = " ".join(title.split())
    if not 0 < len(title) <= MAX_TITLE:
        raise CourseError("A course title is 1 to %(count)d characters.", count=MAX_TITLE)
    taken = CourseError("A course with the code %(code)s exists already.", code=code)
    if db.session.scalar(sa.select(Course.id).where(Course.code == check_code(code))) is not None:
        raise taken
    course = Course(code=code, title=title, locale=locale, created_by=by, whole_catalogue=whole_catalogue)
    db.session.add(course)
    try:
        db.session.flush()
    except sa.exc.IntegrityError:  # the same code made at the same moment (a double click, two tabs)
        db.session.rollback()
        raise taken from None
    if by is not None:
        db.session.add(CourseMember(course_id=course.id, user_id=by, role=INSTRUCTOR, added_by="staff"))
    db.session.commit()
    return course


def by_code(code: str) -> Course | None:
    """The course with this code, if any (a text no code can be, such as one with a NUL, is no course: PostgreSQL
    would refuse to compare it)."""
    if not re.fullmatch(CODE_PATTERN, code):
        return None
    return db.session.scalar(sa.select(Course).where(Course.code == code))


def ensure_default() -> Course:
    """The `default` course, made when missing (a database made from the models, not the migration)."""
    found = by_code(DEFAULT_COURSE)
    if found is None:
        found = Course(code=DEFAULT_COURSE, title="Course", open_enrolment=True, whole_catalogue=True)
        db.session.add(found)
        db.session.commit()
    return found


def default_seat(user_id: int) -> Seat:
    """The person's seat in the `default` course (a one-class site's, where the migration put everyone)."""
    return Seat(ensure_default().id, user_id)


def add_member(course: Course, user: User, role: str, added_by: str = "staff") -> bool:
    """Put `user` in `course` with `role`, or change their role there; commits. True when they were not in it."""
    if role not in COURSE_ROLES:
        raise CourseError("A course role is one of %(roles)s.", roles=", ".join(COURSE_ROLES))
    member = db.session.get(CourseMember, (course.id, user.id))
    if member is None:
        db.session.add(CourseMember(course_id=course.id, user_id=user.id, role=role, added_by=added_by))
    else:
        member.role = role
    db.session.commit()
    return member is None


def open_course_ids() -> list[int]:
    """The courses every account is a learner of, new accounts included (a one-class site's `default`)."""
    return list(db.session.scalars(sa.select(Course.id).where(Course.open_enrolment.is_(True))))


def seat_in_open_courses(user_id: int, open_ids: list[int]) -> None:
    """Make a new account (in no course yet) a learner of each course of `open_ids` (the caller commits)."""
    db.session.add_all(CourseMember(course_id=course_id, user_id=user_id, role=LEARNER, added_by="open")
                       for course_id in open_ids)  # fmt: skip


def memberships(user_id: int) -> list[Membership]:
    """The person's courses and their role in each, by course code."""
    rows = db.session.execute(
        sa.select(Course.id, Course.code, Course.title, CourseMember.role, Course.ends_at)
        .join(CourseMember, CourseMember.course_id == Course.id)
        .where(CourseMember.user_id == user_id).order_by(Course.code)
    ).all()  # fmt: skip
    return [Membership(*row) for row in rows]


def only_learns(user_id: int) -> bool:
    """Whether the person is a learner in every course they are in (an instructor or TA of any course is not:
    a password reset link made by another course's staff would hand them that course)."""
    return db.session.scalar(sa.select(CourseMember.user_id).where(
        CourseMember.user_id == user_id, CourseMember.role != LEARNER).limit(1)) is None  # fmt: skip


def is_learner(course_id: int, user_id: int) -> bool:
    """Whether the person is a learner of the course."""
    member = db.session.get(CourseMember, (course_id, user_id))
    return member is not None and member.role == LEARNER


def member_counts(course_id: int) -> dict[str, int]:
    """How many instructors, TAs and learners the course has (every role named, 0 included)."""
    found = dict(db.session.execute(sa.select(CourseMember.role, sa.func.count()).where(
        CourseMember.course_id == course_id).group_by(CourseMember.role)).all())  # fmt: skip
    return {role: int(found.get(role, 0)) for role in COURSE_ROLES}


def all_courses() -> list[Course]:
    """Every course, by code (what the site's admins see)."""
    return list(db.session.scalars(sa.select(Course).order_by(Course.code)))


def join_with_code(user: User, code: str) -> Course:
    """Make `user` a learner of the course whose join code this is (staff there keep their role); commits.

    Raises CourseError, saying which, for a code that is unknown, switched off or expired: nobody is enrolled.
    """
    code = code.strip().lower()
    course = db.session.scalar(sa.select(Course).where(Course.join_code == code)) if code else None
    if course is None:
        raise CourseError("There is no course with this code. Check it with your instructor.")
    if not course.join_enabled:
        raise CourseError("Joining %(title)s with a code is switched off. Ask your instructor.", title=course.title)
    if course.join_expires_at is not None and utcnow() >= course.join_expires_at:
        raise CourseError("This code for %(title)s has expired. Ask your instructor for a new one.",
                          title=course.title)  # fmt: skip
    if db.session.get(CourseMember, (course.id, user.id)) is None:
        db.session.add(CourseMember(course_id=course.id, user_id=user.id, role=LEARNER, added_by="code"))
        db.session.commit()
    return course


def open_joining(course: Course, expires_at: datetime | None = None) -> str:
    """Switch joining with a code on (a new code, unless it has one), until `expires_at` if given; commits and
    returns the code."""
    course.join_code = course.join_code or new_join_code()
    course.join_enabled, course.join_expires_at = True, expires_at
    db.session.commit()
    return course.join_code


def close_joining(course: Course) -> None:
    """Switch joining with a code off (the code is kept, to switch on again); commits."""
    course.join_enabled = False
    db.session.commit()


def new_join_code() -> str:
    """A fresh code to join a course with: 10 characters, easy to read out and type."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i
    return "".join(secrets.choice(alphabet) for _ in range(10))


def has_ended(course_id: int) -> bool:
    """Whether the course has ended: learners can read their work but not add to it."""
    course = db.session.get(Course, course_id)
    return course is not None and course.ended(utcnow())
