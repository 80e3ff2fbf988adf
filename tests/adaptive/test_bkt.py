"""BKT in numpy: the update against numbers worked by hand, and a fit that recovers the parameters that made the data."""

from __future__ import annotations

import numpy as np
import pytest

from grader.adaptive import bkt

PARAMS = bkt.Params(prior=0.2, learn=0.2, guess=0.1, slip=0.08)


def test_a_right_answer_raises_p_known_as_bayes_rule_and_the_learning_step_say() -> None:
    # P(known | right) = 0.2·0.92 / (0.2·0.92 + 0.8·0.1) = 0.184 / 0.264; then + (1 − that)·0.2.
    assert bkt.posterior(0.2, True, PARAMS) == pytest.approx(0.184 / 0.264)
    assert bkt.update(0.2, True, PARAMS) == pytest.approx(0.184 / 0.264 + (1 - 0.184 / 0.264) * 0.2)
    assert bkt.update(0.2, True, PARAMS) == pytest.approx(0.757576, abs=1e-6)


def test_a_wrong_answer_lowers_it() -> None:
    # P(known | wrong) = 0.2·0.08 / (0.2·0.08 + 0.8·0.9) = 0.016 / 0.736 = 0.021739; learning: 0.217391.
    assert bkt.posterior(0.2, False, PARAMS) == pytest.approx(0.016 / 0.736)
    assert bkt.update(0.2, False, PARAMS) == pytest.approx(0.217391, abs=1e-6)
    assert bkt.p_correct(0.5, PARAMS) == pytest.approx(0.5 * 0.92 + 0.5 * 0.1)


def test_the_fit_recovers_the_parameters_that_generated_the_answers() -> None:
    true = bkt.Params(prior=0.3, learn=0.15, guess=0.2, slip=0.07)
    sequences = bkt.simulate(true, learners=800, length=25, rng=np.random.default_rng(7))
    fit = bkt.fit(sequences)
    assert fit.fitted and fit.learners == 800 and fit.observations == 800 * 25
    for name in ("prior", "learn", "guess", "slip"):
        assert getattr(fit.params, name) == pytest.approx(getattr(true, name), abs=0.04), name


def test_sequences_of_different_lengths_are_fitted_too() -> None:
    true = bkt.Params(prior=0.1, learn=0.25, guess=0.15, slip=0.05)
    rng = np.random.default_rng(3)
    sequences = [s[: rng.integers(3, 30)] for s in bkt.simulate(true, 1000, 30, rng)]
    fit = bkt.fit(sequences)
    assert fit.params.learn == pytest.approx(0.25, abs=0.05) and fit.params.guess == pytest.approx(0.15, abs=0.04)


def test_too_little_data_keeps_the_defaults_and_says_so() -> None:
    few = bkt.simulate(PARAMS, learners=bkt.MIN_LEARNERS - 1, length=100, rng=np.random.default_rng(0))
    fit = bkt.fit(few)
    assert not fit.fitted and fit.params == bkt.DEFAULT and fit.learners == bkt.MIN_LEARNERS - 1
    short = bkt.simulate(PARAMS, learners=50, length=3, rng=np.random.default_rng(0))  # 150 < MIN_OBSERVATIONS
    assert not bkt.fit(short).fitted


def test_a_fit_never_leaves_the_bounds_that_keep_known_and_unknown_apart() -> None:
    # Learners who answer at random: an unbounded fit can call them "known, slipping half the time".
    rng = np.random.default_rng(1)
    noise = [[bool(x) for x in rng.random(20) < 0.5] for _ in range(300)]
    params = bkt.fit(noise).params
    assert params.guess <= bkt.GUESS_MAX and params.slip <= bkt.SLIP_MAX
    assert bkt.Params(1.0, 0.0, 0.9, 0.5).bounded() == bkt.Params(1 - bkt.FLOOR, bkt.FLOOR, bkt.GUESS_MAX, bkt.SLIP_MAX)
