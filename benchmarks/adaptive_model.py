"""The simulated learners of benchmarks/adaptive.py: their hidden knowledge per skill, how it grows and fades,
and the answers it produces from the numbers the service shows them.

The model (docs/development/adaptive-benchmark.md) was fixed before any tutor was run; its parameters are
the constants below. A learner knows nothing of the tutor: it is handed an exercise variant (rebuilt from
the parameters the API shows, with the project's own reference math) and answers it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from grader.answers import syntax
from grader.answers.kinds import KINDS, NumericKind, render_answer
from grader.answers.tolerance import decimal_places
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import PartVariant, Variant

# ---------------------------------------------------------------- the generative model's parameters
# Drawn per learner and skill, uniformly in these ranges (BKT's four parameters).
PRIOR = (0.05, 0.35)  # P(L0): the chance the skill is known before any practice
# P(T), applied at each attempt that practises the skill. It was (0.05, 0.25) with FORGET_DAYS 30 at first;
# then not even a tutor that sees the hidden state (oracle() below) brought one learner of 16 to mastery
# within 200 attempts, so the benchmark could measure nothing. Changed once, before any adaptive tutor ran
# (docs/development/adaptive-benchmark.md).
LEARN = (0.10, 0.30)
GUESS = (0.00, 0.10)  # a right answer to a part whose skills are not all known
SLIP = (0.02, 0.10)  # a wrong answer (a random slip) to a part whose skills are all known
MISTAKE = (0.0, 0.6)  # per learner and named mistake: its chance when the part's skill is not known
FORGET_DAYS = 180.0  # τ: knowledge fades as p·exp(−Δt/τ) over simulated days
ATTEMPTS_PER_DAY = 20  # a simulated day ends after this many attempts
MASTERED = 0.95  # mastery: every skill's knowledge probability above this



def part_skills(spec: ExerciseSpec) -> dict[str, tuple[str, ...]]:
    """Each part's skills, as the exercise file declares them."""
    return {part.id: spec.part_skills(part.id) for part in spec.parts}


# ---------------------------------------------------------------- one learner


@dataclass(frozen=True)
class Traits:
    """What is drawn once per learner: BKT's parameters per skill and a chance per named mistake."""

    prior: dict[str, float]
    learn: dict[str, float]
    guess: dict[str, float]
    slip: dict[str, float]
    mistake: dict[str, float]


def draw_traits(seed: int, index: int, skills: list[str], mistakes: list[str]) -> Traits:
    """Learner `index`'s traits: the same for every tutor, as they depend only on the seed and the index."""
    rng = random.Random(f"{seed}/learner/{index}")

    def per(names: list[str], span: tuple[float, float]) -> dict[str, float]:
        return {name: rng.uniform(*span) for name in names}

    return Traits(per(skills, PRIOR), per(skills, LEARN), per(skills, GUESS), per(skills, SLIP), per(mistakes, MISTAKE))


