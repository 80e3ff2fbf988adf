"""Practise next: which skill, which exercise and why, from the learner's states and recent mistakes (pure).

The skill is the weakest that is due. In order: a skill the learner has shown and not mastered that fsrs wants
practised (due, or in its learning steps after a wrong answer), lowest P(known) first, and among equals the one
with the most recent named mistakes; then a skill never practised, in the lineup's order; then a mastered skill
fsrs says is due for review; then, with nothing due, the weakest skill not mastered; then the review due first.
The exercise is the one of the recent mistake on that skill if there is one, else the least recently practised
exercise of the skill, lineup order breaking ties. A learner with no evidence at all starts at the first exercise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Mapping, Sequence

from fsrs import State

from grader.adaptive.model import SkillState

# fsrs card states (fsrs.State): a card in its learning or relearning steps waits minutes, not days; within a
# session such a skill is still being practised, so it counts as due.
_STEPS = (int(State.Learning), int(State.Relearning))


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


def in_steps(state: SkillState) -> bool:
    """Whether the skill's fsrs card is in its (re)learning steps (minutes apart)."""
    return state.card is not None and json.loads(state.card).get("state") in _STEPS


def _tier(state: SkillState | None, now: datetime) -> int:
    if state is None or state.evidence == 0:
        return 1
    due = state.due(now) or in_steps(state)
    if not state.mastered:
        return 0 if due else 3
    return 2 if state.due(now) else 4


def weakest_due(skills: Sequence[str], states: Mapping[str, SkillState], mistakes: Sequence[Mistake],
                now: datetime) -> tuple[str, int]:  # fmt: skip
    """The skill to practise (skills in lineup order) and its tier (0 weak and due, 1 new, 2 review, 3 weak, 4 rest)."""
    made = {m.skill: 0 for m in mistakes}
    for m in mistakes:
        made[m.skill] += m.times

    def key(item: tuple[int, str]) -> tuple[float, ...]:
        place, skill = item
        state = states.get(skill)
        tier = _tier(state, now)
        p = state.p_known if state else 0.0
        if tier == 1:
            return (tier, place)
        if tier == 4:
            due = state.due_at.timestamp() if state and state.due_at else 0.0
            return (tier, due, place)
        return (tier, round(p, 6), -made.get(skill, 0), place)

    place, skill = min(enumerate(skills), key=key)
    return skill, int(key((place, skill))[0])


def _exercise_for(skill: str, offered: Sequence[Offered], mistake: Mistake | None) -> Offered:
    if mistake is not None:
        found = next((o for o in offered if o.exercise_id == mistake.exercise_id), None)
        if found is not None:
            return found
    practising = [(i, o) for i, o in enumerate(offered) if skill in o.skills]
    never = datetime.min
    return min(practising, key=lambda item: (item[1].last_practised or never, item[0]))[1]


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
    mistake = on_skill[0] if on_skill and tier in (0, 3) else None
    chosen = _exercise_for(skill, offered, mistake)
    why = "mistake" if mistake else {0: "weakest", 1: "new", 2: "review", 3: "weakest", 4: "review"}[tier]
    state = states.get(skill)
    return Choice(chosen.exercise_id, chosen.lesson, skill, why, mistake, state.p_known if state else None)


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
