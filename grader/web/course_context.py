"""The course a request acts in, and the caller's role there.

A learner in one course never names it. Someone in several picks one (`/courses`, kept in the session),
and an API client may name one with `?course=CODE`; otherwise their first course by code is used.
Site admins act in any course they pick, as its instructor.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, g, request, session
from flask_login import current_user

from grader.course_models import INSTRUCTOR, STAFF_ROLES
from grader.models import Exercise
from grader.services import courses
from grader.services.course_content import editable, offered_ids, uses
from grader.services.course_rules import in_order
from grader.services.courses import Membership, Seat
from grader.services.exercises import all_exercises, existing

SESSION_KEY = "course"
ADMIN = "admin"  # the role of a site admin in a course they are not a member of


@dataclass(frozen=True)
class Here:
    """The course a request acts in, and the caller's role in it."""

    seat: Seat
    code: str
    title: str
    role: str

    @property
    def staff(self) -> bool:
        """Instructors, TAs and admins see the course's learners and their work, and try exercises early."""
        return self.role in STAFF_ROLES or self.role == ADMIN

    @property
    def instructor(self) -> bool:
        """Instructors and admins also edit the course's content and settings."""
        return self.role in (INSTRUCTOR, ADMIN)


def resolve(user_id: int, is_admin: bool, asked: str | None) -> Here | None:
    """The course `asked` for (by code) when the person may act in it, else their remembered or first course."""
    mine = courses.memberships(user_id)
    if asked:
        chosen = next((m for m in mine if m.code == asked), None)
        if chosen is None and is_admin and (course := courses.by_code(asked)) is not None:
            return Here(Seat(course.id, user_id), course.code, course.title, ADMIN)
        return None if chosen is None else _here(user_id, chosen)
    return _here(user_id, mine[0]) if mine else None


def _here(user_id: int, member: Membership) -> Here:
    return Here(Seat(member.course_id, user_id), member.code, member.title, member.role)


def page_course() -> Here | None:
    """The course of a signed-in page request: the one chosen in this session, else the person's first."""
    if not current_user.is_authenticated:
        return None
    if "here" not in g:
        remembered = session.get(SESSION_KEY)
        found = resolve(current_user.id, current_user.is_admin, remembered if isinstance(remembered, str) else None)
        g.here = found or resolve(current_user.id, current_user.is_admin, None)
    here: Here | None = g.here
    return here


def api_course(user_id: int, is_admin: bool, bound: str | None = None) -> Here:
    """The course of an API request: `?course=CODE`, else the token's course when it is bound to one, else the
    caller's first; 404 when they are in none of it, 403 for a course other than the token's."""
    asked = request.args.get("course")
    if bound is not None and asked and asked != bound:
        abort(403, f"This token acts only in the course {bound}: make another token for {asked}, or leave out "
                   "?course=.")  # fmt: skip
    found = resolve(user_id, is_admin, asked or bound)
    if found is None:
        abort(404, "You are in no such course." if asked else "You are in no course yet.")
    return found


def course_id() -> int:
    """The id of the page request's course (404 for someone in none)."""
    return current().seat.course_id


def current() -> Here:
    """The page request's course; 404 for someone in no course (pages that need one send them to /courses)."""
    found = page_course()
    if found is None:
        abort(404)
    return found


def course_exercise(exercise_id: str) -> Exercise:
    """An exercise the page request's course uses; 404 for any other (another course's is not there to see)."""
    found = existing(exercise_id)
    if not uses(course_id(), exercise_id):
        abort(404)
    return found


def course_exercises() -> list[Exercise]:
    """Every exercise the page request's course uses, in the course's order."""
    used = offered_ids(course_id())
    return [p.exercise for p in in_order(course_id(), [e for e in all_exercises() if e.id in used])]


def theirs_only(course: int, changing: frozenset[str]) -> None:
    """404 for another course's exercise: changing one (an endpoint in `changing`) needs it to be this course's to
    change, and reading its source (export, preview, a copy in the editor) needs the course to use it."""
    named = (request.view_args or {}).get("exercise_id")
    if request.endpoint in changing and named is not None and not editable(course, named, current_user.is_staff):
        abort(404)
    read = named if request.endpoint in ("teach.export", "teach.preview_as_learner") else request.args.get("from")
    if read and not uses(course, read):
        abort(404)
