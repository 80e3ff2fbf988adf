"""Practise next on the pages: a link on the lesson and exercise pages goes here, and is sent on to the exercise the
learner model chooses (their own variant, or practice numbers), with the reason shown there."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, request, url_for
from flask_babel import gettext
from flask_login import login_required
from werkzeug.wrappers import Response

from grader.catalog.skills import skill_title
from grader.services import recommend
from grader.services.recommend import Recommendation
from grader.texts import N_, Text, say, say_n
from grader.web.course_context import current as here
from grader.web.i18n import translated
from grader.web.learn import bp

_REASONS = {
    "start": N_("Start with the lesson's first exercise."),
    "weakest": N_("%(skill)s is your weakest skill now."),
    "new": N_("Next, a skill you have not practised yet: %(skill)s."),
    "review": N_("%(skill)s is due for review."),
    "pinned": N_("Next in your course's order."),
}


def reason(found: Recommendation) -> str:
    """Why this exercise, in the request's language."""
    choice = found.choice
    skill = translated(skill_title(choice.skill)) if choice.skill else ""
    if choice.mistake is not None:
        title = translated(found.mistake_title or choice.mistake.name)
        text: Text = say_n("You made the mistake “%(title)s” %(num)d time this week.",
                           "You made the mistake “%(title)s” %(num)d times this week.", choice.mistake.times,
                           title=title)  # fmt: skip
        said = translated(text)
        if not found.scored and found.shows_mistake:
            said += " " + translated(N_("These numbers make it show."))
    else:
        said = translated(say(_REASONS[choice.why], skill=skill))
    if found.scored and choice.why not in ("start", "pinned"):
        said += " " + translated(N_("Finish your own numbers first: practice opens after them."))
    return said


def destination(found: Recommendation) -> str:
    """Where the learner is sent: the exercise page, or its practice page with the chosen numbers."""
    exercise_id = found.choice.exercise_id
    if found.scored:
        return url_for("learn.exercise", exercise_id=exercise_id)
    return url_for("learn.practice_page", exercise_id=exercise_id, numbers=found.numbers)


def _offered_in(lesson: str) -> bool:
    """Whether the page shows "Practise next" for the lesson: it has exercises with typed answers, and the course's
    instructors did not switch it off."""
    return recommend.offered_in(here().seat.course_id, lesson)


@bp.app_context_processor
def _practise_next_helper() -> dict[str, object]:
    return {"practise_next_on": _offered_in}


@bp.get("/practise-next")
@login_required
def practise_next() -> Response:
    """Send the learner to what to practise next (in ?lesson= if given), with the reason as a message."""
    lesson = request.args.get("lesson") or None
    try:
        found = recommend.next_for(here().seat, lesson, current_app.config["SECRET_KEY"], early=here().staff)
    except recommend.SwitchedOff:
        abort(409, gettext("Your instructors have switched “Practise next” off here."))
    if found is None:
        abort(404, gettext("Nothing here to practise with typed answers."))
    flash(reason(found), "practise-next")
    return redirect(destination(found), code=303)
