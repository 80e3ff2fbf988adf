"""Pages about one's courses: the list (choose the one to work in) and joining one with a code."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, session, url_for
from flask_babel import gettext, lazy_gettext as _l
from flask_login import current_user, login_required
from werkzeug.wrappers import Response
from wtforms import StringField
from wtforms.validators import DataRequired, Length

from grader.services import courses
from grader.web.course_context import SESSION_KEY, page_course, resolve
from grader.web.forms import IdForm, PageForm
from grader.web.i18n import translated

bp = Blueprint("courses", __name__)


class JoinForm(PageForm):
    """The join code a learner was given."""

    code = StringField(_l("Join code"), validators=[DataRequired(), Length(max=32)],
                       description=_l("Your instructor gives it, or a link that fills it in."))


def _index(form: JoinForm, status: int = 200) -> tuple[str, int]:
    mine = courses.memberships(current_user.id)
    here = page_course()
    return render_template("courses/index.html", mine=mine, working_in=here.code if here else None, form=form,
                           use=IdForm()), status  # fmt: skip


@bp.get("/courses")
@login_required
def index() -> tuple[str, int]:
    """The person's courses, the one they work in now, and a form to join another."""
    return _index(JoinForm())


@bp.post("/courses/use")
@login_required
def use() -> Response:
    """Work in another of one's courses from now on (remembered for this sign-in)."""
    form = IdForm()
    if not form.validate_on_submit():
        abort(400)
    if resolve(current_user.id, current_user.is_admin, form.id.data or "") is None:  # the rule every page keeps
        abort(404)
    session[SESSION_KEY] = form.id.data
    return redirect(url_for("learn.dashboard"), code=303)


@bp.get("/join/<code>")
@login_required
def join_link(code: str) -> tuple[str, int]:
    """A join link: the form, filled in, for the learner to confirm."""
    return _index(JoinForm(formdata=None, code=code[:32]))


@bp.post("/join")
@login_required
def join() -> Response | tuple[str, int]:
    """Join a course with its code; an unknown, switched-off or expired code is said next to the field."""
    form = JoinForm()
    if not form.validate_on_submit():
        if form.csrf_refused:
            abort(400)
        return _index(form, 422)
    try:
        course = courses.join_with_code(current_user._get_current_object(), form.code.data or "")
    except courses.CourseError as error:
        form.code.errors = [translated(error.text)]
        return _index(form, 422)
    session[SESSION_KEY] = course.code
    flash(gettext("You are now in %(title)s.", title=course.title))
    return redirect(url_for("learn.dashboard"), code=303)
