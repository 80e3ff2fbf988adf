"""Bayesian Knowledge Tracing, pyBKT's standard model in numpy: four parameters per skill, an update per answer,
and a Baum–Welch fit over many learners' answer sequences.

The model is a two-state hidden Markov chain per learner and skill: the skill is unknown or known; at the start
it is known with probability `prior`; after each opportunity an unknown skill becomes known with probability
`learn` (no forgetting, as pyBKT's default); a known skill is answered wrongly with probability `slip`, an
unknown one rightly with probability `guess`. pyBKT fits the same model by the same EM; it is not used because
its 1.4.3 release fails on import against scikit-learn 1.9 and pulls pandas, scikit-learn and scipy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

# Bounds that keep a fit out of the degenerate corners BKT practice warns of: a guess above 0.3 or a slip above
# 0.1 lets "known" and "unknown" swap meanings (a learner who answers rightly being judged not to know).
GUESS_MAX = 0.3
SLIP_MAX = 0.1
FLOOR = 1e-4  # no parameter is exactly 0 or 1: one surprising answer must not make a probability impossible
# Too little data keeps the defaults: fewer learners than this, or fewer answers than this, for a skill.
MIN_LEARNERS = 10
MIN_OBSERVATIONS = 200


@dataclass(frozen=True)
class Params:
    """One skill's BKT parameters: P(known at start), P(learn per opportunity), P(right if unknown), P(wrong if known)."""

    prior: float
    learn: float
    guess: float
    slip: float

    def bounded(self) -> Params:
        """The parameters clipped into their allowed ranges (guess ≤ GUESS_MAX, slip ≤ SLIP_MAX)."""
        clip = lambda v, high=1 - FLOOR: float(min(max(v, FLOOR), high))  # noqa: E731
        return Params(clip(self.prior), clip(self.learn), clip(self.guess, GUESS_MAX), clip(self.slip, SLIP_MAX))


# Before a course has data: most learners start not knowing a step, learn it in a handful of tries, guess a
# numeric answer rarely and slip now and then (figures in the range the BKT literature reports for math steps).
DEFAULT = Params(prior=0.2, learn=0.2, guess=0.1, slip=0.08)


def posterior(p_known: float, correct: bool, params: Params) -> float:
    """P(known) after seeing one answer, before any learning from it (Bayes' rule)."""
    if correct:
        known, unknown = p_known * (1 - params.slip), (1 - p_known) * params.guess
    else:
        known, unknown = p_known * params.slip, (1 - p_known) * (1 - params.guess)
    return known / (known + unknown)


def update(p_known: float, correct: bool, params: Params) -> float:
    """P(known) at the next opportunity: the posterior after this answer, then the chance to learn."""
    seen = posterior(p_known, correct, params)
    return seen + (1 - seen) * params.learn


def p_correct(p_known: float, params: Params) -> float:
    """The chance the next answer is right."""
    return p_known * (1 - params.slip) + (1 - p_known) * params.guess


@dataclass(frozen=True)
class Fit:
    """A fit's outcome: the parameters, the data behind them, and whether the data sufficed (else the defaults)."""

    params: Params
    learners: int
    observations: int
    fitted: bool
    iterations: int = 0


def _padded(sequences: Sequence[Sequence[bool]]) -> tuple[np.ndarray, np.ndarray]:
    """Answers as an N×T array of 0/1 and a mask of where answers are."""
    width = max(len(s) for s in sequences)
    answers = np.zeros((len(sequences), width))
    mask = np.zeros((len(sequences), width), dtype=bool)
    for i, seq in enumerate(sequences):
        answers[i, : len(seq)] = np.asarray(seq, dtype=float)
        mask[i, : len(seq)] = True
    return answers, mask


def _emissions(answers: np.ndarray, mask: np.ndarray, params: Params) -> np.ndarray:
    """P(answer | state) as N×T×2 (state 0 unknown, 1 known); 1 where there is no answer."""
    right = np.stack([np.full_like(answers, params.guess), np.full_like(answers, 1 - params.slip)], axis=-1)
    seen = np.where(answers[..., None] == 1, right, 1 - right)
    return np.where(mask[..., None], seen, 1.0)


