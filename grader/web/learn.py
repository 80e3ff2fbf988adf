"""Learner pages: the dashboard and the exercise page (plain forms, POST-redirect-GET)."""

from __future__ import annotations

import time

from flask import Blueprint, abort, redirect, render_template, request, session, url_for
from flask_babel import get_locale, lazy_gettext as _l
from flask_login import current_user, login_required
from werkzeug.wrappers import Response

from grader.answers.results import ExerciseResult
from grader.catalog.lessons import lesson_title
from grader.catalog.policy import attempts_left
from grader.catalog.spec import CODE_KIND
from grader.extensions import limiter, user_key
from grader.models import Attempt, utcnow
from grader.services import attempts, exercises, help, progress
from grader.services.course_content import uses
from grader.web import code
from grader.web.course_context import current as here, page_course
from grader.web.forms import AnswerForm, query_int

bp = Blueprint("learn", __name__)
FIELD_PREFIX = "part-"
KEPT = "kept_answers"
MAX_KEPT_CHARS = 2000  # the session is a cookie: a few KB at most
# Long enough to log in again; short, since whoever logs in next on this browser gets them back.
KEPT_SECONDS = 30 * 60


@bp.get("/")
@login_required
def dashboard() -> str | Response:
    """Lessons of the learner's course with their progress; someone in no course is shown how to join one."""
    course = page_course()
    if course is None:
        return redirect(url_for("courses.index"))
    now = utcnow()
    lessons = progress.dashboard(course.seat, now, everything=course.staff)
    return render_template("learn/dashboard.html", lessons=lessons, now=now, soon=progress.due_soon(lessons, now))


RESEND = _l("This page's form had expired, so nothing was checked or counted. What you typed is kept below: "
           "send it again.")


def _page(exercise_id: str, result: ExerciseResult | None, typed: dict[str, str], outcome: str | None,
          status: int = 200, score: float | None = None, late: bool = False,
          shown: int | None = None, since: Attempt | None = None) -> tuple[str, int]:  # fmt: skip
    course = here()
    stored, variant = attempts.learner_variant(course.seat, exercise_id, early=course.staff)
    spec = stored.policy()
    mine = attempts.progress_of(course.seat, exercise_id)
    used = mine.attempts_used if mine else 0
    left = attempts_left(spec.max_attempts, used)
    now = utcnow()
    finished = attempts.finished(mine, spec, now)
    offered = help.help_for(spec, variant.hints_in(str(get_locale())), mine, finished)
    html = render_template(
        "learn/exercise.html", spec=spec, variant=variant, lesson=lesson_title(spec.lesson), now=now,
        result=result, typed=typed, outcome=outcome, score=score, late=late, used=used, left=left, finished=finished,
        mine=mine, history=attempts.history(course.seat, exercise_id), form=AnswerForm(), prefix=FIELD_PREFIX,
        resend=RESEND, version=stored.version, help=offered, reveal=finished, shown=shown,
        since=since.number if since else None, marked=since.answers if since else None,
    )  # fmt: skip
    return html, status


def typed_answers() -> dict[str, str]:
    """The answers in the posted form, by part id."""
    return {k[len(FIELD_PREFIX):]: v for k, v in request.form.items() if k.startswith(FIELD_PREFIX)}


def keep_answers(exercise_id: str, why: str = "expired") -> None:
    """Keep the answers of a POST that graded nothing, to show them on the page the learner comes back to:
    "expired" after their sign-in ended, "help" after a hint or giving up."""
    typed = typed_answers()
    if sum(len(k) + len(v) for k, v in typed.items()) <= MAX_KEPT_CHARS:
        session[KEPT] = {"exercise": exercise_id, "answers": typed, "at": int(time.time()), "why": why}


