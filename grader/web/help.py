"""Help on the exercise page: ask for the next hint, or give up to see the worked solution (POST-redirect-GET).

The buttons belong to the answer form, so each POST carries what the learner typed; it is kept (never graded)
and shown again, under the verdict the page showed, on the page the redirect leads to. Typed answers wait in
the session; code, up to 64 KB, is kept as the learner's draft in the database (grader.services.code_drafts),
so the question page need not carry it. Code that cannot be kept (too large) does not stop the help: the page
is shown at once with that code in the editor, saying so. Giving up is asked twice: a confirmation page
without JavaScript, the browser's own confirm() with it."""

from __future__ import annotations

from flask import abort, redirect, render_template, request, url_for
from flask_babel import get_locale
from flask_login import login_required
from werkzeug.wrappers import Response

from grader.extensions import limiter, user_key
from grader.catalog.policy import AttemptPolicy
from grader.catalog.translations import Localised
from grader.codecheck.spec import CodeExerciseSpec
from grader.services import help
from grader.web import code
from grader.web.course_context import current as here
from grader.web.forms import AnswerForm, query_int
from grader.web.learn import FIELD_PREFIX, bp, keep_answers, typed_answers


def _checked_form() -> None:
    if not AnswerForm().validate_on_submit():
        abort(400)


def _keep_code(exercise_id: str, policy: AttemptPolicy) -> str | None:
    """On a code exercise, keep the code sent along as the learner's draft; why it could not be, if so."""
    return code.keep_draft(exercise_id) if isinstance(policy, CodeExerciseSpec) else None


def _back(exercise_id: str, anchor: str | None, refused: str | None = None) -> Response | tuple[str, int]:
    """The exercise page again, with the typed answers kept and the attempt it showed (its verdict) named; code
    that could not be kept is shown at once, in the editor, with why."""
    if refused is not None:
        return code.page(exercise_id, refused, 422, request.form.get("source"))
    keep_answers(exercise_id, "help")
    shown = query_int("shown", posted=True)
    return redirect(url_for("learn.exercise", exercise_id=exercise_id, attempt=shown, _anchor=anchor), code=303)


@bp.post("/exercises/<exercise_id>/hint")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def hint(exercise_id: str) -> Response | tuple[str, int]:
    """Reveal the learner's next hint (a step of the worked solution with their numbers)."""
    _checked_form()
    policy, steps = _hints(exercise_id)
    if not policy.offer_hints:
        abort(404)
    refused = _keep_code(exercise_id, policy)
    help.take_hint(here().seat, exercise_id, len(steps))
    return _back(exercise_id, "hints", refused)


def _hints(exercise_id: str) -> tuple[AttemptPolicy, list[str]]:
    """The exercise's policy and its hints in the page's language, typed answers or code alike."""
    return help.policy_and_hints(here().seat, exercise_id, str(get_locale()), early=here().staff)


@bp.post("/exercises/<exercise_id>/give-up")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def give_up(exercise_id: str) -> Response | tuple[str, int] | str:
    """End scoring on the learner's numbers and show the worked solution, once confirmed (confirm=yes);
    any other POST shows the question, and confirm=no goes back to the exercise."""
    _checked_form()
    policy, _steps = _hints(exercise_id)  # refuses an unknown exercise, or one not open yet
    refused = _keep_code(exercise_id, policy)  # kept at the question already: leaving it there loses nothing
    answer = request.form.get("confirm")
    if answer == "no":
        return _back(exercise_id, None, refused)
    if answer != "yes":
        title = policy.title_in(str(get_locale())) if isinstance(policy, Localised) else exercise_id
        return render_template("learn/give_up.html", exercise_id=exercise_id, title=title, typed=typed_answers(),
                               prefix=FIELD_PREFIX, shown=query_int("shown", posted=True), refused=refused,
                               source=request.form.get("source") if refused else None)  # fmt: skip
    help.give_up(here().seat, exercise_id)
    return _back(exercise_id, "solution", refused)
