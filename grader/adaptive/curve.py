"""P(known) from a learner's own learning curve on a skill: BKT's forward equation with the learner's own start and
learning rate (individualised BKT), inferred from their answers over a grid.

BKT's update (grader.adaptive.bkt) assumes a skill once known stays known, so two right answers in a row read as
mastery. Learners are less tidy: they get a step right one day and wrong the next while the skill is still
settling. Here each learner and skill has its own start P(L0) and learning rate P(T); after k opportunities the
skill is known with probability 1 - (1 - P(L0))·(1 - P(T))^k, and an answer is right with probability
guess + (1 - guess - slip)·that. The answers so far weigh every (P(L0), P(T)) on a grid (a Bayesian posterior,
with a prior centred on the course's BKT parameters); P(known) is the posterior mean at the next opportunity.
A run of right answers therefore counts for more the longer it is, and a slow learner is kept practising.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from grader.adaptive.bkt import Params

STARTS = np.linspace(0.02, 0.6, 30)  # the grid of P(L0)
RATES = np.geomspace(0.005, 0.5, 25)  # the grid of P(T): a slow learner may need hundreds of tries
# How firmly the course's P(L0) and P(T) hold before answers: a Beta prior of this concentration around each.
CONCENTRATION = 4.0
# Only the latest opportunities are read, so one reading costs a bounded time however long the history (a replay
# reads once per moment); by then the curve has long settled, and the older ones still count in k.
MAX_OPPORTUNITIES = 50


def _log_beta(x: np.ndarray, mean: float) -> np.ndarray:
    a, b = mean * CONCENTRATION, (1 - mean) * CONCENTRATION
    return (a - 1) * np.log(x) + (b - 1) * np.log1p(-x)


def _known_after(opportunities: np.ndarray) -> np.ndarray:
    """P(known) on the grid (starts × rates × the given opportunity counts)."""
    return 1 - (1 - STARTS[:, None, None]) * (1 - RATES[None, :, None]) ** opportunities[None, None, :]


def _latest(history: Sequence[Sequence[bool]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of the latest MAX_OPPORTUNITIES opportunities: each one's index in the whole history, and its right and wrong
    answers."""
    start = max(0, len(history) - MAX_OPPORTUNITIES)
    rows = [(k, sum(answers), len(answers) - sum(answers))
            for k, answers in enumerate(history[start:], start=start)]  # fmt: skip
    table = np.array(rows, dtype=float).reshape(-1, 3)
    return table[:, 0], table[:, 1], table[:, 2]


def p_known(history: Sequence[Sequence[bool]], params: Params) -> float:
    """P(known) at the next opportunity, given the answers at each opportunity so far (oldest first); of the older
    ones than the latest MAX_OPPORTUNITIES, only their count is read."""
    mean_start = min(max(params.prior, STARTS[0]), STARTS[-1])
    mean_rate = min(max(params.learn, RATES[0]), RATES[-1])
    # Each cell weighs by the Beta density alone, so the geometric grid leans towards slow learning: mastery waits
    # until a long run of answers has ruled slow learning out (measured in docs/development/adaptive-benchmark.md).
    log_weight = _log_beta(STARTS, mean_start)[:, None] + _log_beta(RATES, mean_rate)[None, :]
    at, right, wrong = _latest(history)
    if at.size:
        p_right = params.guess + (1 - params.guess - params.slip) * _known_after(at)
        log_weight = log_weight + (right * np.log(p_right) + wrong * np.log1p(-p_right)).sum(axis=2)
    weight = np.exp(log_weight - log_weight.max())
    return float((weight * _known_after(np.array([float(len(history))]))[..., 0]).sum() / weight.sum())
