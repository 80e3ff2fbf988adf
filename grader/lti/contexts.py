"""LMS courses (contexts) as courses of ours: a launch's context claim names one, kept in lti_contexts.

A context maps to one course. The first instructor launch from an unmapped context makes a course for it
(its code from the context's label or title) and maps it; that instructor may then link the context to a
course they teach already instead. Learners of an unmapped context are told the course is not set up yet,
and nothing is made for them. A launch without a context claim (LTI allows it) is into `default`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.course_models import INSTRUCTOR, Course, CourseExercise, CourseMember
from grader.extensions import db
from grader.lti.models import GradeLink, LtiContext, Platform
from grader.models import Attempt, Exercise
from grader.services import courses
from grader.services.courses import CourseError, Membership

CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
MAX_CODE = 40  # courses.code
MAX_TRIES = 50  # codes tried with a -2, -3, ... suffix before giving up on the name
FALLBACK_CODE = "lms-course"
SESSION_KEY = "lti_new_context"  # after a first instructor launch: the context, the course made, where to go next


@dataclass(frozen=True)
class LmsCourse:
    """The context a launch names: where it is (platform, deployment, id) and what the LMS calls it."""

    platform_id: int
    deployment_id: str
    context_id: str
    title: str
    label: str


def of_launch(claims: dict[str, Any], platform_id: int) -> LmsCourse | None:
    """The launch's context, or None when it has none (or one without an id)."""
    claim = claims.get(CONTEXT_CLAIM)
    if not isinstance(claim, dict) or not isinstance(claim.get("id"), str) or not claim["id"]:
        return None
    title, label = claim.get("title"), claim.get("label")
    return LmsCourse(platform_id, str(claims[DEPLOYMENT_CLAIM]), claim["id"][:255],
                     " ".join(title.split())[:200] if isinstance(title, str) else "",
                     label.strip()[:200] if isinstance(label, str) else "")  # fmt: skip


def mapped(lms: LmsCourse) -> LtiContext | None:
    """The mapping kept for this context, if any."""
    return db.session.scalar(sa.select(LtiContext).where(
        LtiContext.platform_id == lms.platform_id, LtiContext.deployment_id == lms.deployment_id,
        LtiContext.context_id == lms.context_id))  # fmt: skip


def adopted(lms: LmsCourse, lineitem: str | None) -> LtiContext | None:
    """For an unmapped context launched before contexts were courses: the course its line item's grade links
    are in (the migration put them in `default`), now mapped to it. A line item belongs to one LMS course, so
    a launch naming one we send scores to already comes from that course. Commits; None when there is none."""
    course_id = db.session.scalar(sa.select(GradeLink.course_id).where(
        GradeLink.platform_id == lms.platform_id, GradeLink.lineitem == lineitem).limit(1)) if lineitem else None
    if course_id is None:
        return None
    return _kept(lms, course_id) or mapped(lms)


def _kept(lms: LmsCourse, course_id: int) -> LtiContext | None:
    """Map the context to the course; commits. None when a launch at the same moment mapped it first."""
    context = LtiContext(platform_id=lms.platform_id, deployment_id=lms.deployment_id, context_id=lms.context_id,
                         course_id=course_id, title=lms.title[:200])  # fmt: skip
    db.session.add(context)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        return None
    return context


def code_from(label: str, title: str) -> str:
    """A URL-safe course code (CODE_PATTERN) from the context's label, else its title; FALLBACK_CODE when
    neither has a letter or digit we keep (accents are dropped, other scripts too)."""
    for text in (label, title):
        ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
        code = re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[:MAX_CODE].rstrip("-")
        if code:
            return code
    return FALLBACK_CODE


def _free_code(base: str) -> str:
    """`base`, or `base-2`, `base-3`, ... (cut to fit), whichever no course has yet."""
    for n in range(1, MAX_TRIES + 1):
        suffix = "" if n == 1 else f"-{n}"
        code = base[: MAX_CODE - len(suffix)].rstrip("-") + suffix
        if courses.by_code(code) is None:
            return code
    raise CourseError("No free course code was found for this LMS course.")


