"""P(known) from the learner's own learning curve: what answers do to it, what it recovers, and its bound."""

from __future__ import annotations

import random

import pytest

from grader.adaptive import bkt, curve
from grader.adaptive.model import MASTERED


def test_before_any_answer_it_is_the_courses_start() -> None:
    assert curve.p_known([], bkt.DEFAULT) == pytest.approx(bkt.DEFAULT.prior, abs=0.01)
    unready_course = bkt.Params(prior=0.05, learn=0.1, guess=0.1, slip=0.08)
    assert curve.p_known([], unready_course) < 0.12


def test_a_right_answer_raises_it_more_than_a_wrong_one_and_every_answer_counts() -> None:
    right, wrong = curve.p_known([[True]], bkt.DEFAULT), curve.p_known([[False]], bkt.DEFAULT)
    assert wrong < right
    assert curve.p_known([[True, False]], bkt.DEFAULT) < right
    assert curve.p_known([[True], [True]], bkt.DEFAULT) > right


def test_two_right_answers_are_not_mastery_though_bkts_own_update_reads_them_so() -> None:
    assert bkt.update(bkt.update(0.2, True, bkt.DEFAULT), True, bkt.DEFAULT) >= MASTERED
    assert curve.p_known([[True], [True]], bkt.DEFAULT) < 0.6
    assert curve.p_known([[True]] * 8, bkt.DEFAULT) < MASTERED <= curve.p_known([[True]] * 15, bkt.DEFAULT)


def test_a_learner_right_two_times_in_three_is_not_mastered_however_long_they_practise() -> None:
    assert curve.p_known([[True, False, True]] * 20, bkt.DEFAULT) < MASTERED
    assert curve.p_known([[True, False, True]] * 200, bkt.DEFAULT) < MASTERED


@pytest.mark.parametrize("opportunities, within", [(15, 0.12), (25, 0.05)])
def test_it_recovers_simulated_learners_knowledge_erring_low(opportunities: int, within: float) -> None:
    start, rate, guess, slip = 0.1, 0.15, 0.1, 0.08
    known = [1 - (1 - start) * (1 - rate) ** k for k in range(opportunities + 1)]
    read = []
    for seed in range(40):
        draw = random.Random(seed)
        history = [[draw.random() < guess + (1 - guess - slip) * known[k] for _ in range(2)] for k in range(opportunities)]
        read.append(curve.p_known(history, bkt.DEFAULT))
    assert sum(abs(p - known[-1]) for p in read) / len(read) < within
    assert sum(read) / len(read) < known[-1]  # it leans towards slow learning: mastery is not read early


def test_only_the_latest_opportunities_are_read_and_older_ones_still_count() -> None:
    latest = [[True]] * curve.MAX_OPPORTUNITIES
    history = [[False]] * 100 + latest
    assert curve.p_known(history, bkt.DEFAULT) == curve.p_known([[]] * 100 + latest, bkt.DEFAULT)
    assert curve.p_known(history, bkt.DEFAULT) != curve.p_known(latest, bkt.DEFAULT)
