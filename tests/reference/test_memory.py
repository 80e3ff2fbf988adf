"""Tests for the FFN-as-key-value-memory reference."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.reference.memory import (
    edit_value,
    ffn_matrix,
    ffn_memory,
    ffn_share,
    firing_keys,
    inputs_changed_by_edit,
    swiglu_ffn_share,
)


def _random_memory(seed, d=4, d_ff=6):
    rng = np.random.default_rng(seed)
    return rng, rng.normal(size=(d_ff, d)), rng.normal(size=(d_ff, d))


def test_ffn_memory_hand_example():
    keys = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    values = np.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]])
    x = np.array([2.0, -3.0])
    # Scores 2, -3, -1: only the first memory fires, with strength 2.
    np.testing.assert_allclose(ffn_memory(x, keys, values), [2.0, 4.0])
    assert firing_keys(x, keys) == [0]


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.integers(1, 16),
       st.sampled_from(["relu", "gelu"]))
def test_memory_sum_equals_matrix_form(seed, d, d_ff, act):
    rng, keys, values = _random_memory(seed, d, d_ff)
    x = rng.normal(size=d)
    expected = ffn_matrix(x, keys, values.T, activation=act)
    np.testing.assert_allclose(ffn_memory(x, keys, values, activation=act), expected,
                               atol=1e-12)
    xs = rng.normal(size=(5, d))
    np.testing.assert_allclose(ffn_memory(xs, keys, values, activation=act),
                               ffn_matrix(xs, keys, values.T, activation=act), atol=1e-12)


def test_ffn_matrix_is_w2_of_relu_w1_x():
    _, keys, values = _random_memory(1)
    x = np.arange(4.0) - 1.5
    np.testing.assert_allclose(ffn_matrix(x, keys, values.T),
                               values.T @ np.maximum(keys @ x, 0.0))


def test_firing_keys_are_the_positive_scores():
    rng, keys, _ = _random_memory(2, d=5, d_ff=12)
    x = rng.normal(size=5)
    fired = firing_keys(x, keys)
    scores = keys @ x
    assert fired == [i for i in range(12) if scores[i] > 0]
    assert 0 < len(fired) < 12


def test_edit_value_copies_and_replaces_one_row():
    _, _, values = _random_memory(3)
    before = values.copy()
    edited = edit_value(values, 2, np.ones(4))
    np.testing.assert_array_equal(values, before)
    np.testing.assert_array_equal(edited[2], np.ones(4))
    np.testing.assert_array_equal(np.delete(edited, 2, 0), np.delete(before, 2, 0))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 5))
def test_editing_a_value_changes_only_inputs_whose_key_fires(seed, index):
    rng, keys, values = _random_memory(seed)
    xs = rng.normal(size=(200, 4))
    edited = edit_value(values, index, values[index] + rng.normal(size=4) + 1.0)
    before = ffn_memory(xs, keys, values)
    after = ffn_memory(xs, keys, edited)
    predicted = inputs_changed_by_edit(xs, keys, index)
    changed = [r for r in range(200) if not np.array_equal(before[r], after[r])]
    assert changed == predicted
    unchanged = np.setdiff1d(np.arange(200), predicted)
    # Bit-identical, not merely close: a silent memory contributes exactly zero.
    assert before[unchanged].tobytes() == after[unchanged].tobytes()
    assert predicted == [r for r in range(200) if index in firing_keys(xs[r], keys)]


def test_ffn_share_is_two_thirds_at_four_d():
    assert ffn_share(512, 2048) == Fraction(2, 3)
    assert ffn_share(16, 64) == Fraction(2, 3)


def test_ffn_share_formula_off_the_standard_width():
    assert ffn_share(10, 10) == Fraction(200, 600)


def test_swiglu_ffn_share_with_full_attention_at_d_4096_is_129_over_193():
    # Counts 4d^2 for attention (no GQA), so this is ~67%, not the GQA block's 76%.
    share = swiglu_ffn_share(4096, 11008)
    assert share == Fraction(129, 193)
    assert round(100 * float(share)) == 67
    assert swiglu_ffn_share(3, 4) == Fraction(36, 72)


def test_swiglu_at_8d_over_3_costs_what_a_4d_ffn_does_so_the_share_stays_two_thirds():
    for d in (3, 6, 96):
        assert swiglu_ffn_share(d, 8 * d // 3) == ffn_share(d, 4 * d) == Fraction(2, 3)
