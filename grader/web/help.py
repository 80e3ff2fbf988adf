"""Help on the exercise page: ask for the next hint, or give up to see the worked solution (POST-redirect-GET)."""

from __future__ import annotations

from flask import abort, redirect, url_for
from flask_babel import get_locale
from flask_login import current_user, login_required
from werkzeug.wrappers import Response

from grader.extensions import limiter, user_key
from grader.services import attempts, help
from grader.web.forms import AnswerForm
from grader.web.learn import bp


def _checked_form() -> None:
    if not AnswerForm().validate_on_submit():
        abort(400)


def _back(exercise_id: str, anchor: str) -> Response:
    return redirect(url_for("learn.exercise", exercise_id=exercise_id, _anchor=anchor), code=303)


@bp.post("/exercises/<exercise_id>/hint")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def hint(exercise_id: str) -> Response:
    """Reveal the learner's next hint (a step of the worked solution with their numbers)."""
    _checked_form()
    try:
        stored, variant = attempts.learner_variant(current_user.id, exercise_id, early=current_user.is_instructor)
    except attempts.CodeExercise:
        abort(404)
    if not stored.policy().offer_hints:
        abort(404)
    count = len(variant.hints_in(str(get_locale())))
    help.take_hint(current_user.id, exercise_id, count)
    return _back(exercise_id, "hints")


@bp.post("/exercises/<exercise_id>/give-up")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def give_up(exercise_id: str) -> Response:
    """End scoring on the learner's numbers and show the worked solution."""
    _checked_form()
    try:
        attempts.open_version(current_user.id, exercise_id, early=current_user.is_instructor)
    except attempts.CodeExercise:
        abort(404)
    help.give_up(current_user.id, exercise_id)
    return _back(exercise_id, "solution")
