"""JSON API for courses, on the API blueprint: the caller's courses, and a course's gradebook for its staff."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from flask import abort, jsonify
from flask.typing import ResponseReturnValue

from grader.models import utc_text
from grader.services import courses
from grader.web.api import bp, gradebook_csv_of
from grader.web.api_request import bearer, caller
from grader.web.api_schema import GradebookFilters
from grader.web.course_context import resolve
from grader.web.openapi import ErrorBody, Reply, documented


@dataclass(frozen=True)
class CourseItem:
    """One of the caller's courses: its code (for ?course= and URLs), title, their role there, its end."""

    code: str
    title: str
    role: str  # instructor, ta or learner
    ends_at: str | None  # UTC; after it the course is read-only for learners


@bp.get("/courses")
@documented("Your courses", {200: Reply("Every course you are in, by code, with your role in each.", list[CourseItem])})
@bearer
def my_courses() -> ResponseReturnValue:
    """The caller's courses and their role in each."""
    bound = caller().course_code  # a token bound to one course sees that one only
    items = [CourseItem(m.code, m.title, m.role, utc_text(m.ends_at) if m.ends_at else None)
             for m in courses.memberships(caller().user_id) if bound in (None, m.code)]  # fmt: skip
    return jsonify([asdict(item) for item in items])


@bp.get("/courses/<code>/gradebook.csv")
@documented("A course's gradebook as CSV", {
    200: Reply("A header, then per learner of the course: solved count, best score and attempts per exercise.",
               str, "text/csv"),
    403: Reply("You are a learner of this course (the gradebook is for its instructors and TAs), or the token is "
               "bound to another course.", ErrorBody),
    404: Reply("You are not in a course with that code.", ErrorBody),
}, query=GradebookFilters)  # fmt: skip
@bearer
def course_gradebook_csv(code: str) -> ResponseReturnValue:
    """The course's gradebook, streamed as CSV (its instructors and TAs only; 404 outside one's courses)."""
    bound = caller().course_code
    if bound is not None and code != bound:
        abort(403, f"This token acts only in the course {bound}.")
    here = resolve(caller().user_id, caller().is_admin, code)
    if here is None:
        abort(404, "You are in no course with that code.")
    return gradebook_csv_of(here, f"{here.code}-gradebook.csv")