def make_course(lms: LmsCourse, locale: str, user_id: int) -> LtiContext:
    """A new course for an unmapped context (closed to other accounts, on the whole catalogue until its
    instructor gives it a list), mapped to it; the launcher is made its instructor by the caller. Commits."""
    title = lms.title or lms.label or lms.context_id
    # On the whole catalogue, like a course made on the web: the picker offers it from the first launch.
    course = courses.create(_free_code(code_from(lms.label, lms.title)), title[:200] or "LMS", locale,
                            whole_catalogue=True)  # fmt: skip
    course.created_by = user_id
    context = _kept(lms, course.id)
    if context is None:  # the same first launch twice at once: the other one's course is the LMS course's
        db.session.delete(course)
        db.session.commit()
        context = mapped(lms)
        assert context is not None
    return context


def noted(context: LtiContext, lms: LmsCourse, memberships_url: str | None) -> None:
    """Keep what an instructor's launch says of the context: its title, and its checked memberships URL."""
    context.title = lms.title[:200] or context.title
    if memberships_url:
        context.memberships_url = memberships_url[:500]
    db.session.commit()


def taught(user_id: int) -> list[Membership]:
    """The courses where the person is an instructor."""
    return [m for m in courses.memberships(user_id) if m.role == INSTRUCTOR]


def taught_elsewhere(user_id: int, course_id: int) -> list[Membership]:
    """The courses other than `course_id` where the person is an instructor: what a context may be linked to."""
    return [m for m in taught(user_id) if m.course_id != course_id]


def relink(context_id: int, user_id: int, code: str) -> Course:
    """Map the context to the course with `code`, where the person must be an instructor; the course made for
    it on the first launch goes when nothing is in it but that person. Commits; raises CourseError."""
    context = db.session.get(LtiContext, context_id)
    target = courses.by_code(code)
    member = db.session.get(CourseMember, (target.id, user_id)) if target else None
    if context is None or target is None or member is None or member.role != INSTRUCTOR:
        raise CourseError("You can link this LMS course only to a course where you are an instructor.")
    made, context.course_id = context.course_id, target.id
    db.session.commit()
    if made != target.id and _empty(made, user_id):
        db.session.execute(sa.delete(CourseMember).where(CourseMember.course_id == made))
        db.session.execute(sa.delete(Course).where(Course.id == made))
        db.session.commit()
    return target


def _empty(course_id: int, user_id: int) -> bool:
    """Whether the course holds nothing but `user_id` as a member: no other member, content, work or context."""
    def none(query: sa.Select[Any]) -> bool:
        return db.session.scalar(query.limit(1)) is None

    return (none(sa.select(CourseMember.user_id).where(CourseMember.course_id == course_id,
                                                        CourseMember.user_id != user_id))
            and none(sa.select(CourseExercise.exercise_id).where(CourseExercise.course_id == course_id))
            and none(sa.select(Exercise.id).where(Exercise.course_id == course_id))
            and none(sa.select(Attempt.id).where(Attempt.course_id == course_id))
            and none(sa.select(GradeLink.id).where(GradeLink.course_id == course_id))
            and none(sa.select(LtiContext.id).where(LtiContext.course_id == course_id)))  # fmt: skip


def with_roster(course_id: int) -> list[LtiContext]:
    """The contexts mapped to the course whose member list (NRPS) an instructor's launch gave."""
    return list(db.session.scalars(sa.select(LtiContext).where(
        LtiContext.course_id == course_id, LtiContext.memberships_url.is_not(None)).order_by(LtiContext.id)))


def listing() -> list[tuple[str, LtiContext, str]]:
    """Every mapped LMS course, with its platform's issuer and its course's code, by issuer and context id."""
    rows = db.session.execute(sa.select(Platform.issuer, LtiContext, Course.code)
                              .join(Platform, Platform.id == LtiContext.platform_id)
                              .join(Course, Course.id == LtiContext.course_id)
                              .order_by(Platform.issuer, LtiContext.context_id)).all()  # fmt: skip
    return [(issuer, context, code) for issuer, context, code in rows]
