"""The "Practise next" part of a course's settings page: off, by the model, or pinned to the course's order, for
the whole course and for each lesson (routes on the course_admin blueprint, which checks the course's instructors)."""

from __future__ import annotations

from flask import abort, flash, redirect, request, url_for
from flask_babel import gettext
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse

from grader.catalog.lessons import lesson_title
from grader.services import course_lineup
from grader.services.adaptive_switches import WHOLE_COURSE, Switches, own, set_switches
from grader.web.course_settings_pages import bp, course
from grader.web.forms import PageForm

CHOICES = ("model", "pinned", "off")


def _choice(found: Switches | None) -> str:
    if found is None or (found.enabled and not found.pinned):
        return "model"
    return "off" if not found.enabled else "pinned"


def _lessons() -> list[str]:
    """The course's lessons, in its lineup's order."""
    return list(dict.fromkeys(e.placed.exercise.lesson for e in course_lineup.lineup(course())))


@bp.context_processor
def _practise_next_rows() -> dict[str, object]:
    def rows() -> list[tuple[str, str, str]]:
        """(field name, place title, chosen) for the whole course, then each lesson."""
        stored = own(course().id)
        found = [("place-", gettext("The whole course"), _choice(stored.get(WHOLE_COURSE)))]
        return found + [(f"place-{slug}", gettext(lesson_title(slug)), _choice(stored.get(slug))) for slug in _lessons()]

    return {"practise_next_rows": rows, "practise_next_form": PageForm}


@bp.post("/practise-next")
def practise_next_switches() -> BaseResponse:
    """Store the choices sent for the course and its lessons."""
    if not PageForm().validate_on_submit():
        abort(400)
    found = course()
    for lesson in [WHOLE_COURSE, *_lessons()]:
        chosen = request.form.get(f"place-{lesson}", "model")
        if chosen not in CHOICES:
            abort(400)
        current = _choice(own(found.id).get(lesson))
        if chosen != current:
            set_switches(found.id, lesson, chosen != "off", chosen == "pinned", current_user.id)
    flash(gettext("Saved."))
    return redirect(url_for("course_admin.settings"), code=303)
