"""Help on the exercise page: ask for the next hint, or give up to see the worked solution (POST-redirect-GET)."""

from __future__ import annotations

from flask import abort, redirect, url_for
from flask_babel import get_locale
from flask_login import login_required
from werkzeug.wrappers import Response

from grader.extensions import limiter, user_key
from grader.catalog.policy import AttemptPolicy
from grader.services import help
from grader.web.course_context import current as here
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
    policy, steps = _hints(exercise_id)
    if not policy.offer_hints:
        abort(404)
    help.take_hint(here().seat, exercise_id, len(steps))
    return _back(exercise_id, "hints")


def _hints(exercise_id: str) -> tuple[AttemptPolicy, list[str]]:
    """The exercise's policy and its hints in the page's language, typed answers or code alike."""
    return help.policy_and_hints(here().seat, exercise_id, str(get_locale()), early=here().staff)


@bp.post("/exercises/<exercise_id>/give-up")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def give_up(exercise_id: str) -> Response:
    """End scoring on the learner's numbers and show the worked solution."""
    _checked_form()
    _hints(exercise_id)  # refuses an unknown exercise, or one not open yet
    help.give_up(here().seat, exercise_id)
    return _back(exercise_id, "solution")
