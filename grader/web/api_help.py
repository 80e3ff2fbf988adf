"""JSON API for a stuck learner, on the API blueprint (bearer tokens only): hints, giving up, the worked solution.

The same service calls as the exercise page's forms (grader.web.help), so hints and giving up count and cost
alike, in the course the call acts in (?course=).
"""

from __future__ import annotations

from dataclasses import asdict

from flask import abort, jsonify
from flask.typing import ResponseReturnValue

from grader.extensions import limiter
from grader.services import help
from grader.web.api import bp
from grader.web.api_request import bearer, caller_key, course, language
from grader.web.api_schema import HelpOut, InLanguage, SolutionOut
from grader.web.openapi import ErrorBody, Reply, documented

REFUSED = {
    400: Reply("An unknown lang.", ErrorBody),
    403: Reply("The exercise has not opened yet; the message says when.", ErrorBody),
    404: Reply("No exercise with that id in the course.", ErrorBody),
}
LIMITED = {429: Reply("More than 30 a minute.", ErrorBody)}


def _help_json(exercise_id: str, lang: str) -> ResponseReturnValue:
    """The caller's help on the exercise now, as JSON."""
    now = help.help_now(course().seat, exercise_id, lang, early=course().staff)
    out = HelpOut(list(now.hints), now.remaining, now.penalty, now.solution_offered, now.gave_up, now.scoring)
    return jsonify(asdict(out))


@bp.get("/exercises/<exercise_id>/hints")
@documented("Your hints so far", {200: Reply("The hints you have taken and what help is left.", HelpOut), **REFUSED},
            query=InLanguage)  # fmt: skip
@bearer
def hints(exercise_id: str) -> ResponseReturnValue:
    """The hints the caller has taken on their own numbers, and what help is left."""
    return _help_json(exercise_id, language())


@bp.post("/exercises/<exercise_id>/hints")
@documented("Take the next hint", {
    200: Reply("One more hint taken: every hint so far, and what help is left.", HelpOut),
    409: Reply("Hints are off for this exercise in the course, none is left, or you no longer score on these "
               "numbers (solved or given up).", ErrorBody),
    **REFUSED, **LIMITED,
}, query=InLanguage, description="Each hint costs later attempts the exercise's hint_penalty, as on its page.")
@bearer
@limiter.limit("30 per minute", key_func=caller_key)
def take_hint(exercise_id: str) -> ResponseReturnValue:
    """Reveal the caller's next hint, as the page's button does."""
    lang = language()
    policy, steps = help.policy_and_hints(course().seat, exercise_id, lang, early=course().staff)
    if not policy.offer_hints:
        abort(409, "This exercise offers no hints in this course.")
    if not help.take_hint(course().seat, exercise_id, len(steps)):
        abort(409, "No hint left: you have taken them all, or you no longer score on these numbers.")
    return _help_json(exercise_id, lang)


@bp.post("/exercises/<exercise_id>/give-up")
@documented("Give up on your numbers", {
    200: Reply("Scoring has ended on your numbers; the worked solution and practice are open.", HelpOut),
    409: Reply("Already solved or given up.", ErrorBody),
    **REFUSED, **LIMITED,
}, query=InLanguage, description="Attempts made so far keep their scores; later ones are not counted.")
@bearer
@limiter.limit("30 per minute", key_func=caller_key)
def give_up(exercise_id: str) -> ResponseReturnValue:
    """End scoring on the caller's numbers, as the page's button does."""
    lang = language()
    help.policy_and_hints(course().seat, exercise_id, lang, early=course().staff)  # refuses unknown or not open
    if not help.give_up(course().seat, exercise_id):
        abort(409, "You have already solved this exercise or given up on it.")
    return _help_json(exercise_id, lang)


@bp.get("/exercises/<exercise_id>/solution")
@documented("The worked solution with your numbers", {
    200: Reply("Its steps, in the language asked for.", SolutionOut),
    409: Reply("Not open yet: solve the exercise, give up, use up its attempts, or wait for a due date that "
               "leaves nothing to earn.", ErrorBody),
    **REFUSED,
}, query=InLanguage, description="Open once you are done with your numbers, as on the exercise page.")
@bearer
def solution(exercise_id: str) -> ResponseReturnValue:
    """The worked solution of the caller's own numbers, once they are done with them."""
    lang = language()
    steps = help.worked_solution(course().seat, exercise_id, lang, early=course().staff)
    if steps is None:
        abort(409, "The worked solution opens once you have solved this exercise, given up on it, used up its "
                   "attempts, or its due date has passed with nothing left to earn.")  # fmt: skip
    return jsonify(asdict(SolutionOut(list(steps))))