def _kept_answers(exercise_id: str) -> tuple[dict[str, str], str] | None:
    """The answers keep_answers kept for this exercise in the last KEPT_SECONDS (shown once), and why."""
    kept = session.get(KEPT)
    if not isinstance(kept, dict) or kept.get("exercise") != exercise_id:
        return None
    session.pop(KEPT)
    if not isinstance(kept.get("at"), int) or time.time() - kept["at"] > KEPT_SECONDS:
        return None
    answers, why = kept.get("answers"), "help" if kept.get("why") == "help" else "expired"
    if not isinstance(answers, dict) or not all(isinstance(v, str) for v in answers.values()):
        return None
    return answers, why


@bp.before_request
def _keep_answers_across_login() -> None:
    """Answers sent after the learner's sign-in ended wait in the session while they log in again."""
    if request.endpoint == "learn.answer" and not current_user.is_authenticated and request.view_args:
        keep_answers(request.view_args["exercise_id"])


def open_code_exercise(exercise_id: str) -> bool:
    """Whether the exercise takes code, after refusing a learner (403) an exercise not open yet."""
    found, course = exercises.published(exercise_id), here()
    if not uses(course.seat.course_id, exercise_id):
        raise exercises.UnknownExercise(exercise_id)
    attempts.ensure_open(found.opens_at, early=course.staff)
    return found.kind == CODE_KIND


@bp.get("/exercises/<exercise_id>")
@login_required
def exercise(exercise_id: str) -> tuple[str, int]:
    """The learner's variant, the form, and feedback on the attempt named in ?attempt=."""
    if open_code_exercise(exercise_id):
        return code.page(exercise_id)
    kept = _kept_answers(exercise_id)
    if kept is not None and kept[1] == "expired":
        return _page(exercise_id, None, kept[0], "expired")
    shown = query_int("attempt")
    chosen = next((a for a in attempts.history(here().seat, exercise_id) if a.id == shown), None)
    # After a hint or giving up, the fields hold what was typed then, under the verdict shown then.
    typed = kept[0] if kept is not None else None
    if chosen is None:
        return _page(exercise_id, None, typed or {}, None)
    result = ExerciseResult.from_json(chosen.results)
    outcome = "repeat" if request.args.get("outcome") == "repeat" else "graded"
    # Fields changed since that attempt are not what its marks are about: the page says so.
    since = chosen if typed is not None and typed != chosen.answers else None
    return _page(exercise_id, result, chosen.answers if typed is None else typed, outcome, score=chosen.score,
                 late=chosen.late, shown=chosen.id, since=since)  # fmt: skip


def resend(exercise_id: str) -> tuple[str, int]:
    """The exercise page again after its form token was refused (a lost session), keeping what was typed."""
    if open_code_exercise(exercise_id):
        return code.page(exercise_id, str(RESEND), 400, request.form.get("source"))
    return _page(exercise_id, None, typed_answers(), "expired", 400)


@bp.post("/exercises/<exercise_id>")
@login_required
@limiter.limit("30 per minute", key_func=user_key)
def answer(exercise_id: str) -> Response | tuple[str, int]:
    """Grade an attempt; counted ones are stored, then the page is shown again by redirect."""
    if open_code_exercise(exercise_id):
        return code.submit(exercise_id)
    form = AnswerForm()
    if not form.validate_on_submit():
        abort(400)
    typed = typed_answers()
    try:
        course = here()
        submission = attempts.submit(course.seat, exercise_id, typed, early=course.staff,
                                     seen=query_int("version", posted=True))  # fmt: skip
    except (attempts.VersionChanged, attempts.UnknownParts):  # a new version while the page was open
        return _page(exercise_id, None, typed, "changed", 409)
    if submission.outcome == "invalid":
        return _page(exercise_id, submission.result, typed, "invalid", 422)
    if submission.outcome == "closed":
        return _page(exercise_id, None, typed, "closed", 409)
    assert submission.attempt is not None  # graded and repeat outcomes carry the stored attempt
    target = url_for("learn.exercise", exercise_id=exercise_id, attempt=submission.attempt.id,
                     outcome=submission.outcome)  # fmt: skip
    # No #feedback: a fragment would stop the page's autofocus, which takes the result into view and reads it out.
    return redirect(target, code=303)
