"""A learner's state per skill: P(known) and an fsrs review card, folded from what they did, one moment at a time.

A moment is one graded attempt, graded code submission, practice check, hint or give-up: it brings one observation
per part and skill (for code, one per skill; a hint brings one with no answer). A moment with answers is an
opportunity: P(known) is then read from the learner's own learning curve over all their opportunities
(grader.adaptive.curve); the fsrs card is reviewed once per moment and skill: Again when any answer was wrong (a
give-up counts as wrong), Hard for a hint alone, Good when all were right, Easy when they were right and the skill
is now mastered. The live update and a replay (after a regrade) run this same fold, so a replay of the stored
moments gives the state the live updates gave.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from itertools import groupby
from typing import Iterable, Sequence

from fsrs import Card, Rating, Scheduler

from grader.adaptive import bkt, curve

MASTERED = 0.95  # P(known) from which a skill counts as mastered (and comes back only when fsrs says it is due)
# Fuzzing off: a replay must give the same due dates as the live updates did.
_SCHEDULER = Scheduler(enable_fuzzing=False)
HINT, ATTEMPT, PRACTICE, GIVE_UP, CODE = "hint", "attempt", "practice", "give-up", "code"


@dataclass(frozen=True)
class Observation:
    """One piece of evidence on a skill: an answer (right or wrong, maybe a named mistake) or a hint (correct None)."""

    skill: str
    correct: bool | None
    at: datetime  # naive UTC, as the database keeps times
    source: str = ATTEMPT
    mistake: str | None = None
    part: str | None = None


@dataclass(frozen=True)
class SkillState:
    """What the model believes of one learner's skill now."""

    skill: str
    p_known: float
    evidence: int = 0  # answers seen
    card: str | None = None  # the fsrs card as JSON; None before the first moment
    due_at: datetime | None = None  # naive UTC: when fsrs wants the skill reviewed

    @property
    def mastered(self) -> bool:
        """P(known) at or above MASTERED."""
        return self.p_known >= MASTERED

    def due(self, now: datetime) -> bool:
        """Whether fsrs wants the skill practised by `now` (a skill never seen is due)."""
        return self.due_at is None or self.due_at <= now


def fresh(skill: str, params: bkt.Params) -> SkillState:
    """The state of a skill nobody has seen this learner use."""
    return SkillState(skill, params.prior)


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None)


def rating(observations: Sequence[Observation], p_known: float) -> Rating:
    """The fsrs rating of one moment's observations on a skill, given P(known) after them."""
    answers = [o.correct for o in observations if o.correct is not None]
    if not answers:
        return Rating.Hard  # a hint: the learner needed help, but gave no wrong answer
    if not all(answers):
        return Rating.Again
    return Rating.Easy if p_known >= MASTERED else Rating.Good


def answers_by_opportunity(moments_of_skill: Iterable[Sequence[Observation]]) -> list[list[bool]]:
    """The answers of each moment that brought any (an opportunity to use the skill), oldest first."""
    answered = ([o.correct for o in moment if o.correct is not None] for moment in moments_of_skill)
    return [answers for answers in answered if answers]


def step(state: SkillState, moment: Sequence[Observation], params: bkt.Params,
         history: Sequence[Sequence[bool]]) -> SkillState:  # fmt: skip
    """The state after one moment's observations on this skill (all at the same time); `history` holds the answers
    of each earlier opportunity, oldest first."""
    answers = [o.correct for o in moment if o.correct is not None]
    p_known = curve.p_known([*history, answers], params) if answers else state.p_known
    at = _aware(moment[0].at)
    card = Card.from_dict(json.loads(state.card)) if state.card else Card(card_id=1, due=at)
    card, _ = _SCHEDULER.review_card(card, rating(moment, p_known), review_datetime=at)
    return replace(state, p_known=p_known, evidence=state.evidence + len(answers), card=json.dumps(card.to_dict()),
                   due_at=_naive(card.due))


def moments(observations: Iterable[Observation]) -> list[list[Observation]]:
    """Observations (in order) grouped into moments: consecutive ones of the same time and source."""
    return [list(group) for _, group in groupby(observations, key=lambda o: (o.at, o.source))]


def history_of(skill: str, observations: Iterable[Observation]) -> list[list[bool]]:
    """The answers on `skill` at each opportunity among these observations (in order), oldest first."""
    return answers_by_opportunity(moments(o for o in observations if o.skill == skill))


def replay(skill: str, observations: Iterable[Observation], params: bkt.Params) -> SkillState:
    """The state of a skill from nothing, folding every stored observation on it in order."""
    state, history = fresh(skill, params), list[list[bool]]()
    for moment in moments(o for o in observations if o.skill == skill):
        state = step(state, moment, params, history)
        history.extend(answers_by_opportunity([moment]))
    return state


def retrievability(state: SkillState, now: datetime) -> float | None:
    """fsrs's estimate that the learner would recall the skill now; None before any review."""
    if state.card is None:
        return None
    card = Card.from_dict(json.loads(state.card))
    return float(_SCHEDULER.get_card_retrievability(card, current_datetime=_aware(now)))
