"""Instructor gradebook pages: learners × exercises with filters, and the streamed CSV export.

The routes live on the teach blueprint, so its instructors-only guard covers them.
"""

from __future__ import annotations

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext, lazy_gettext as _l, ngettext
from flask.typing import ResponseReturnValue
from flask_login import current_user
from flask_wtf import FlaskForm

from grader.catalog.lessons import lesson_title
from grader.catalog.policy import DateProblem, applying_due, due_from_text
from grader.lti import contexts
from grader.services import accounts, audit, exports, extensions, gradebook as book, insights, overrides, password_reset
from grader.services import courses
from grader.services.courses import Seat
from grader.services.exercises import part_labels
from grader.web.course_context import course_exercise, course_exercises, current as here
from grader.web.auth import reset_url
from grader.web.csv_download import csv_attachment
from grader.web.i18n import translated
from grader.web.filters import percent, when
from grader.web.forms import DueForm, ResetLinkForm, ScoreForm, query_int
from grader.web.teach import bp

PAGE_SIZE = 100
# The stored status codes, as the learner-work page names them.
VERDICT_WORDS = {"correct": _l("correct"), "incorrect": _l("incorrect"), "invalid": _l("invalid")}
SUBMISSION_WORDS = {"graded": _l("graded"), "failed": _l("not graded"), "pending": _l("queued")}


def _filters() -> book.Filters:
    args = request.args
    learner = (args.get("learner") or "").strip()[:254]
    return book.Filters(here().seat.course_id, lesson=args.get("lesson") or None,
                        exercise=args.get("exercise") or None, learner=learner or None)  # fmt: skip


@bp.get("/gradebook")
def gradebook() -> str:
    """Learners × exercises: best score and attempts, filtered, 100 learners a page."""
    filters = _filters()
    page = query_int("page", high=10**9) or 1
    columns, exercises = book.columns(filters), course_exercises()
    # One more than a page, to know whether another page follows.
    shown = list(book.rows(filters, columns, offset=(page - 1) * PAGE_SIZE, limit=PAGE_SIZE + 1))
    query = {k: v for k, v in (("lesson", filters.lesson), ("exercise", filters.exercise),
                               ("learner", filters.learner)) if v}  # fmt: skip
    return render_template(
        "teach/gradebook.html", filters=filters, columns=columns, rows=shown[:PAGE_SIZE], page=page,
        more=len(shown) > PAGE_SIZE, query=query, lessons=insights.lessons(exercises), exercises=exercises,
        lesson_title=lesson_title, roster_offered=bool(contexts.with_roster(filters.course_id)),
    )  # fmt: skip


def _seat(user_id: int) -> Seat:
    """The learner's seat in the course this page is about."""
    return Seat(here().seat.course_id, user_id)


def _work_of(user_id: int, exercise_id: str) -> book.LearnerWork:
    work = book.learner_work(_seat(user_id), exercise_id)
    if work is None:
        abort(404, _l("There is no such learner or exercise."))
    return work


def _work_page(user_id: int, work: book.LearnerWork, **forms: FlaskForm) -> str:
    """The learner's work; a form given by name (due_form, score_form) replaces its prefilled default."""
    due = applying_due(work.due_at, work.own_due)
    mine = work.progress
    set_by_hand = mine.override_score if mine else None
    defaults = {"due_form": DueForm(formdata=None, due=f"{due.isoformat()}+00:00" if due else ""),
                "score_form": ScoreForm(formdata=None, reason=mine.override_reason if mine else None,
                                        score="" if set_by_hand is None else f"{100 * set_by_hand:g}")}  # fmt: skip
    return render_template("teach/learner_work.html", work=work, labels=part_labels(work.exercise),
                           lesson=lesson_title(work.exercise.lesson), verdicts=VERDICT_WORDS,
                           statuses=SUBMISSION_WORDS, user_id=user_id, **{**defaults, **forms})  # fmt: skip


@bp.get("/gradebook/<int:user_id>/<exercise_id>")
def learner_work(user_id: int, exercise_id: str) -> str:
    """One learner's attempts or code submissions on one exercise: what they typed and how it was graded."""
    return _work_page(user_id, _work_of(user_id, exercise_id))


