"""Practise next: the exercise, numbers and reason the learner model chooses for a learner in a course (or lesson).

Reads only (the states are kept up to date by grader.services.mastery; nothing is refitted here). When the
learner's own scored variant of the chosen exercise is unfinished, that is what they get (`scored`); practice
numbers open only after it (grader.services.practice). With a recent named mistake on the skill, of CANDIDATES
practice seeds the one where that mistake's answer is furthest from the right one is chosen, so it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import sqlalchemy as sa

from grader.adaptive.choose import Choice, Mistake, Offered, choose, pinned
from grader.adaptive.model import SkillState, fresh
from grader.answers.tolerance import Tolerance
from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.catalog.spec import NUMERIC_KIND, ExerciseSpec
from grader.catalog.variants import VariantError, make_variant
from grader.extensions import db
from grader.mastery_models import SkillEvent
from grader.models import PUBLISHED, Exercise, ExerciseVersion, utcnow
from grader.services import attempts, insights, mastery, practice, progress
from grader.services.adaptive_switches import switches
from grader.services.courses import Seat
from grader.services.exercises import spec_of

CANDIDATES = 8  # practice seeds tried for numbers that expose a mistake (each is a variant: ~50 ms on a busy box)
RECENT = timedelta(days=7)  # "this week": mistakes older than this no longer steer the choice


class SwitchedOff(LookupError):
    """The course's instructors switched "Practise next" off here (the course, or this lesson)."""


@dataclass(frozen=True)
class Recommendation:
    """What to practise next: an exercise (own variant when `scored`, else practice `numbers`) and why."""

    choice: Choice
    scored: bool
    numbers: str | None
    mistake_title: str | None = None  # the recent mistake's title (English; the page translates it)
    shows_mistake: bool = False  # the numbers were chosen so that the mistake shows (it was made in one of its parts)


def offered_exercises(seat: Seat, lesson: str | None, now: datetime) -> tuple[list[Offered], dict[str, ExerciseSpec]]:
    """The open exercises with typed answers of the course (or lesson), in the lineup's order, and their specs."""
    ids = [e.id for summary in progress.dashboard(seat, now) if lesson in (None, summary.slug)
           for e in summary.exercises]  # fmt: skip
    rows = db.session.execute(
        sa.select(Exercise.id, Exercise.lesson, ExerciseVersion.source_hash, ExerciseVersion.source)
        .join(ExerciseVersion, (ExerciseVersion.exercise_id == Exercise.id)
              & (ExerciseVersion.version == Exercise.current_version))
        .where(Exercise.id.in_(ids), Exercise.kind == NUMERIC_KIND, Exercise.status == PUBLISHED)
    ).all()  # fmt: skip
    specs = {r.id: spec_of(r) for r in rows}
    last = _last_practised(seat)
    lessons = {r.id: r.lesson for r in rows}
    offered = [Offered(i, lessons[i], _skills(specs[i]), last.get(i)) for i in ids if i in specs]
    return offered, specs


def offered_in(course_id: int, lesson: str) -> bool:
    """Whether "Practise next" is offered in the lesson: it has published exercises with typed answers, and the
    course's instructors did not switch it off there."""
    if not switches(course_id, lesson).enabled:
        return False
    typed = sa.select(Exercise.id).where(Exercise.lesson == lesson, Exercise.kind == NUMERIC_KIND,
                                         Exercise.status == PUBLISHED).limit(1)  # fmt: skip
    return db.session.execute(typed).first() is not None


def _skills(spec: ExerciseSpec) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s for part in spec.parts for s in spec.part_skills(part.id)))


def _last_practised(seat: Seat) -> dict[str, datetime]:
    rows = db.session.execute(sa.select(SkillEvent.exercise_id, sa.func.max(SkillEvent.at)).where(
        SkillEvent.course_id == seat.course_id, SkillEvent.user_id == seat.user_id,
    ).group_by(SkillEvent.exercise_id)).all()  # fmt: skip
    return {exercise_id: at for exercise_id, at in rows}


def recent_mistakes(seat: Seat, now: datetime) -> list[Mistake]:
    """The learner's named mistakes in the course this week, per skill, mistake, exercise and part."""
    e = SkillEvent
    rows = db.session.execute(
        sa.select(e.skill, e.mistake, e.exercise_id, e.part, sa.func.count(), sa.func.max(e.at))
        .where(e.course_id == seat.course_id, e.user_id == seat.user_id, e.mistake.is_not(None), e.at >= now - RECENT)
        .group_by(e.skill, e.mistake, e.exercise_id, e.part)
    ).all()  # fmt: skip
    return [Mistake(skill, name or "", exercise_id, part or "", times, last) for skill, name, exercise_id, part, times, last
            in rows]  # fmt: skip


