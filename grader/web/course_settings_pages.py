"""A course's settings for its instructors (title, language, dates, joining with a code), and a new course for
site staff. The course's content is on the same blueprint, in course_content_pages."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext, lazy_gettext as _l
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse
from wtforms import BooleanField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Length

from grader.course_models import Course
from grader.extensions import db
from grader.services import course_settings
from grader.services.course_settings import LOCALES, Problems
from grader.web.course_context import SESSION_KEY, current
from grader.web.filters import when
from grader.web.forms import PageForm
from grader.web.i18n import LANGUAGES, translated

bp = Blueprint("course_admin", __name__, url_prefix="/teach/course")
STAFF_ONLY = frozenset({"course_admin.new_course"})  # site staff make courses; the rest is the course's instructors'


def _language() -> SelectField:
    # The service checks the choice, so a wrong one is said beside the other fields' problems.
    return SelectField(_l("Default language"), choices=[SelectChoice(c, LANGUAGES[c]) for c in LOCALES],
                       validate_choice=False)


class SettingsForm(PageForm):
    """A course's title, language and dates."""

    title = StringField(_l("Title"), validators=[Length(max=400)])
    locale = _language()
    starts = StringField(_l("First day"), validators=[Length(max=32)], description=_l("YYYY-MM-DD; empty for none."))
    ends = StringField(_l("Last day"), validators=[Length(max=32)],
                       description=_l("YYYY-MM-DD, UTC; after it learners can read their work but not add to it."))


class JoiningForm(PageForm):
    """Joining with a code: on or off, and until when."""

    enabled = BooleanField(_l("Learners may join with the code"))
    expires = StringField(_l("Code works until (last day)"), validators=[Length(max=32)],
                          description=_l("YYYY-MM-DD, UTC; empty for no expiry."))


class NewCourseForm(PageForm):
    """A new course: its code, title and language."""

    code = StringField(_l("Code"), validators=[Length(max=80)],
                       description=_l("Lower-case letters, digits and hyphens, such as ml101-2027s. It is in links."))
    title = StringField(_l("Title"), validators=[Length(max=400)])
    locale = _language()


@bp.before_request
def _guard() -> BaseResponse | None:
    """Anonymous people log in; the course's instructors (and admins) change it; site staff make new courses."""
    if not current_user.is_authenticated:
        return current_app.login_manager.unauthorized()  # type: ignore[attr-defined,no-any-return]
    if request.endpoint in STAFF_ONLY:
        if not current_user.is_staff:
            abort(403)
    elif not current().instructor:
        abort(403)
    return None


def course() -> Course:
    """The course the page is about (the one the instructor works in)."""
    found = db.session.get(Course, current().seat.course_id)
    if found is None:
        abort(404)
    return found


def place(form: PageForm, problems: Problems) -> None:
    """Say each problem next to its field, in the page's language."""
    for name, text in problems.items():
        getattr(form, name).errors = [translated(text)]


def _page(settings: SettingsForm | None = None, joining: JoiningForm | None = None, status: int = 200
          ) -> tuple[str, int]:  # fmt: skip
    found = course()
    last = course_settings.last_day(found)
    settings = settings or SettingsForm(formdata=None, title=found.title, locale=found.locale,
                                        starts=found.starts_at.date().isoformat() if found.starts_at else "",
                                        ends=last.isoformat() if last else "")  # fmt: skip
    expiry = found.join_expires_at
    joining = joining or JoiningForm(formdata=None, enabled=found.join_enabled, expires="" if expiry is None else
                                     course_settings.day_before(expiry).isoformat())  # fmt: skip
    link = url_for("courses.join_link", code=found.join_code, _external=True) if found.join_code else None
    return render_template("teach/course_settings.html", course=found, form=settings, joining=joining, link=link,
                           renew=PageForm()), status  # fmt: skip


@bp.route("", methods=["GET", "POST"])
def settings() -> BaseResponse | tuple[str, int]:
    """The course's title, language and dates."""
    form = SettingsForm()
    if request.method == "GET":
        return _page()
    if not form.validate_on_submit():
        if form.csrf_refused:
            abort(400)
        return _page(settings=form, status=422)
    given = course_settings.Settings(form.title.data or "", form.locale.data or "", form.starts.data or "",
                                     form.ends.data or "")  # fmt: skip
    problems = course_settings.update(course(), given, current_user.id)
    if problems:
        place(form, problems)
        return _page(settings=form, status=422)
    flash(gettext("The course's settings are saved."))
    return redirect(url_for("course_admin.settings"), code=303)


@bp.post("/joining")
def joining() -> BaseResponse | tuple[str, int]:
    """Switch joining with a code on or off, with an optional last day."""
    form = JoiningForm()
    if not form.validate_on_submit():
        if form.csrf_refused:
            abort(400)
        return _page(joining=form, status=422)
    found = course()
    problems = course_settings.set_joining(found, bool(form.enabled.data), form.expires.data or "", current_user.id)
    if problems:
        place(form, problems)
        return _page(joining=form, status=422)
    if found.join_enabled and found.join_expires_at:
        flash(gettext("Learners can join with the code %(code)s until %(when)s UTC.", code=found.join_code,
                      when=when(found.join_expires_at)))  # fmt: skip
    elif found.join_enabled:
        flash(gettext("Learners can join with the code %(code)s.", code=found.join_code))
    else:
        flash(gettext("Joining with the code is switched off."))
    return redirect(url_for("course_admin.settings"), code=303)


@bp.post("/new-code")
def new_code() -> BaseResponse:
    """Give the course a new join code; the old one stops working."""
    if not PageForm().validate_on_submit():
        abort(400)
    flash(gettext("The new join code is %(code)s; the old one no longer works.",
                  code=course_settings.renew_code(course(), current_user.id)))  # fmt: skip
    return redirect(url_for("course_admin.settings"), code=303)


@bp.route("/new", methods=["GET", "POST"])
def new_course() -> BaseResponse | tuple[str, int]:
    """A new course (site staff): its maker becomes its instructor and works in it from now on."""
    form = NewCourseForm()
    if request.method == "POST":
        if not form.validate_on_submit():
            if form.csrf_refused:
                abort(400)
        else:
            made, problems = course_settings.create(form.code.data or "", form.title.data or "", form.locale.data or "",
                                                    current_user.id)  # fmt: skip
            if made is not None:
                session[SESSION_KEY] = made.code
                flash(gettext("The course %(code)s is made, and you are its instructor.", code=made.code))
                return redirect(url_for("course_admin.settings"), code=303)
            place(form, problems)
        return render_template("teach/course_new.html", form=form), 422
    return render_template("teach/course_new.html", form=form), 200
