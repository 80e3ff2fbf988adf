"""The toy block's single-number GELU check: a learner is handed z as printed, to 3 decimals."""

from __future__ import annotations

import numpy as np
import pytest

from grader.reference.common import gelu_tanh
from grader.reference.toy import PAGE_A5, PAGE_HAND_PATH, PAGE_X5, toy_quantities

# block-gelu seed 263: the prompt prints z = 1.459.
X_263 = np.array([-0.6, 1.5, -0.1, 0.7])
A_263 = np.array([0.041, -1.373, 0.973, 0.337])
GELU_OF_PRINTED_Z = 1.35331  # 0.5 z (1 + tanh(sqrt(2/pi) (z + 0.044715 z^3))) at z = 1.459


def test_a_fixed_z_is_carried_through_the_cube_the_tanh_and_both_gelu_values() -> None:
    quantities = toy_quantities(X_263, A_263, fixed={"z1": 1.459})
    assert quantities["z1"] == 1.459
    assert float(quantities["gelu_pos"]) == pytest.approx(GELU_OF_PRINTED_Z, abs=1e-5)
    assert round(float(quantities["gelu_neg"]), 3) == -0.106


def test_a_fixed_tanh_gives_gelu_as_half_z_times_one_plus_t() -> None:
    quantities = toy_quantities(X_263, A_263, fixed={"z1": 1.438, "gelu_tanh": 0.849})
    assert float(quantities["gelu_pos"]) == pytest.approx(0.5 * 1.438 * 1.849)
    assert float(quantities["gelu_neg"]) == pytest.approx(-0.5 * 1.438 * 0.151)


def test_the_check_through_its_printed_steps_is_the_reference_gelu() -> None:
    quantities = toy_quantities(X_263, A_263)
    z = float(quantities["z1"])
    assert float(quantities["gelu_pos"]) == pytest.approx(float(gelu_tanh(z)), abs=1e-12)
    assert float(quantities["gelu_neg"]) == pytest.approx(float(gelu_tanh(-z)), abs=1e-12)


def test_the_full_precision_route_keeps_the_unrounded_z_the_page_used() -> None:
    # The page prints gelu(1.102) = 0.952, which is gelu(1.10169); gelu(1.102) itself is 0.9528.
    exact = toy_quantities(PAGE_X5, PAGE_A5)
    assert exact["z1"] == pytest.approx(1.10169, abs=1e-5)
    assert round(float(exact["gelu_pos"]), 3) == 0.952
    page = toy_quantities(PAGE_X5, PAGE_A5, hand=PAGE_HAND_PATH)
    assert page["z1"] == pytest.approx(1.10169, abs=1e-5) and page["gelu_neg"] == -0.149