def _gap(right: Any, wrong: Any, tolerance: Tolerance | None = None) -> float:
    """How far a mistake's answer is from the right one: in widths of the part's accepted band where it has one
    (the largest over entries: how plainly the grader, and the learner, can tell them apart), else relative to the
    right answer's size; 0 if they agree."""
    try:
        a, b = np.asarray(right, dtype=float), np.asarray(wrong, dtype=float)
        if a.shape != b.shape:
            return 1.0
        band = tolerance.half_width(a) if tolerance is not None else np.zeros_like(a)
        if a.size and np.all(band > 0):
            return float(np.max(np.abs(b - a) / band))
        return float(np.linalg.norm(b - a) / max(float(np.linalg.norm(a)), 1e-9))
    except (TypeError, ValueError):  # shapes, sets: they differ or they do not
        return 0.0 if right == wrong else 1.0


def exposing_seed(spec: ExerciseSpec, mistake: Mistake, seeds: list[int]) -> int:
    """Of these seeds, the one whose variant puts the mistake's answer furthest from the right one (first on ties)."""
    def gap(seed: int) -> float:
        try:
            variant = make_variant(spec, seed)
        except VariantError:
            return -1.0
        part = next((p for p in variant.parts if p.spec.id == mistake.part), None)
        found = next((m for m in part.target.mutants if m.name == mistake.name), None) if part else None
        return -1.0 if part is None or found is None else _gap(part.target.exact, found.routes[0], part.tolerance)

    return max(seeds, key=gap)


def next_for(seat: Seat, lesson: str | None, secret: str, early: bool = False,
             now: datetime | None = None) -> Recommendation | None:  # fmt: skip
    """What the learner should practise next in the course (or lesson); None when nothing there takes typed answers.

    Raises SwitchedOff when the course's instructors turned it off there.
    """
    now = now or utcnow()
    chosen_switches = switches(seat.course_id, lesson)
    if not chosen_switches.enabled:
        raise SwitchedOff(lesson or "")
    offered, specs = offered_exercises(seat, lesson, now)
    if chosen_switches.pinned:
        choice = pinned(offered, {o.exercise_id: _finished(seat, o.exercise_id, early) for o in offered})
    else:
        choice = choose(offered, _states(seat, offered), recent_mistakes(seat, now), now)
    if choice is None:
        return None
    spec = specs[choice.exercise_id]
    if not _finished(seat, choice.exercise_id, early):
        return Recommendation(choice, True, None, _title(spec, choice))
    # A mistake named in code, or in another exercise, is no part of this one: new numbers, said plainly.
    made = choice.mistake
    shows = made is not None and made.exercise_id == spec.id and any(p.id == made.part for p in spec.parts)
    seeds = [practice.new_seed() for _ in range(CANDIDATES if shows else 1)]
    seed = exposing_seed(spec, choice.mistake, seeds) if shows and choice.mistake else seeds[0]
    token = practice.numbers_token(spec.lesson, seed, secret)
    return Recommendation(choice, False, token, _title(spec, choice), shows)


def _states(seat: Seat, offered: list[Offered]) -> dict[str, SkillState]:
    """The learner's states of the offered exercises' skills; a skill not yet seen at the course's prior for it."""
    known = mastery.states_of(seat)
    unseen = {s for o in offered for s in o.skills} - set(known)
    return {**{s: fresh(s, p) for s, p in mastery.params_for(seat.course_id, unseen).items()}, **known}


def _finished(seat: Seat, exercise_id: str, early: bool) -> bool:
    try:
        practice.allowed(seat, exercise_id, early)
    except practice.NotFinished:
        return False
    except attempts.NotOpen:
        return False
    return True


def _title(spec: ExerciseSpec, choice: Choice) -> str | None:
    """The recent mistake's title: the exercise's or the catalogue's, else (a mistake named in code) its task's."""
    if choice.mistake is None:
        return None
    name = choice.mistake.name
    if name in (spec.mistakes or {}) or name in MISCONCEPTIONS:
        return spec.mistake_words(name)[0]
    return insights.mistake_titles(choice.mistake.exercise_id).get(name)
