"""Practise next: which skill, which exercise and why, from the learner's states and recent mistakes (pure).

The skill is the weakest that is due. A skill not yet mastered is always due: it is still being learnt, and
fsrs schedules the reviews of skills once mastered. In order: a skill with a recent named mistake whose P(known)
is still below one half (the mistake shows what to practise; BKT's learning step alone would put it just above a
skill never tried); then any skill not mastered, lowest P(known) first (one never practised at its prior), among
equals the one with the most recent named mistakes, then the lineup's order; then a mastered skill fsrs says is
due for review, the longest due first; then, with every skill mastered and none due, the one practised least
(practice after mastery still pays, and a mastery read from few answers is the least sure), the least sure of
them among equals.
The exercise is the one of the recent mistake on that skill if there is one, else, of the exercises of the skill,
the one that also practises the most skills not yet mastered, the least recently practised of those, lineup order
breaking ties. A learner with no evidence at all starts at the first exercise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Mapping, Sequence

from grader.adaptive import bkt
from grader.adaptive.model import SkillState, fresh

@dataclass(frozen=True)
class Offered:
    """An exercise the learner may be sent to: its place in the lineup and the skills it practises."""

    exercise_id: str
    lesson: str
    skills: tuple[str, ...]
    last_practised: datetime | None = None  # the learner's latest evidence from it


@dataclass(frozen=True)
class Mistake:
    """A named mistake the learner made recently on a skill: where, how often, when last."""

    skill: str
    name: str
    exercise_id: str
    part: str
    times: int
    last: datetime


@dataclass(frozen=True)
class Choice:
    """What to practise next and why: `why` is start | mistake | weakest | new | review | pinned."""

    exercise_id: str
    lesson: str
    skill: str | None
    why: str
    mistake: Mistake | None = None
    p_known: float | None = None


WEAK, REVIEW, REST = range(3)  # the tiers, in the order they are practised
MISTAKE_FIRST_BELOW = 0.5


def _tier(state: SkillState, now: datetime) -> int:
    if not state.mastered:
        return WEAK
    return REVIEW if state.due(now) else REST


def weakest_due(skills: Sequence[str], states: Mapping[str, SkillState], mistakes: Sequence[Mistake],
                now: datetime) -> tuple[str, int]:  # fmt: skip
    """The skill to practise (skills in lineup order) and its tier (WEAK, REVIEW or REST)."""
    made = {m.skill: 0 for m in mistakes}
    for m in mistakes:
        made[m.skill] += m.times

    def key(item: tuple[int, str]) -> tuple[float, ...]:
        place, skill = item
        state = states.get(skill) or fresh(skill, bkt.DEFAULT)
        tier = _tier(state, now)
        if tier == WEAK:
            shown = made.get(skill, 0) > 0 and state.p_known < MISTAKE_FIRST_BELOW
            return (tier, 0 if shown else 1, round(state.p_known, 6), -made.get(skill, 0), place)
        due = state.due_at.timestamp() if state.due_at else 0.0
        return (tier, due, place) if tier == REVIEW else (tier, state.evidence, round(state.p_known, 6), place)

    place, skill = min(enumerate(skills), key=key)
    return skill, int(key((place, skill))[0])


def _exercise_for(skill: str, offered: Sequence[Offered], mistake: Mistake | None,
                  states: Mapping[str, SkillState]) -> Offered:  # fmt: skip
    """The exercise of the mistake; else, of those practising the skill, the one that also practises the most
    other skills not yet mastered (an attempt practises every skill of the exercise), least recently first."""
    if mistake is not None:
        found = next((o for o in offered if o.exercise_id == mistake.exercise_id), None)
        if found is not None:
            return found
    practising = [(i, o) for i, o in enumerate(offered) if skill in o.skills]
    never = datetime.min

    def unmastered(o: Offered) -> int:
        return sum(1 for s in o.skills if not (states.get(s) and states[s].mastered))

    return min(practising, key=lambda item: (-unmastered(item[1]), item[1].last_practised or never, item[0]))[1]


def choose(offered: Sequence[Offered], states: Mapping[str, SkillState], mistakes: Sequence[Mistake],
           now: datetime) -> Choice | None:  # fmt: skip
    """The next exercise and skill for the learner among `offered` (in lineup order); None when nothing is offered."""
    if not offered:
        return None
    skills = list(dict.fromkeys(s for o in offered for s in o.skills))
    if not skills or not any(states.get(s) and states[s].evidence for s in skills):
        first = offered[0]
        return Choice(first.exercise_id, first.lesson, first.skills[0] if first.skills else None, "start")
    skill, tier = weakest_due(skills, states, mistakes, now)
    on_skill = sorted((m for m in mistakes if m.skill == skill), key=lambda m: (m.last, m.times), reverse=True)
    mistake = on_skill[0] if on_skill and tier == WEAK else None
    chosen = _exercise_for(skill, offered, mistake, states)
    state = states.get(skill)
    if state is None or state.evidence == 0:
        return Choice(chosen.exercise_id, chosen.lesson, skill, "mistake" if mistake else "new", mistake)
    why = "mistake" if mistake else "weakest" if tier == WEAK else "review"
    return Choice(chosen.exercise_id, chosen.lesson, skill, why, mistake, state.p_known)


def pinned(offered: Sequence[Offered], finished: Mapping[str, bool]) -> Choice | None:
    """The lineup's order instead of the model: the first exercise whose own variant is unfinished, else the one
    after the exercise practised last (round again from the first)."""
    if not offered:
        return None
    for o in offered:
        if not finished.get(o.exercise_id, False):
            return Choice(o.exercise_id, o.lesson, o.skills[0] if o.skills else None, "pinned")
    never = datetime.min
    last = max(range(len(offered)), key=lambda i: (offered[i].last_practised or never, -i))
    following = offered[(last + 1) % len(offered)] if offered[last].last_practised else offered[0]
    return Choice(following.exercise_id, following.lesson, following.skills[0] if following.skills else None, "pinned")
