"""Practice pages: new numbers for an exercise the learner has finished, checked and never stored.

The practice seed travels in the page as a signed token bound to the lesson (services.practice), so
a learner cannot pick a seed (another learner's, say), and the lesson's next exercise follows the
same token. Nothing is stored, so a check is answered on the POST itself; reloading it only checks the same answers again.
"""

from __future__ import annotations

from typing import NoReturn

from flask import abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import login_required
from werkzeug.wrappers import Response

from grader.answers.results import ExerciseResult
from grader.catalog.lessons import lesson_title
from grader.extensions import limiter, practice_draws, user_key
from grader.services import attempts, practice
from grader.web.errors import NO_SUCH_EXERCISE
from grader.web.course_context import current as here
from grader.web.forms import AnswerForm, query_int
from grader.web.learn import FIELD_PREFIX, bp, typed_answers


def _refuse_unfinished() -> NoReturn:
    abort(403, gettext("Practice with new numbers opens once you have solved this exercise or have nothing left to earn on it."))


def _allowed(exercise_id: str) -> attempts.CurrentVersion:
    """The exercise's current version if the user may practise it, else the matching error page."""
    try:
        return practice.allowed(here().seat, exercise_id, early=here().staff)
    except attempts.CodeExercise:  # practice is for typed answers: no such practice page
        abort(404, NO_SUCH_EXERCISE)
    except practice.NotFinished:
        _refuse_unfinished()


def _opened(exercise_id: str, token: str) -> practice.Practice:
    """The practice variant a token names, after checking that the user may practise the exercise."""
    opened = practice.from_token(_allowed(exercise_id), token, current_app.config["SECRET_KEY"])
    if opened is None:
        abort(400, gettext("These practice numbers are not valid any more. Ask for new ones."))
    return opened


def _page(opened: practice.Practice, token: str, result: ExerciseResult | None, typed: dict[str, str],
          status: int = 200, changed: bool = False) -> tuple[str, int]:  # fmt: skip
    spec = opened.current.policy()
    following = practice.next_in_lesson(here().seat, opened.current, early=here().staff)
    warm_up = practice.numbers_token(spec.lesson, 0, current_app.config["SECRET_KEY"])
    html = render_template(
        "learn/practice.html", spec=spec, variant=opened.variant, lesson=lesson_title(spec.lesson), token=token,
        result=result, typed=typed, form=AnswerForm(), prefix=FIELD_PREFIX, changed=changed,
        version=opened.current.version, following=following, warm_up=warm_up,
        here=url_for("learn.practice_page", exercise_id=spec.id, numbers=token),
    )  # fmt: skip
    return html, status


@bp.get("/exercises/<exercise_id>/practice")
@login_required
@practice_draws(user_key)
def practice_page(exercise_id: str) -> Response | tuple[str, int]:
    """A practice variant: new numbers on first visit (by redirect, so a reload keeps them)."""
    token = request.args.get("numbers")
    if token is None:
        lesson = practice.lesson_of(_allowed(exercise_id))  # refuse before making numbers that could not be used
        fresh = practice.numbers_token(lesson, practice.new_seed(), current_app.config["SECRET_KEY"])
        return redirect(url_for("learn.practice_page", exercise_id=exercise_id, numbers=fresh), code=303)
    return _page(_opened(exercise_id, token), token, None, {})


@bp.post("/exercises/<exercise_id>/practice")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def practice_check(exercise_id: str) -> tuple[str, int]:
    """Check answers to a practice variant and show the verdicts; nothing is stored."""
    if not AnswerForm().validate_on_submit():
        abort(400)
    token = request.form.get("numbers", "")
    typed = typed_answers()
    opened = _opened(exercise_id, token)
    seen = query_int("version", posted=True)
    try:
        if seen is not None and seen != opened.current.version:  # edited since: these are not those numbers
            raise attempts.VersionChanged(exercise_id)
        result = practice.check(here().seat, opened, typed)
    except (attempts.VersionChanged, attempts.UnknownParts):
        return _page(opened, token, None, typed, 409, changed=True)
    return _page(opened, token, result, typed, 200 if result.counted else 422)