def _expectations(answers: np.ndarray, mask: np.ndarray, params: Params) -> Params:
    """One EM step: the parameters that maximise the expected log-likelihood under `params` (scaled forward–backward)."""
    n, t = answers.shape
    emit = _emissions(answers, mask, params)
    move = np.array([[1 - params.learn, params.learn], [0.0, 1.0]])
    alpha = np.zeros((n, t, 2))
    alpha[:, 0] = np.array([1 - params.prior, params.prior]) * emit[:, 0]
    alpha[:, 0] /= alpha[:, 0].sum(axis=1, keepdims=True)
    for k in range(1, t):
        step = (alpha[:, k - 1] @ move) * emit[:, k]
        alpha[:, k] = step / step.sum(axis=1, keepdims=True)
    beta = np.ones((n, t, 2))
    for k in range(t - 2, -1, -1):
        step = (emit[:, k + 1] * beta[:, k + 1]) @ move.T
        beta[:, k] = step / step.sum(axis=1, keepdims=True)
    gamma = alpha * beta
    gamma /= gamma.sum(axis=2, keepdims=True)
    # Expected unknown -> known moves between consecutive answers (both present).
    pair = mask[:, :-1] & mask[:, 1:]
    xi = alpha[:, :-1, 0] * params.learn * emit[:, 1:, 1] * beta[:, 1:, 1]
    stay = alpha[:, :-1, 0] * (1 - params.learn) * emit[:, 1:, 0] * beta[:, 1:, 0]
    moved = np.where(pair, xi / np.maximum(xi + stay + alpha[:, :-1, 1] * emit[:, 1:, 1] * beta[:, 1:, 1], 1e-300), 0)
    unknown_before = np.where(pair, gamma[:, :-1, 0], 0).sum()
    g0, g1 = np.where(mask, gamma[..., 0], 0), np.where(mask, gamma[..., 1], 0)
    return Params(prior=float(gamma[:, 0, 1].mean()), learn=float(moved.sum() / max(unknown_before, 1e-300)),
                  guess=float((g0 * answers).sum() / max(g0.sum(), 1e-300)),
                  slip=float((g1 * (1 - answers)).sum() / max(g1.sum(), 1e-300))).bounded()  # fmt: skip


def enough(sequences: Sequence[Sequence[bool]]) -> bool:
    """Whether there are enough learners and answers to fit a skill (MIN_LEARNERS, MIN_OBSERVATIONS)."""
    used = [s for s in sequences if s]
    return len(used) >= MIN_LEARNERS and sum(map(len, used)) >= MIN_OBSERVATIONS


def fit(sequences: Sequence[Sequence[bool]], start: Params = DEFAULT, iterations: int = 200,
        tolerance: float = 1e-6) -> Fit:  # fmt: skip
    """One skill's parameters fitted to learners' answer sequences (each in order); the start when data is too little."""
    used = [list(s) for s in sequences if s]
    observations = sum(map(len, used))
    if not enough(used):
        return Fit(start, len(used), observations, fitted=False)
    answers, mask = _padded(used)
    params, done = start.bounded(), 0
    for done in range(1, iterations + 1):
        found = _expectations(answers, mask, params)
        change = max(abs(a - b) for a, b in zip(vars(found).values(), vars(params).values()))
        params = found
        if change < tolerance:
            break
    return Fit(params, len(used), observations, fitted=True, iterations=done)


def simulate(params: Params, learners: int, length: int, rng: np.random.Generator) -> list[list[bool]]:
    """Answer sequences drawn from the model itself (for checking that a fit recovers what made them)."""
    sequences = []
    for _ in range(learners):
        known = rng.random() < params.prior
        answers = []
        for _ in range(length):
            answers.append(bool(rng.random() < (1 - params.slip if known else params.guess)))
            known = known or rng.random() < params.learn
        sequences.append(answers)
    return sequences