@dataclass
class Learner:
    """A learner's hidden state: the probability it knows each skill, the attempts made, the simulated day."""

    traits: Traits
    rng: random.Random
    known: dict[str, float] = field(default_factory=dict)
    attempts: int = 0

    @classmethod
    def start(cls, traits: Traits, seed: int, index: int) -> Learner:
        """A learner before any practice (its answers' randomness seeded apart from its traits)."""
        return cls(traits, random.Random(f"{seed}/answers/{index}"), dict(traits.prior))

    def day(self) -> int:
        """The learner's simulated days so far: a day ends after every ATTEMPTS_PER_DAY attempts."""
        return self.attempts // ATTEMPTS_PER_DAY

    def mastered(self) -> bool:
        """True when every skill's knowledge probability is above MASTERED."""
        return all(p > MASTERED for p in self.known.values())

    def answer(self, spec: ExerciseSpec, variant: Variant) -> dict[str, str]:
        """Answers to every part of the variant, as typed; then it learns and, at a day's end, forgets."""
        skills = part_skills(spec)
        knows = {s: self.rng.random() < self.known[s] for s in self.known}  # this attempt's knowledge
        answers = {p.spec.id: self._part(spec, p, knows) for p in variant.parts}
        self._practise({s for ids in skills.values() for s in ids if s in self.known})
        return answers

    def _part(self, spec: ExerciseSpec, part: PartVariant, knows: Mapping[str, bool]) -> str:
        ours = [s for s in spec.part_skills(part.spec.id) if s in self.known]
        unknown = [s for s in ours if not knows[s]]
        if not unknown:
            slip = np.mean([self.traits.slip[s] for s in ours]) if ours else 0.0
            return random_slip(part, self.rng) if self.rng.random() < slip else right_answer(part)
        if self.rng.random() < np.mean([self.traits.guess[s] for s in unknown]):
            return right_answer(part)
        return self._mistake(spec, part, unknown) or random_slip(part, self.rng)

    def _mistake(self, spec: ExerciseSpec, part: PartVariant, unknown: list[str]) -> str | None:
        """One of the part's named mistakes of a skill not known now, each tried at the learner's chance, or None."""
        mutants = [m for m in part.target.mutants if set(spec.mistake_skills(part.spec.id, m.name)) & set(unknown)]
        self.rng.shuffle(mutants)
        for mutant in mutants:
            if self.rng.random() < self.traits.mistake.get(mutant.name, 0.0):
                return render(part, mutant.routes[0])
        return None

    def _practise(self, skills: set[str]) -> None:
        for skill in sorted(skills):
            self.known[skill] += (1 - self.known[skill]) * self.traits.learn[skill]
        self.attempts += 1
        if self.attempts % ATTEMPTS_PER_DAY == 0:  # a night: each known skill fades a little
            fade = math.exp(-1.0 / FORGET_DAYS)
            self.known = {s: p * fade for s, p in self.known.items()}


# ---------------------------------------------------------------- answers as typed


def _decimals(part: PartVariant) -> int:
    numeric = isinstance(KINDS[part.spec.type], NumericKind)
    return (decimal_places(part.tolerance, part.target.exact, False) or 0) if numeric else 0


def render(part: PartVariant, value: Any) -> str:
    """A value of the part's kind as a learner types it (the kind's first syntax, the precision asked)."""
    return render_answer(part.spec.type, value, syntax.syntaxes(part.spec.type)[0], _decimals(part))


def right_answer(part: PartVariant) -> str:
    """The right answer, as the reference computes it from the shown numbers."""
    return render(part, part.target.exact)


def random_slip(part: PartVariant, rng: random.Random) -> str:
    """A wrong answer no named mistake explains: one entry (or one number) off by a slip of the pen."""
    kind, decimals = part.spec.type, _decimals(part)
    value = KINDS[kind].to_json(part.target.exact)
    off = lambda number: _off(number, decimals, rng)  # noqa: E731
    if kind == "index-set":
        flipped = set(value) ^ {rng.randrange(0, max(value, default=0) + 3)}
        slipped: Any = sorted(flipped) or [max(value) + 1]
    elif kind == "shape":
        slipped = list(value)
        slipped[rng.randrange(len(slipped))] += 1
    elif isinstance(value, list):
        slipped = [list(row) if isinstance(row, list) else row for row in value]
        row = rng.randrange(len(slipped))
        if isinstance(slipped[row], list):
            column = rng.randrange(len(slipped[row]))
            slipped[row][column] = off(slipped[row][column])
        else:
            slipped[row] = off(slipped[row])
    else:
        slipped = off(value)
    return syntax.render(kind, slipped, syntax.syntaxes(kind)[0], decimals)


def _off(number: float | int, decimals: int, rng: random.Random) -> float | int:
    """The number off by 5-50 %, and by enough to show at the decimals the answer is typed to."""
    sign = rng.choice((-1, 1))
    if isinstance(number, int):
        return number + sign * max(1, round(abs(number) * rng.uniform(0.05, 0.3)))
    return number + sign * max(0.1, 3 * 10.0**-decimals, abs(number) * rng.uniform(0.2, 0.5))


def oracle(learner: Learner, exercises: list[tuple[ExerciseSpec, Variant]], limit: int) -> int | None:
    """Attempts to mastery for a tutor that sees the hidden state (always the exercise of the weakest skill),
    in-process: a reference for what is reachable, not a tutor the service could be."""
    while learner.attempts < limit:
        if learner.mastered():
            return learner.attempts
        spec, variant = min(exercises, key=lambda e: min(learner.known[s] for ids in part_skills(e[0]).values()
                                                         for s in ids))  # fmt: skip
        learner.answer(spec, variant)
    return learner.attempts if learner.mastered() else None
