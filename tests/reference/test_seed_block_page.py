"""Every number the GPT-2 block lesson page prints, reproduced by the reference toy block."""

from __future__ import annotations

import numpy as np
import pytest

from grader.reference.toy import PAGE_A5, PAGE_HAND_PATH, PAGE_X5, toy_quantities, toy_weights

EXACT = toy_quantities(PAGE_X5, PAGE_A5)


def r3(value: object) -> list[float] | float:
    rounded = np.round(np.asarray(value, dtype=float), 3)
    return rounded.tolist()


def test_first_residual_h5() -> None:
    assert r3(EXACT["h"]) == [-1.239, 0.911, -1.021, 0.980]


def test_mean_and_standard_deviation_of_h5() -> None:
    assert r3(EXACT["mu"]) == -0.092
    assert r3(EXACT["sigma"]) == 1.041


def test_normalised_row_u5() -> None:
    assert r3(EXACT["u"]) == [-1.102, 0.964, -0.892, 1.030]


def test_gelu_of_the_first_entry_both_signs() -> None:
    assert r3(EXACT["gelu_neg"]) == -0.149
    assert r3(EXACT["gelu_pos"]) == 0.952


def test_mlp_output_and_block_output_at_full_precision() -> None:
    # The page prints 0.640 and 1.551: it rounded each GELU value to 3 decimals (next test).
    assert r3(EXACT["m"]) == [0.803, 0.641, 0.560, 0.718]
    assert r3(EXACT["y"]) == [-0.436, 1.552, -0.461, 1.698]


def test_the_pages_own_route_gives_every_printed_mlp_and_block_figure() -> None:
    page = toy_quantities(PAGE_X5, PAGE_A5, hand=PAGE_HAND_PATH)
    gelu = np.asarray(page["gelu"])
    assert (gelu[0], gelu[4]) == (-0.149, 0.952)  # gelu(-1.102) and gelu(1.102), u' unrounded
    assert r3(page["m"]) == [0.803, 0.640, 0.560, 0.718]
    assert r3(page["y"]) == [-0.436, 1.551, -0.461, 1.698]
    assert r3(page["y_no_attention"]) == [-0.248, -0.248, -0.248, 3.088]


def test_the_toy_mlp_has_eight_hidden_units_between_4_by_8_and_8_by_4_matrices() -> None:
    w1, w2 = toy_weights()
    assert (w1.shape, w2.shape) == ((4, 8), (8, 4))


def test_block_output_without_attention() -> None:
    assert r3(EXACT["y_no_attention"]) == [-0.248, -0.248, -0.248, 3.088]


@pytest.mark.parametrize("entry", range(4))
def test_toy_mlp_is_a_smooth_absolute_value(entry: int) -> None:
    u = EXACT["u"][entry]
    assert EXACT["m"][entry] == pytest.approx(abs(u), abs=0.35)
    assert EXACT["m"][entry] < abs(u)
