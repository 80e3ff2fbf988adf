"""Every number the GPT-2 block lesson page prints, reproduced by the reference toy block."""

from __future__ import annotations

import numpy as np
import pytest

from grader.reference.toy import LESSON_HAND_PATHS, PAGE_A5, PAGE_X5, toy_quantities

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
    # The page prints 0.640 and 1.551: it rounded its intermediates by hand.
    assert r3(EXACT["m"]) == [0.803, 0.641, 0.560, 0.718]
    assert r3(EXACT["y"]) == [-0.436, 1.552, -0.461, 1.698]


def test_the_page_hand_path_gives_the_printed_second_entries() -> None:
    page_path = toy_quantities(PAGE_X5, PAGE_A5, hand=LESSON_HAND_PATHS[0])
    assert r3(page_path["m"][1]) == 0.640
    assert r3(page_path["y"][1]) == 1.551


def test_block_output_without_attention() -> None:
    assert r3(EXACT["y_no_attention"]) == [-0.248, -0.248, -0.248, 3.088]


@pytest.mark.parametrize("entry", range(4))
def test_toy_mlp_is_a_smooth_absolute_value(entry: int) -> None:
    u = EXACT["u"][entry]
    assert EXACT["m"][entry] == pytest.approx(abs(u), abs=0.35)
    assert EXACT["m"][entry] < abs(u)
