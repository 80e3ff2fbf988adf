"""A course's content for its instructors: the exercises it uses in its order, each one's own dates, limit and
policy, and copying an exercise written here into another course of theirs (on the course_admin blueprint)."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext, lazy_gettext as _l
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse
from wtforms import HiddenField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Length

from grader.catalog.lessons import lesson_title
from grader.course_models import INSTRUCTOR
from grader.services import course_lineup, courses, exercise_copies
from grader.services.course_lineup import Entry
from grader.services.courses import CourseError
from grader.web.course_settings_pages import bp, course, place
from grader.web.forms import PageForm
from grader.web.i18n import translated


class RowForm(PageForm):
    """A button that acts on one exercise of the list (add, remove, move)."""

    exercise = HiddenField(validators=[Length(max=80)])
    step = HiddenField(validators=[Length(max=2)])


class RulesForm(PageForm):
    """The course's own settings for one exercise; an empty field keeps the exercise file's."""

    opens = StringField(_l("Opens"), validators=[Length(max=64)], description=_l("Date, time and zone, such as 2027-02-01T09:00Z."))
    due = StringField(_l("Due"), validators=[Length(max=64)], description=_l("Date, time and zone."))
    max_attempts = StringField(_l("Attempts allowed"), validators=[Length(max=8)])
    penalty = StringField(_l("Penalty per retry (0 to 1)"), validators=[Length(max=16)])
    late_credit = StringField(_l("Share a late attempt keeps (0 to 1)"), validators=[Length(max=16)])
    offer_hints = SelectField(_l("Hints"), choices=[SelectChoice("", _l("as the file says")),
                                                    SelectChoice("true", _l("offered")),
                                                    SelectChoice("false", _l("not offered"))], default="")  # fmt: skip
    hint_penalty = StringField(_l("Cost of each hint (0 to 1)"), validators=[Length(max=16)])
    solution_after = StringField(_l("Offer giving up after this many wrong attempts"), validators=[Length(max=8)])


class CopyForm(PageForm):
    """Which other course of the instructor's to copy an exercise into."""

    target = SelectField(_l("Copy into"), choices=[])


def _targets() -> list[SelectChoice]:
    here = course()
    return [SelectChoice(m.code, f"{m.title} ({m.code})") for m in courses.memberships(current_user.id)
            if m.role == INSTRUCTOR and m.course_id != here.id]  # fmt: skip


def _content(status: int = 200) -> tuple[str, int]:
    found = course()
    copy_form = CopyForm()
    copy_form.target.choices = _targets()
    return render_template("teach/course_content.html", course=found, entries=course_lineup.lineup(found),
                           addable=course_lineup.addable(found) if not found.whole_catalogue else [],
                           row=RowForm(formdata=None), copy=copy_form, lesson_title=lesson_title), status  # fmt: skip


@bp.get("/content")
def content() -> tuple[str, int]:
    """The exercises the course uses, in its order, with what the course sets for each."""
    return _content()


def _row() -> RowForm:
    form = RowForm()
    if not form.validate_on_submit():
        abort(400)
    return form


def _back() -> BaseResponse:
    return redirect(url_for("course_admin.content"), code=303)


@bp.post("/content/list")
def use_list() -> BaseResponse:
    """Switch the course from the whole catalogue to its own list, filled with the catalogue in its order."""
    _row()
    course_lineup.use_list(course(), current_user.id)
    flash(gettext("The course now has its own list of exercises, filled from the catalogue: add, remove and order them."))
    return _back()


@bp.post("/content/<action>")
def change(action: str) -> BaseResponse | tuple[str, int]:
    """Add, remove or move one exercise of the course's list."""
    form = _row()
    exercise_id = form.exercise.data or ""
    try:
        if action == "add":
            course_lineup.add(course(), exercise_id, current_user.id)
        elif action == "remove":
            course_lineup.remove(course(), exercise_id, current_user.id)
        elif action == "move" and form.step.data in ("-1", "1"):
            course_lineup.move(course(), exercise_id, int(form.step.data or 0), current_user.id)
        else:
            abort(404)
    except CourseError as refused:
        flash(translated(refused.text))
        return _content(status=422)
    return _back()


def _entry(exercise_id: str) -> Entry:
    found = next((e for e in course_lineup.lineup(course()) if e.placed.exercise.id == exercise_id), None)
    if found is None:
        abort(404)
    return found


def _rules_values(entry: Entry) -> dict[str, str]:
    rules = entry.rules
    if rules is None:
        return {}
    values = {"opens": f"{rules.opens_at.isoformat()}Z" if rules.opens_at else "",
              "due": f"{rules.due_at.isoformat()}Z" if rules.due_at else "",
              "max_attempts": str(rules.max_attempts or "")}  # fmt: skip
    for name, value in rules.settings:
        values[name] = str(value).lower() if isinstance(value, bool) else f"{value:g}" if isinstance(value, float) else str(value)
    return values


@bp.route("/content/exercise/<exercise_id>", methods=["GET", "POST"])
def rules(exercise_id: str) -> BaseResponse | tuple[str, int]:
    """The course's own dates, attempt limit and policy for one exercise, over its file's."""
    entry = _entry(exercise_id)
    form = RulesForm() if request.method == "POST" else RulesForm(formdata=None, data=_rules_values(entry))
    status = 200
    if request.method == "POST":
        if not form.validate_on_submit():
            if form.csrf_refused:
                abort(400)
            status = 422
        else:
            posted = {name: (getattr(form, name).data or "").strip() for name in course_lineup.RULE_FIELDS}
            problems = course_lineup.save_rules(course(), exercise_id, posted, current_user.id)
            if not problems:
                flash(gettext("The course's settings for %(id)s are saved.", id=exercise_id))
                return _back()
            place(form, problems)
            status = 422
    return render_template("teach/course_rules.html", entry=entry, form=form, course=course()), status


@bp.post("/content/exercise/<exercise_id>/copy")
def copy(exercise_id: str) -> BaseResponse | tuple[str, int]:
    """Copy an exercise written in this course into another course the instructor teaches, as a draft there."""
    _entry(exercise_id)  # another course's exercise is not there to see
    form = CopyForm()
    form.target.choices = _targets()
    if not form.validate_on_submit():
        if form.csrf_refused:
            abort(400)
        abort(404)  # not a course of theirs to copy into
    target = courses.by_code(form.target.data or "")
    if target is None:
        abort(404)
    try:
        new_id = exercise_copies.copy(exercise_id, course(), target, current_user.id)
    except CourseError as refused:
        flash(translated(refused.text))
        return _content(status=422)
    flash(gettext("Copied into %(course)s as %(id)s, a draft there: publish it in that course when it is ready.",
                  course=target.code, id=new_id))  # fmt: skip
    return _back()
