"""Toy-block answers worked by hand along every route a learner takes are graded correct.

The learner's arithmetic is redone here independently of grader.reference: the row's statistics,
u', the GELU values and their sums, each step rounded to 3 decimals or not, with the page's GELU
constants (0.798, 0.0447) or the exact ones (sqrt(2/pi), 0.044715). The answer is then rounded
to 3 decimals, as the prompt asks.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from grader.catalog.catalog import Catalog

SEEDS = range(1, 81)
# (round mu and sigma, round u', round each GELU value, exact constants)
ROUTES = list(itertools.product([False, True], repeat=4))


def _r3(value: np.ndarray) -> np.ndarray:
    return np.round(value, 3)


def _gelu(z: np.ndarray, exact: bool) -> np.ndarray:
    c, k = (math.sqrt(2 / math.pi), 0.044715) if exact else (0.798, 0.0447)
    return 0.5 * z * (1 + np.tanh(c * (z + k * z**3)))


def mlp_by_hand(h: np.ndarray, route: tuple[bool, bool, bool, bool]) -> np.ndarray:
    """m = gelu(u') + gelu(-u') for u' = LN(h), along one rounding route."""
    round_stats, round_u, round_gelu, exact = route
    mu = h.mean()
    sigma = math.sqrt(((h - mu) ** 2).mean() + 1e-5)
    if round_stats:
        mu, sigma = round(mu, 3), round(sigma, 3)
    u = (h - mu) / sigma
    u = _r3(u) if round_u else u
    halves = [_gelu(u, exact), _gelu(-u, exact)]
    if round_gelu:
        halves = [_r3(half) for half in halves]
    return halves[0] + halves[1]


def written(values: np.ndarray) -> str:
    return "[" + "; ".join(f"{v:.3f}" for v in values) + "]"


def _row(catalog: Catalog, exercise: str, seed: int, name: str) -> np.ndarray:
    return np.asarray(catalog._variant(exercise, seed).quantities[name], dtype=float)


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: "".join("SUGE"[i] if on else "-" for i, on in enumerate(r)))
def test_the_mlp_output_worked_by_hand_is_correct(catalog: Catalog, route: tuple[bool, bool, bool, bool]) -> None:
    wrong = []
    for seed in SEEDS:
        answer = written(mlp_by_hand(_row(catalog, "block-mlp", seed, "h"), route))
        part = catalog.check("block-mlp", seed, {"m": answer}).to_json()["parts"]["m"]
        if part["status"] != "correct":
            wrong.append((seed, answer, part["message"]))
    assert wrong == []


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: "".join("SUGE"[i] if on else "-" for i, on in enumerate(r)))
def test_the_block_output_worked_by_hand_is_correct(catalog: Catalog, route: tuple[bool, bool, bool, bool]) -> None:
    wrong = []
    for seed in SEEDS:
        h, x = _row(catalog, "block-output", seed, "h"), _row(catalog, "block-output", seed, "x")
        answers = {"y": written(h + mlp_by_hand(h, route)), "y_no_attention": written(x + mlp_by_hand(x, route))}
        parts = catalog.check("block-output", seed, answers).to_json()["parts"]
        wrong += [(seed, name, answers[name]) for name, part in parts.items() if part["status"] != "correct"]
    assert wrong == []


@pytest.mark.parametrize("exact", [False, True])
def test_gelu_of_the_printed_z_is_correct_with_either_constants(catalog: Catalog, exact: bool) -> None:
    wrong = []
    for seed in SEEDS:
        z = round(float(catalog._variant("block-gelu", seed).quantities["z1"]), 3)  # as the prompt prints it
        answers = {"neg": f"{_gelu(np.array(-z), exact):.3f}", "pos": f"{_gelu(np.array(z), exact):.3f}"}
        parts = catalog.check("block-gelu", seed, answers).to_json()["parts"]
        wrong += [(seed, name, answers[name]) for name, part in parts.items() if part["status"] != "correct"]
    assert wrong == []


def test_each_worked_mlp_solution_adds_up_as_printed(catalog: Catalog) -> None:
    for seed in SEEDS:
        shown = catalog._variant("block-mlp", seed).quantities
        gelu, m = _r3(np.asarray(shown["gelu"])), _r3(np.asarray(shown["m"]))
        np.testing.assert_allclose(gelu[:4] + gelu[4:], m, atol=1e-9, err_msg=f"seed {seed}")


def test_the_page_variants_solutions_print_the_pages_figures(catalog: Catalog) -> None:
    mlp = "\n".join(catalog._variant("block-mlp", 0).solution)
    output = "\n".join(catalog._variant("block-output", 0).solution)
    assert "[−0.149; 0.802; −0.166; 0.874; 0.952; −0.162; 0.726; −0.156]" in mlp
    assert "$m_5$ = [0.803; 0.640; 0.560; 0.718]" in mlp
    assert "[−0.436; 1.551; −0.461; 1.698]" in output and "[−0.248; −0.248; −0.248; 3.088]" in output
