"""The GPT-2 toy block of the lesson (d = 4): h, LayerNorm, GELU, MLP and block output."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from grader.catalog.scenarios.base import Params, Quantities, Scenario
from grader.reference.gpt2 import CORRECT, BlockOptions, row_stats
from grader.reference.toy import PAGE_CONSTANTS, PAGE_ROUTE, Fixed, HandPath, toy_quantities

MISTAKES: dict[str, BlockOptions] = {
    "sample-variance": replace(CORRECT, ddof=1),
    "no-centering": replace(CORRECT, center=False),
    "normalise-x": replace(CORRECT, second_norm_of_input=True),
    "no-residual-attention": replace(CORRECT, attn_residual=False),
    "no-residual-mlp": replace(CORRECT, mlp_residual=False),
    "relu": replace(CORRECT, activation="relu"),
    "erf-gelu": replace(CORRECT, activation="erf"),
    "gelu-no-half": replace(CORRECT, gelu_halved=False),
    "residual-from-x": replace(CORRECT, second_residual_of_input=True),
    "no-norm-before-mlp": replace(CORRECT, second_norm=False),
}
# Mistakes outside the block's switches: sigma given as the variance, and a subtracted, not added.
OWN_MISTAKES = ("variance-not-sigma", "subtracted-residual")

# A row whose spread is this small makes sigma (and eps) dominate the answer: not a fair exercise.
MIN_SIGMA = 0.3
# The lesson's five exercises follow one token, so a draw must suit all of them: the LayerNorm mistakes
# (the variance for sigma among them: they agree when sigma is near 1) must move sigma (and mu), leaving out the centring must move m, and ReLU must differ from GELU at -z,
# by more than any tolerance they use.
STORY_MARGIN = 0.01
SIGMA_MISTAKES = ("sample-variance", "no-centering", "normalise-x", "variance-not-sigma")


def _compute(params: Params, mistake: str | None, hand: HandPath | None, fixed: Fixed | None = None) -> Quantities:
    opts = MISTAKES.get(mistake or "", CORRECT)
    x = np.asarray(params["x"], dtype=float)
    a = np.asarray(params["a"], dtype=float)
    quantities = toy_quantities(x, -a if mistake == "subtracted-residual" else a, opts, hand, fixed)
    if mistake == "variance-not-sigma":
        quantities["sigma"] = quantities["var"]
    return {**quantities, **_steps(quantities)}


def _steps(q: Quantities) -> Quantities:
    """More numbers a worked solution prints: first entries, the two GELU values they add, a difference."""
    h, gelu = np.asarray(q["h"]), np.asarray(q["gelu"])
    half = len(gelu) // 2
    return {
        "x_1": float(np.asarray(q["x"])[0]), "a_1": float(np.asarray(q["a"])[0]), "h_1": float(h[0]),
        "gelu_1": float(gelu[0]), "gelu_mirror": float(gelu[half]), "m_1": float(np.asarray(q["m"])[0]),
        "gelu_gap": float(q["gelu_pos"]) - float(q["gelu_neg"]),
    }  # fmt: skip


def _well_posed(params: Params) -> str | None:
    x = np.asarray(params["x"], dtype=float)
    h = x + np.asarray(params["a"], dtype=float)
    for name, row in (("x", x), ("h", h)):
        if float(row_stats(row)[1][0]) < MIN_SIGMA:
            return f"sigma of {name} is below {MIN_SIGMA}"
    return None


def _story_problem(params: Params) -> str | None:
    """Why a drawn token cannot serve every exercise of the lesson, or None (the page's own may not)."""
    right = _compute(params, None, None)
    wrong = {name: _compute(params, name, None) for name in SIGMA_MISTAKES}
    sigmas = sorted(float(q["sigma"]) for q in (right, *wrong.values()))  # type: ignore[arg-type]
    if min(b - a for a, b in zip(sigmas, sigmas[1:])) < STORY_MARGIN:
        return "two LayerNorm mistakes give nearly the same sigma"
    if _gap(wrong["normalise-x"]["mu"], right["mu"]) < STORY_MARGIN:
        return "normalising x instead of h barely moves mu"
    if _gap(wrong["no-centering"]["m"], right["m"]) < STORY_MARGIN:
        return "leaving out the centring barely moves m"
    if _gap(_compute(params, "relu", None)["gelu_neg"], right["gelu_neg"]) < STORY_MARGIN:
        return "ReLU and GELU nearly agree at -z"
    return None


def _gap(one: object, other: object) -> float:
    return float(np.max(np.abs(np.asarray(one, dtype=float) - np.asarray(other, dtype=float))))


TOY_BLOCK = Scenario(
    name="gpt2-toy",
    params=("x", "a"),
    quantities=("x", "a", "h", "mu", "sigma", "u", "z", "gelu", "m", "y", "z1", "gelu_neg",
                "gelu_pos", "y_no_attention",
                # printed by worked solutions only
                "x_1", "a_1", "h_1", "h_sum", "dev", "var", "gelu_cube", "gelu_arg", "gelu_tanh",
                "gelu_gap", "gelu_1", "gelu_mirror", "m_1", "u_no_attention", "m_no_attention",
                "mu_no_attention", "sigma_no_attention", "gelu_no_attention"),  # fmt: skip
    mistakes=(*MISTAKES, *OWN_MISTAKES),
    compute=_compute,
    # The page's own route: it is what worked solutions print (GELU values rounded, so m is the sum
    # of those printed, and gelu(z) of the unrounded z, as the page gives it). Every other route a
    # learner takes from the printed numbers is in the route interval (grader.catalog.reach).
    hand_paths=(PAGE_ROUTE,),
    well_posed=_well_posed,
    suits_story=_story_problem,
    shown_route=1,
    retrace=lambda params, fixed, base: _compute(params, None, None, fixed),
    constants=lambda params: _compute(params, None, PAGE_CONSTANTS),
    carried=("mu", "sigma", "u", "gelu", "mu_no_attention", "sigma_no_attention", "u_no_attention",
             "gelu_no_attention"),
)

__all__: list[Any] = ["TOY_BLOCK"]
