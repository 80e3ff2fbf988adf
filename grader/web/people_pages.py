"""The People page of a course: its members, their roles and how they joined; its instructors change roles,
remove people, add one by email, or import a CSV file or a pasted list. TAs see the list only."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext, lazy_gettext as _l
from flask_login import current_user
from flask_wtf.file import FileField
from werkzeug.wrappers import Response
from wtforms import BooleanField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length

from grader.course_models import COURSE_ROLES, LEARNER, Course
from grader.extensions import db
from grader.services import courses, enrolment
from grader.services.enrolment_rows import MAX_BYTES, MAX_ROWS, ListRefused
from grader.web.course_context import Here, current, page_course
from grader.web.forms import PageForm, query_int
from grader.web.i18n import translated
from grader.web.invitations import invite, mail_server, new_accounts

bp = Blueprint("people", __name__, url_prefix="/teach")
ROLE_NAMES = {"instructor": _l("instructor"), "ta": _l("teaching assistant"), "learner": _l("learner")}
# How each member came into the course (CourseMember.added_by).
JOINED_BY = {"staff": _l("added by an instructor"), "code": _l("join code"), "import": _l("import"),
             "lti": _l("LMS launch"), "migration": _l("there before courses"), "open": _l("open to every account")}
ROLE_CHOICES = [SelectChoice(role, ROLE_NAMES[role]) for role in COURSE_ROLES]


class AddForm(PageForm):
    """One person to add, by email, with a course role."""

    email = StringField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    role = SelectField(_l("Role"), choices=ROLE_CHOICES, default=LEARNER)
    invite = BooleanField(_l("Email a new account an invitation with a link to choose its password"), default=True)


class ImportPeopleForm(PageForm):
    """A CSV file or a pasted list of emails, and whether to import the good rows when some are bad."""

    upload = FileField(_l("CSV file"))
    emails = TextAreaField(_l("Or paste emails"), validators=[Length(max=MAX_BYTES)],
                           description=_l("Separated by new lines, commas, semicolons or spaces; each becomes a learner."))
    good_only = BooleanField(_l("If some rows are bad, import the good ones and leave the bad ones out"))
    invite = BooleanField(_l("Email each new account an invitation with a link to choose its password"), default=True)


class RoleForm(PageForm):
    """A member's new course role."""

    role = SelectField(_l("Role"), choices=ROLE_CHOICES)


class RemoveForm(PageForm):
    """CSRF only: remove the member named in the address."""


@bp.before_request
def _course_staff_only() -> Response | None:
    """The list is for the course's staff; changing it is for its instructors (and site admins)."""
    if not current_user.is_authenticated:
        return current_app.login_manager.unauthorized()  # type: ignore[attr-defined,no-any-return]
    here = page_course()
    if here is None or not here.staff or (request.endpoint != "people.index" and not here.instructor):
        abort(403)
    return None


