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
LEARN = (0.05, 0.25)  # P(T): applied at each attempt that practises the skill
GUESS = (0.00, 0.10)  # a right answer to a part whose skills are not all known
SLIP = (0.02, 0.10)  # a wrong answer (a random slip) to a part whose skills are all known
MISTAKE = (0.0, 0.6)  # per learner and named mistake: its chance when the part's skill is not known
FORGET_DAYS = 30.0  # τ: knowledge fades as p·exp(−Δt/τ) over simulated days
ATTEMPTS_PER_DAY = 20  # a simulated day ends after this many attempts
MASTERED = 0.95  # mastery: every skill's knowledge probability above this

# Until the exercise files carry `skills:` (issue 33, item 1), each exercise's parts practise these.
FALLBACK_SKILLS = {
    "ffn-design-edit": ("ffn-memory",), "ffn-edit": ("ffn-memory",), "ffn-keys": ("ffn-memory",),
    "ffn-threshold": ("ffn-memory",), "ffn-share": ("parameter-counting",),
    "attention-by-hand": ("attention-scores", "softmax-causal-mask"), "causal-rows": ("softmax-causal-mask",),
    "block-layernorm": ("layernorm-stats",), "layernorm-scale": ("layernorm-stats",),
    "block-residual": ("residual-stream",), "block-output": ("residual-stream",),
    "block-gelu": ("gelu",), "block-mlp": ("gelu",),
    "cost-per-token": ("cost-per-token",), "microgpt-first-step": ("rmsnorm",),
    "microgpt-params": ("parameter-counting",), "microgpt-stations": ("microgpt-stations",),
    "gqa-kv-cache": ("gqa-kv-cache",), "modern-shapes": ("gqa-kv-cache",), "modern-params": ("parameter-counting",),
    "llama3-params": ("parameter-counting",), "swiglu-by-hand": ("swiglu",), "swiglu-why": ("swiglu",),
    "swiglu-width": ("swiglu",),
}  # fmt: skip


def part_skills(spec: ExerciseSpec) -> dict[str, tuple[str, ...]]:
    """Each part's skills: as the exercise file declares them, else the fallback table."""
    found = {}
    for part in spec.parts:
        declared = tuple(getattr(part, "skills", None) or ())
        found[part.id] = declared or FALLBACK_SKILLS.get(spec.id, ())
    return found


def mistake_skills(spec: ExerciseSpec) -> dict[str, tuple[str, ...]]:
    """The skills each named mistake of the exercise belongs to, where the file says (else it is any part skill's)."""
    found: dict[str, tuple[str, ...]] = {}
    for part in spec.parts:
        for ref in part.misconceptions:
            declared = tuple(getattr(ref, "skills", None) or ())
            if declared:
                found[ref.name] = declared
    return found


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

    def mastered(self) -> bool:
        """True when every skill's knowledge probability is above MASTERED."""
        return all(p > MASTERED for p in self.known.values())

    def answer(self, spec: ExerciseSpec, variant: Variant) -> dict[str, str]:
        """Answers to every part of the variant, as typed; then it learns and, at a day's end, forgets."""
        skills, of_mistake = part_skills(spec), mistake_skills(spec)
        knows = {s: self.rng.random() < self.known[s] for s in self.known}  # this attempt's knowledge
        answers = {p.spec.id: self._part(p, skills[p.spec.id], knows, of_mistake) for p in variant.parts}
        self._practise({s for ids in skills.values() for s in ids if s in self.known})
        return answers

    def _part(self, part: PartVariant, skills: tuple[str, ...], knows: Mapping[str, bool],
              of_mistake: Mapping[str, tuple[str, ...]]) -> str:  # fmt: skip
        ours = [s for s in skills if s in self.known]
        unknown = [s for s in ours if not knows[s]]
        if not unknown:
            slip = np.mean([self.traits.slip[s] for s in ours]) if ours else 0.0
            return random_slip(part, self.rng) if self.rng.random() < slip else right_answer(part)
        if self.rng.random() < np.mean([self.traits.guess[s] for s in unknown]):
            return right_answer(part)
        return self._mistake(part, unknown, of_mistake) or random_slip(part, self.rng)

    def _mistake(self, part: PartVariant, unknown: list[str], of_mistake: Mapping[str, tuple[str, ...]]) -> str | None:
        """One of the part's named mistakes of an unknown skill, each tried at the learner's chance, or None."""
        mutants = [m for m in part.target.mutants if set(of_mistake.get(m.name, unknown)) & set(unknown)]
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