@bp.post("/gradebook/<int:user_id>/<exercise_id>/due")
def learner_due(user_id: int, exercise_id: str) -> ResponseReturnValue:
    """Give one learner their own due date on an exercise that has one, or take it back."""
    work, form = _work_of(user_id, exercise_id), DueForm()
    if work.due_at is None:
        abort(409, _l("This exercise has no due date to extend."))
    if not form.validate_on_submit():
        if form.csrf_refused:
            abort(400)
        return _work_page(user_id, work, due_form=form), 422  # too long: said next to the field
    back = redirect(url_for("teach.learner_work", user_id=user_id, exercise_id=exercise_id), code=303)
    chosen = extensions.with_due_dates(here().seat.course_id, exercise_id) if form.whole_lesson.data else [exercise_id]
    if request.form.get("action") == "remove":
        removed = extensions.withdraw(_seat(user_id), chosen, current_user.id)
        if removed == 1:
            flash(gettext("The extension was removed: the exercise's due date applies again."))
        elif removed:
            flash(ngettext("%(num)d extension was removed: the exercises' due dates apply again.",
                           "%(num)d extensions were removed: the exercises' due dates apply again.", removed))  # fmt: skip
        return back
    try:
        due = due_from_text(form.due.data or "")
    except DateProblem as error:
        form.due.errors = [translated(error.text)]
        return _work_page(user_id, work, due_form=form), 422
    extensions.grant(_seat(user_id), chosen, due, current_user.id)
    if len(chosen) == 1:
        flash(gettext("%(email)s now has until %(when)s UTC.", email=work.email, when=when(due)))
    else:
        flash(ngettext("%(email)s now has until %(when)s UTC on %(num)d exercise.",
                       "%(email)s now has until %(when)s UTC on %(num)d exercises.", len(chosen), email=work.email,
                       when=when(due)))  # fmt: skip
    _warn_if_not_later(extensions.not_later(here().seat.course_id, chosen, due), len(chosen))
    return back


def _warn_if_not_later(unchanged: list[str], chosen: int) -> None:
    """Say where the exercise's own due date is already as late: the learner keeps that one there."""
    if unchanged and chosen == 1:
        flash(gettext("The exercise's own due date is not earlier, so it still applies: an extension only gives more "
                      "time."))  # fmt: skip
    elif unchanged:
        flash(gettext("On %(exercises)s the exercise's own due date is not earlier, so it still applies: an extension "
                      "only gives more time.", exercises=", ".join(unchanged)))  # fmt: skip


@bp.post("/gradebook/<int:user_id>/<exercise_id>/score")
def learner_score(user_id: int, exercise_id: str) -> ResponseReturnValue:
    """Set one learner's score on an exercise, with a reason they see, or remove it."""
    work, form = _work_of(user_id, exercise_id), ScoreForm()
    if not form.validate_on_submit():
        if form.csrf_refused:
            abort(400)
        return _work_page(user_id, work, score_form=form), 422
    back = redirect(url_for("teach.learner_work", user_id=user_id, exercise_id=exercise_id), code=303)
    if request.form.get("action") == "remove":
        if overrides.remove(_seat(user_id), exercise_id, current_user.id):
            flash(gettext("The score set by hand was removed: the best attempt counts again."))
        return back
    try:
        score = overrides.set_score(_seat(user_id), exercise_id, form.score.data or "", form.reason.data or "",
                                    current_user.id)  # fmt: skip
    except overrides.OverrideError as error:
        form[error.field].errors = [translated(error.text)]
        return _work_page(user_id, work, score_form=form), 422
    flash(gettext("%(email)s now has %(score)s on this exercise.", email=work.email, score=percent(score)))
    return back


@bp.get("/exercises/<exercise_id>/attempts.csv")
def attempts_csv(exercise_id: str) -> Response:
    """Every attempt (or code submission) on an exercise as CSV, streamed, oldest first."""
    exercise, course = course_exercise(exercise_id), here().seat.course_id
    return csv_attachment(lambda: exports.exercise_attempts_csv(course, exercise), f"{exercise.id}-attempts.csv")


@bp.get("/gradebook.csv")
def gradebook_csv() -> Response:
    """The filtered gradebook as CSV, streamed row by row (not paginated)."""
    filters = _filters()
    return csv_attachment(lambda: book.csv_lines(filters), "gradebook.csv")


@bp.route("/reset-link", methods=["GET", "POST"])
def reset_link() -> str:
    """Make a one-time password reset link for a learner, to hand over (for a site without mail, or faster)."""
    form, link = ResetLinkForm(), None
    if form.validate_on_submit():
        user = accounts.user_by_email(form.email.data or "")
        # Only for this course's learners who teach nowhere: staff reset through an operator's CLI.
        if (user is None or user.is_staff or not courses.is_learner(here().seat.course_id, user.id)
                or not courses.only_learns(user.id)):  # fmt: skip
            form.email.errors = [gettext("There is no learner with that email.")]
        elif not password_reset.resettable(user):
            form.email.errors = [gettext("This learner signs in through their LMS: there is no password here to "
                                         "reset.")]  # fmt: skip
        else:
            link = reset_url(user)
            audit.record(current_user.id, "reset_link", user.id, course_id=here().seat.course_id)
    hours = password_reset.RESET_SECONDS // 3600
    return render_template("teach/reset_link.html", form=form, link=link, hours=hours)
