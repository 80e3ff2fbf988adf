"""JSON API for practice with new numbers, on the API blueprint (bearer tokens only).

The same rules as the practice pages: it opens once the caller is done with their own variant,
the numbers travel as a signed token, and nothing is stored.
"""

from __future__ import annotations

from dataclasses import asdict

from flask import abort, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from grader.extensions import limiter, practice_draws
from grader.services import attempts, practice
from grader.web.api import bp, part_verdicts, variant_fields
from grader.web.api_request import answers_from_body, bearer, caller, caller_key, course, language  # fmt: skip
from grader.web.api_schema import ANSWERS_PER_EXERCISE, InLanguage, PracticeDetail, PracticeIn, PracticeOut, PracticeQuery
from grader.web.openapi import ErrorBody, Reply, documented

REFUSED = {
    400: Reply("Numbers not made here for this exercise's lesson, or an unknown lang.", ErrorBody),
    403: Reply("Not open yet, or your own variant is not finished: solve it or use up what it can earn.",
               ErrorBody),
    404: Reply("No exercise with that id.", ErrorBody),
    409: Reply("A code exercise: it has no practice numbers.", ErrorBody),
}  # fmt: skip


def _allowed(exercise_id: str) -> attempts.CurrentVersion:
    try:
        return practice.allowed(course().seat, exercise_id, early=course().staff)
    except attempts.CodeExercise:
        abort(409, "This exercise takes code: it has no practice numbers.")
    except practice.NotFinished:
        abort(403, "Practice opens once you have solved this exercise or have nothing left to earn on it.")


def _opened(current: attempts.CurrentVersion, token: str) -> practice.Practice:
    opened = practice.from_token(current, token, current_app.config["SECRET_KEY"])
    if opened is None:
        abort(400, "These practice numbers were not made here for this exercise: ask for new ones.")
    return opened


@bp.get("/exercises/<exercise_id>/practice")
@documented("New numbers to practise with", {200: Reply("A practice variant and its worked solution.", PracticeDetail),
                                              429: Reply("More than 30 new numbers a minute, or 300 a day.", ErrorBody),
                                              **REFUSED}, query=PracticeQuery,
            description="Without ?numbers=, new numbers each time. Nothing is stored.")  # fmt: skip
@bearer
@practice_draws(lambda: f"user:{caller().user_id}")  # the page's key: one budget for both
def practice_numbers(exercise_id: str) -> ResponseReturnValue:
    """A practice variant: new numbers, or the ones ?numbers= names."""
    lang = language()
    current = _allowed(exercise_id)
    token = request.args.get("numbers")
    if token is None:
        secret = current_app.config["SECRET_KEY"]
        token = practice.numbers_token(practice.lesson_of(current), practice.new_seed(), secret)
    opened = _opened(current, token)
    variant = opened.variant
    detail = PracticeDetail(*variant_fields(opened.current.policy(), variant, lang), list(variant.solution_in(lang)),
                            token)  # fmt: skip
    return jsonify(asdict(detail))


@bp.post("/exercises/<exercise_id>/practice")
@documented("Check answers to practice numbers", {
    200: Reply("Every answer read and checked; nothing stored.", PracticeOut),
    422: Reply("An answer is malformed: per-part messages (the others are checked too).", PracticeOut),
    429: Reply("More than 30 checks a minute.", ErrorBody),
    **REFUSED,
    400: Reply("The body is not JSON of the documented shape, names a part the exercise does not have, or "
               "carries numbers not made here for this exercise.", ErrorBody),
}, body=PracticeIn, per_value=ANSWERS_PER_EXERCISE, query=InLanguage)
@bearer
@limiter.limit("30 per minute", key_func=caller_key)
def check_practice(exercise_id: str) -> ResponseReturnValue:
    """Check answers against the practice numbers sent with them."""
    lang = language()
    current = _allowed(exercise_id)  # refuse before reading the body, as the pages do
    usage = 'Send {"numbers": "<from the practice reply>", "answers": {"<part id>": "<answer>"}}.'
    answers, body = answers_from_body(("numbers", "answers"), usage)
    token = body.get("numbers")
    if not isinstance(token, str):
        abort(400, usage)
    result = practice.check(course().seat, _opened(current, token), answers)
    out = PracticeOut(result.counted, result.score, part_verdicts(result, lang))
    return jsonify(asdict(out)), 200 if result.counted else 422
