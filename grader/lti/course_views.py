"""LTI pages about courses: after a first instructor launch, keep the course made or link one they teach; and the
roster pull (NRPS) into the working course."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, flash, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext, lazy_gettext as _l, ngettext
from flask_login import current_user, login_required

from grader.course_models import Course
from grader.extensions import db
from grader.lti import contexts, deep_linking, platforms, roster
from grader.lti.models import LtiContext
from grader.services.courses import CourseError
from grader.web import course_context
from grader.web.course_context import page_course
from grader.web.errors import error_response
from grader.web.i18n import current_locale, translated
from grader.lti.views import bp, landing


def _first_launch() -> tuple[dict[str, Any], LtiContext, Course]:
    """What the first launch kept, its context and the course made for it; 403 unless it is still so."""
    kept = session.get(contexts.SESSION_KEY)
    context = db.session.get(LtiContext, kept.get("context")) if isinstance(kept, dict) else None
    course = db.session.get(Course, kept.get("course")) if isinstance(kept, dict) else None
    mine = {m.course_id for m in contexts.taught(current_user.id)} if current_user.is_authenticated else set()
    if context is None or course is None or context.course_id != course.id or course.id not in mine:
        abort(403, _l("Open your course's activity from the LMS first, as its instructor."))
    return dict(kept), context, course  # type: ignore[arg-type]


@bp.route("/course", methods=["GET", "POST"])
def new_course() -> ResponseReturnValue:
    """A new LMS course: use the course made for it, or link it to another course this instructor teaches."""
    kept, context, made = _first_launch()
    choices = contexts.taught_elsewhere(current_user.id, made.id)
    error = None
    if request.method == "POST":
        chosen = request.form.get("course", "")
        if chosen == made.code:
            return _done(kept, made)
        try:
            return _done(kept, contexts.relink(context.id, current_user.id, chosen))
        except CourseError as refused:
            error = translated(refused.text)
    page = render_template("lti/new_course.html", made=made, choices=choices, lms_title=context.title, error=error)
    return page, 400 if error else 200


def _done(kept: dict[str, Any], course: Course) -> ResponseReturnValue:
    session.pop(contexts.SESSION_KEY, None)
    session[course_context.SESSION_KEY] = course.code
    picking = session.get(deep_linking.SESSION_KEY)
    if kept.get("next") and isinstance(picking, dict):  # the deep-linking launch's pick is for the linked course
        session[deep_linking.SESSION_KEY] = {**picking, "course": course.code}
    flash(gettext("This LMS course is linked to %(title)s (%(code)s).", title=course.title, code=course.code))
    return redirect(str(kept.get("next") or landing(course.id, kept.get("target"), current_locale())), 303)


@bp.route("/roster", methods=["GET", "POST"])
@login_required
def pull_roster() -> ResponseReturnValue:
    """Names and roles: make accounts for the learners of the LMS courses linked to the working course."""
    here = page_course()
    if here is None or not here.instructor:  # adds people to the course: the People page's rule
        abort(403, _l("Open your course's activity from the LMS first, as its instructor."))
    linked = contexts.with_roster(here.seat.course_id)
    if request.method == "GET" or not linked:
        return render_template("lti/roster.html", linked=bool(linked), course_title=here.title)
    try:
        pulled = [roster.pull(context) for context in linked]
    except Exception as error:  # noqa: BLE001 - the LMS failing must give a page that says so, not a 500
        current_app.logger.warning("NRPS roster pull failed: %s", platforms.failure(error))
        return error_response(502, _l("The course's member list could not be fetched from the LMS. Try again "
                                      "in a moment."))  # fmt: skip
    learners, new = sum(p.learners for p in pulled), sum(p.new_accounts for p in pulled)
    flash(ngettext("%(num)d learner of the course, %(new)d new here.",
                   "%(num)d learners of the course, %(new)d new here.", learners, new=new))  # fmt: skip
    return redirect(url_for("teach.gradebook"), 303)
