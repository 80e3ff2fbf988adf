"""Publishing from the instructor pages: publish, unpublish, and preview the newest version as a learner
would get it (on the teach blueprint, behind its instructors-only guard; every form is CSRF-checked)."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user
from werkzeug.wrappers import Response

from grader.answers.results import ExerciseResult
from grader.catalog.lessons import lesson_title
from grader.services import publishing
from grader.services.attempts import UnknownParts
from grader.services.exercises import SpecInvalid, spec_of
from grader.web.forms import AnswerForm
from grader.web.learn import FIELD_PREFIX, typed_answers
from grader.web.course_context import course_id
from grader.web.teach import bp
from grader.web.filters import when


@bp.post("/exercises/<exercise_id>/publish")
def publish_exercise(exercise_id: str) -> Response:
    """Make the newest version the one learners get (from its opening date, if that is ahead)."""
    try:
        done = publishing.publish(exercise_id, current_user.id, course_id())
    except publishing.CannotPublish:
        abort(409, gettext("This version no longer passes validation: edit it, then publish."))
    if not done.changed:
        flash(gettext("Version %(version)d is already published.", version=done.version))
    elif done.opens is not None:
        flash(gettext("Published version %(version)d: learners see it from %(when)s UTC, its opening date.",
                      version=done.version, when=when(done.opens)))  # fmt: skip
    else:
        flash(gettext("Published version %(version)d: learners see it now.", version=done.version))
    return redirect(url_for("teach.exercise", exercise_id=exercise_id), code=303)


@bp.post("/exercises/<exercise_id>/unpublish")
def unpublish_exercise(exercise_id: str) -> Response:
    """Hide the exercise from learners; their attempts and scores are kept for when it is published again."""
    if publishing.unpublish(exercise_id, current_user.id):
        flash(gettext("Unpublished: learners no longer see this exercise. Their work is kept."))
    return redirect(url_for("teach.exercise", exercise_id=exercise_id), code=303)


@bp.route("/exercises/<exercise_id>/as-learner", methods=["GET", "POST"])
def preview_as_learner(exercise_id: str) -> tuple[str, int]:
    """The newest version as a learner would get it, with the instructor's own numbers; answers sent here
    are checked and shown, never stored."""
    try:
        shown = publishing.preview(current_user.id, exercise_id)
    except SpecInvalid:
        abort(409, gettext("This version no longer passes validation: edit it to preview it."))
    result: ExerciseResult | None = None
    typed: dict[str, str] = {}
    status = 200
    if request.method == "POST" and shown.variant is not None:
        if not AnswerForm().validate_on_submit():
            abort(400)
        typed = typed_answers()
        try:
            result = publishing.check_preview(shown.variant, typed)
        except UnknownParts:
            abort(400)
        status = 200 if result.counted else 422
    spec = spec_of(shown.version) if shown.variant is not None else None
    html = render_template(
        "teach/preview_learner.html", exercise=shown.exercise, version=shown.version.version, variant=shown.variant,
        spec=spec, lesson=lesson_title(shown.exercise.lesson), result=result, typed=typed, form=AnswerForm(),
        prefix=FIELD_PREFIX,
    )  # fmt: skip
    return html, status