def _list(here: Here, add: AddForm | None = None, upload: ImportPeopleForm | None = None,
          report: enrolment.Report | None = None, status: int = 200, invited: int = 0) -> tuple[str, int]:  # fmt: skip
    role = request.args.get("role") if request.args.get("role") in COURSE_ROLES else None
    query, page = request.args.get("q", "")[:254], query_int("page", 10_000) or 1
    found, total = enrolment.people(here.seat.course_id, role, query, page)
    html = render_template(
        "teach/people.html", people=found, total=total, page=page, pages=max(1, -(-total // enrolment.PAGE)),
        role=role, query=query, counts=courses.member_counts(here.seat.course_id), roles=ROLE_NAMES,
        joined_by=JOINED_BY, manage=here.instructor, add=add or AddForm(), upload=upload or ImportPeopleForm(),
        report=report, max_rows=MAX_ROWS, max_kb=MAX_BYTES // 1000, invitations=mail_server() is not None,
        invited=invited,
    )  # fmt: skip
    return html, status


def _invited(here: Here, report: enrolment.Report, asked: object) -> int:
    """Invitations mailed to the accounts an import made, when the instructor asked and the site sends mail."""
    course = db.session.get(Course, here.seat.course_id)
    if not asked or course is None:
        return 0
    return invite(course, new_accounts(report), current_user.email)


@bp.get("/people")
def index() -> tuple[str, int]:
    """The course's members, 100 a page, of one role (?role=) and matching an email (?q=) when asked."""
    return _list(current())


@bp.post("/people/add")
def add() -> Response | tuple[str, int]:
    """Add one person by email; a new address gets an account without a password (a reset link sets one)."""
    here, form = current(), AddForm()
    if not form.validate_on_submit():
        return _refused(form, here, lambda: _list(here, add=form, status=422))
    try:
        report = enrolment.add_person(here.seat.course_id, form.email.data or "", form.role.data, current_user.id)
    except courses.CourseError as error:
        form.email.errors = [translated(error.text)]
        return _list(here, add=form, status=422)
    flash(_added_message(report, form.role.data))
    if _invited(here, report, form.invite.data):
        flash(gettext("An invitation is on its way to %(email)s.", email=report.added[0]["email"]))
    return redirect(url_for("people.index"), code=303)


def _added_message(report: enrolment.Report, role: str) -> str:
    done = report.added or report.raised
    if done:
        return gettext("%(email)s is now in the course as %(role)s.", email=done[0]["email"], role=ROLE_NAMES[role])
    held = report.kept[0]["role"] if report.kept else role
    return gettext("They are in the course already, as %(role)s. Change a role from the person's page.",
                   role=ROLE_NAMES[held])  # fmt: skip


@bp.post("/people/import")
def import_people() -> tuple[str, int]:
    """Import a CSV file or a pasted list; bad rows are listed and nothing is imported unless asked for."""
    here, form = current(), ImportPeopleForm()
    if not form.validate_on_submit():
        return _refused(form, here, lambda: _list(here, upload=form, status=422))
    course_id, good_only = here.seat.course_id, bool(form.good_only.data)
    upload, pasted = form.upload.data, (form.emails.data or "").strip()
    try:
        if upload and upload.filename:
            report = enrolment.import_file(course_id, upload.stream.read(MAX_BYTES + 1), current_user.id, good_only)
        elif pasted:
            report = enrolment.import_list(course_id, pasted, current_user.id, good_only)
        else:
            form.upload.errors = [gettext("Choose a CSV file, or paste a list of emails.")]
            return _list(here, upload=form, status=422)
    except (ListRefused, courses.CourseError) as error:
        (form.upload if upload and upload.filename else form.emails).errors = [translated(error.text)]
        return _list(here, upload=form, status=422)
    invited = _invited(here, report, form.invite.data) if report.imported else 0
    return _list(here, upload=form, report=report, status=200 if report.imported else 422, invited=invited)


def _refused(form: PageForm, here: Here, page: object) -> tuple[str, int]:
    if form.csrf_refused:
        abort(400)
    return page()  # type: ignore[operator,no-any-return]


def _member_or_404(here: Here, user_id: int) -> enrolment.Person:
    found = enrolment.member(here.seat.course_id, user_id)
    if found is None:
        abort(404)  # not in this course: another course's member is not here to see
    return found


def _person_page(here: Here, user_id: int, form: RoleForm | None = None, status: int = 200,
                 remove_error: str | None = None) -> tuple[str, int]:  # fmt: skip
    person = _member_or_404(here, user_id)
    form = form or RoleForm(role=person.role)
    return render_template("teach/person.html", person=person, form=form, remove=RemoveForm(), roles=ROLE_NAMES,
                           joined_by=JOINED_BY, remove_error=remove_error), status  # fmt: skip


@bp.get("/people/<int:user_id>")
def person(user_id: int) -> tuple[str, int]:
    """One member: their role, how they joined, and the forms to change the role or remove them."""
    return _person_page(current(), user_id)


@bp.post("/people/<int:user_id>/role")
def change_role(user_id: int) -> Response | tuple[str, int]:
    """Give a member another role; the course's last instructor keeps theirs."""
    here, form = current(), RoleForm()
    _member_or_404(here, user_id)
    if not form.validate_on_submit():
        return _refused(form, here, lambda: _person_page(here, user_id, form, 422))
    try:
        enrolment.change_role(here.seat.course_id, user_id, form.role.data, current_user.id)
    except courses.CourseError as error:
        form.role.errors = [translated(error.text)]
        return _person_page(here, user_id, form, 422)
    flash(gettext("The role is now %(role)s.", role=ROLE_NAMES[form.role.data]))
    return _after(here, user_id, url_for("people.person", user_id=user_id))


@bp.post("/people/<int:user_id>/remove")
def remove(user_id: int) -> Response | tuple[str, int]:
    """End a member's access to the course; their work in it stays stored."""
    here, form = current(), RemoveForm()
    _member_or_404(here, user_id)
    if not form.validate_on_submit():
        return _refused(form, here, lambda: _person_page(here, user_id, status=422))
    try:
        enrolment.remove(here.seat.course_id, user_id, current_user.id)
    except courses.CourseError as error:
        return _person_page(here, user_id, status=422, remove_error=translated(error.text))
    flash(gettext("Removed from the course. Their work in it is kept, and comes back if they are added again."))
    return _after(here, user_id, url_for("people.index"))


def _after(here: Here, user_id: int, target: str) -> Response:
    """To `target`; after changing one's own place, to the page one may still open (the list for a TA, one's
    courses for a learner or someone no longer in the course)."""
    if user_id == current_user.id and here.role != "admin":
        still = enrolment.member(here.seat.course_id, user_id)
        if still is None or still.role == LEARNER:
            target = url_for("courses.index")
        elif still.role != "instructor":
            target = url_for("people.index")
    return redirect(target, code=303)
