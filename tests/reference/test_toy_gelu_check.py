"""The toy block's single-number GELU check: a learner is handed z as printed, to 3 decimals."""

from __future__ import annotations

import numpy as np
import pytest

from grader.reference.toy import LESSON_HAND_PATHS, PAGE_A5, PAGE_X5, HandPath, toy_quantities

# block-gelu seed 263: the prompt prints z = 1.459; rounding mu and sigma first would reach 1.461.
X_263 = np.array([-0.6, 1.5, -0.1, 0.7])
A_263 = np.array([0.041, -1.373, 0.973, 0.337])
GELU_OF_PRINTED_Z = 1.35331  # 0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3))) at z = 1.459


@pytest.mark.parametrize("hand", LESSON_HAND_PATHS)
def test_every_hand_route_starts_from_the_printed_z(hand: HandPath) -> None:
    quantities = toy_quantities(X_263, A_263, hand=hand)
    assert quantities["z1"] == 1.459
    # Routes that round the GELU values carry these; the others carry them unrounded.
    assert round(float(quantities["gelu_pos"]), 3) == 1.353
    assert round(float(quantities["gelu_neg"]), 3) == -0.106


def test_no_route_moves_gelu_of_z_further_than_rounding_z_does() -> None:
    routes = [toy_quantities(X_263, A_263, hand=hand) for hand in (None, *LESSON_HAND_PATHS)]
    assert max(abs(float(q["gelu_pos"]) - GELU_OF_PRINTED_Z) for q in routes) < 0.0006


def test_the_full_precision_route_keeps_the_unrounded_z_the_page_used() -> None:
    # The page prints gelu(1.102) = 0.952, which is gelu(1.10169); gelu(1.102) itself is 0.9528.
    exact = toy_quantities(PAGE_X5, PAGE_A5)
    assert exact["z1"] == pytest.approx(1.10169, abs=1e-5)
    assert round(float(exact["gelu_pos"]), 3) == 0.952
    page = toy_quantities(PAGE_X5, PAGE_A5, hand=LESSON_HAND_PATHS[0])
    assert page["z1"] == 1.102 and page["gelu_neg"] == -0.149
