"""JSON API for adaptive practice: what to practise next, and the caller's mastery per skill (bearer tokens only)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from flask import abort, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from flask_babel import force_locale

from grader.catalog.skills import SKILLS, skill_title
from grader.services import mastery, mastery_views, recommend
from grader.web.api import bp
from grader.web.api_request import bearer, course, language
from grader.web.api_schema import PRACTICE_TOKEN, QUERY_TEXT, InCourse, InLanguage
from grader.web.i18n import translated
from grader.web.openapi import ErrorBody, Reply, documented
from grader.web.practise_next import reason


@dataclass(frozen=True)
class NextQuery(InLanguage):
    """?lesson=gpt2-block: choose within one lesson (without it: within the whole course)."""

    lesson: str | None = field(default=None, metadata=QUERY_TEXT)


@dataclass(frozen=True)
class NextOut:
    """What to practise next, and why.

    scored: true when your own scored variant of the exercise is unfinished: read GET /exercises/{id} and answer
    with POST /exercises/{id}/attempts. false: practise the `numbers` (GET /exercises/{id}/practice?numbers=...,
    answer with POST /exercises/{id}/practice). reason: why, in the ?lang= asked for.
    """

    exercise: str
    lesson: str
    skill: str | None
    scored: bool
    numbers: str | None = field(metadata=PRACTICE_TOKEN)
    reason: str


@dataclass(frozen=True)
class SkillMastery:
    """One skill: the model's P(known) (mastery), mastered at 0.95, when fsrs wants it reviewed, answers seen."""

    skill: str
    title: str
    mastery: float
    mastered: bool
    due_at: str | None
    evidence: int


@dataclass(frozen=True)
class MasteryOut:
    """Your mastery of each skill in the course."""

    skills: list[SkillMastery]


@bp.get("/practice/next")
@documented("What to practise next", {
    200: Reply("The exercise the learner model chooses, its practice numbers (or your own variant first) and why.",
               NextOut),
    400: Reply("An unknown lang.", ErrorBody),
    404: Reply("Nothing to practise with typed answers in that course or lesson, or a course that is not yours.",
               ErrorBody),
    409: Reply("Your instructors switched “Practise next” off for the course or the lesson.", ErrorBody),
}, query=NextQuery, description="Chooses the weakest skill that is due; with a recent named mistake on it, "
                                "numbers for which that mistake changes the answer most.")  # fmt: skip
@bearer
def practice_next() -> ResponseReturnValue:
    """The next exercise to practise, its numbers and the reason."""
    lang, here = language(), course()
    try:
        found = recommend.next_for(here.seat, request.args.get("lesson") or None, current_app.config["SECRET_KEY"],
                                   early=here.staff)  # fmt: skip
    except recommend.SwitchedOff:
        abort(409, "Your instructors have switched “Practise next” off here.")
    if found is None:
        abort(404, "Nothing here to practise with typed answers.")
    with force_locale(lang):
        why = reason(found)
    choice = found.choice
    return jsonify(asdict(NextOut(choice.exercise_id, choice.lesson, choice.skill, found.scored, found.numbers, why)))


@dataclass(frozen=True)
class LearnerMastery:
    """One learner of the course and their mastery of each skill with evidence (skill -> P(known))."""

    learner: str
    skills: dict[str, float]


@dataclass(frozen=True)
class ClassMasteryOut:
    """The course's learners × skills: skills with evidence in the course, in the catalogue's order."""

    skills: list[str]
    learners: list[LearnerMastery]


@bp.get("/mastery/class")
@documented("The course's mastery (its staff only)", {
    200: Reply("Every learner of the course and their mastery of each skill with evidence.", ClassMasteryOut),
    403: Reply("You are a learner in that course.", ErrorBody),
}, query=InCourse)  # fmt: skip
@bearer
def class_mastery() -> ResponseReturnValue:
    """Each learner's mastery per skill in the course (?course=), for the course's instructors and TAs."""
    here = course()  # 404 for a course the caller is not in: another course's staff see nothing of it
    if not here.staff:
        abort(403, "Only the course's instructors and TAs see its learners' mastery.")
    found = mastery_views.class_mastery(here.seat.course_id)
    learners = [LearnerMastery(email, {s: round(found.cells[(uid, s)][0], 4) for s in found.skills
                                       if (uid, s) in found.cells}) for uid, email in found.learners]  # fmt: skip
    return jsonify(asdict(ClassMasteryOut(found.skills, learners)))


@bp.get("/mastery")
@documented("Your mastery per skill", {200: Reply("Each skill of the catalogue, in the course's order.", MasteryOut),
                                       400: Reply("An unknown lang.", ErrorBody)}, query=InLanguage)  # fmt: skip
@bearer
def my_mastery() -> ResponseReturnValue:
    """The caller's mastery of each skill in the course (?course=)."""
    lang = language()
    shown = mastery.mastery_of(course().seat, list(SKILLS))
    with force_locale(lang):
        skills = [SkillMastery(m.skill, translated(skill_title(m.skill)), round(m.p_known, 4), m.mastered,
                               m.due_at.isoformat() + "Z" if m.due_at else None, m.evidence) for m in shown]  # fmt: skip
    return jsonify(asdict(MasteryOut(skills)))
