"""Learner pages for code exercises: the stub, an editor or upload, and the graded cases."""

from __future__ import annotations

from flask import abort, current_app, redirect, render_template, request, url_for
from flask_babel import get_locale, gettext, lazy_gettext as _l
from werkzeug.wrappers import Response

from grader.catalog.lessons import lesson_title
from grader.code_grading import SourceRejected
from grader.services import code_drafts, exercises, help, submissions
from grader.services.course_rules import for_learner
from grader.models import utcnow
from grader.services.attempts import finished as finished_with, progress_of
from grader.web import code_feedback
from grader.web.course_context import current as here
from grader.web.forms import AnswerForm, query_int
from grader.web.i18n import translated

LABELS = {"passed": _l("All cases passed"), "failed": _l("Some cases failed"), "error": _l("Your code did not run"),
          "timeout": _l("Time limit reached"), "memory_limit": _l("Memory limit reached"),
          "invalid": _l("Not graded: the grader could not run your code")}  # fmt: skip
# One word per case or submission status, for tables.
STATUS_WORDS = {"passed": _l("passed"), "failed": _l("failed"), "error": _l("error"), "timeout": _l("timeout"),
                "memory_limit": _l("memory limit"), "invalid": _l("not graded"), "pending": _l("queued")}  # fmt: skip


def page(exercise_id: str, error: str | None = None, status: int = 200, source: str | None = None) -> tuple[str, int]:
    """The code exercise page, showing the submission named in ?submission= (or the latest)."""
    stored = exercises.existing_version(exercise_id)
    spec = for_learner(exercises.code_spec_of(stored), here().seat)
    history = submissions.history(here().seat, exercise_id)
    wanted = query_int("submission")
    shown = next((s for s in history if s.id == wanted), history[0] if history else None)
    mine = progress_of(here().seat, exercise_id)
    finished = finished_with(mine, spec, utcnow())
    offered = help.help_for(spec, spec.hints_in(str(get_locale())), mine, finished)
    if source is None:  # not code just sent back: what the learner last had (grader.services.code_drafts)
        source = code_drafts.in_editor(here().seat, exercise_id, history, shown, spec.stub)
    html = render_template(
        "learn/code.html", spec=spec, lesson=lesson_title(spec.lesson), history=history, shown=shown, now=utcnow(),
        pending=bool(shown and shown.status == "pending"), labels=LABELS, words=STATUS_WORDS, form=AnswerForm(),
        error=error, source=source,
        mistake_title=code_feedback.mistake_title(shown), said=code_feedback.said(shown),
        inputs=code_feedback.inputs(shown),
        used=mine.attempts_used if mine else 0, mine=mine,
        left=submissions.left_for(here().seat, exercise_id, spec.max_attempts), help=offered, finished=finished,
    )  # fmt: skip
    return html, status


def keep_draft(exercise_id: str) -> str | None:
    """Keep the code a help button sent along as the learner's draft; None when kept (or none came), else why
    it could not be, to show by the editor."""
    typed = request.form.get("source")
    if typed is None:
        return None
    try:
        code_drafts.keep(here().seat, exercise_id, typed)
    except SourceRejected as error:
        return gettext("Your code could not be kept: %(why)s It stays in the editor only until you leave this page.",
                       why=translated(error.text))  # fmt: skip
    return None


def _uploaded_or_typed() -> bytes | str:
    upload = request.files.get("upload")
    if upload is not None and upload.filename:
        return upload.read(submissions.MAX_UPLOAD_READ)
    return request.form.get("source", "")


def submit(exercise_id: str) -> Response | tuple[str, int]:
    """Store the code, start grading, wait a few seconds, then show the result or a pending page."""
    if not AnswerForm().validate_on_submit():
        abort(400)
    try:
        made = submissions.create(here().seat, exercise_id, _uploaded_or_typed(), early=here().staff)
    except SourceRejected as error:
        return page(exercise_id, translated(error.text), 422, request.form.get("source"))
    except submissions.AttemptsUsed:
        return page(exercise_id, gettext("You have used all your attempts for this exercise."), 409,
                    request.form.get("source"))  # fmt: skip
    except submissions.GaveUp:
        return page(exercise_id, translated(submissions.GAVE_UP), 409, request.form.get("source"))
    if made.submission.status == "pending":
        if submissions.dispatch(current_app._get_current_object(), made.submission.id):  # type: ignore[attr-defined]
            submissions.wait_until_graded(made.submission.id)
    target = url_for("learn.exercise", exercise_id=exercise_id, submission=made.submission.id)
    return redirect(target, code=303)  # no fragment, so the result notice takes the focus (learn.answer)
