"""The modern-block lesson's formula exercises (gqa-kv-cache, swiglu-why, llama3-params, swiglu-by-hand):
seed 0 gives the lesson's numbers, every seed agrees with a plain numpy computation written here, and
each named mistake, worked out here, is named when typed."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pytest

from grader.catalog.catalog import Catalog

SEEDS = range(1, 61)
Answers = dict[str, str]


def parts(catalog: Catalog, exercise: str, seed: int, answers: Mapping[str, str]) -> dict[str, Any]:
    """Each answered part's grading, as JSON."""
    graded = catalog.check(exercise, seed, answers).to_json()["parts"]
    return {p: graded[p] for p in answers}


def statuses(catalog: Catalog, exercise: str, seed: int, answers: Mapping[str, str]) -> dict[str, str]:
    return {p: r["status"] for p, r in parts(catalog, exercise, seed, answers).items()}


def named(catalog: Catalog, exercise: str, seed: int, answers: Mapping[str, str]) -> dict[str, str | None]:
    graded = parts(catalog, exercise, seed, answers)
    assert all(r["status"] == "incorrect" for r in graded.values()), graded
    return {p: r["misconception"] for p, r in graded.items()}


def figures(value: float) -> str:
    return f"{value:#.6g}"


def vector(values: np.ndarray) -> str:
    return "[" + "; ".join(f"{v:.5f}" for v in values) + "]"


# gqa-kv-cache ------------------------------------------------------------------------------------------


def kv_cache(p: Mapping[str, Any], kv_heads: int | None = None, tensors: int = 2,
             unit: int | None = None) -> Answers:  # fmt: skip
    """The cache per token and per context with GQA and with every head, and the W_K/W_V parameters saved."""
    heads = p["h_kv"] if kv_heads is None else kv_heads
    size = p["bits"] // 8 if unit is None else unit
    per_token = tensors * p["L"] * heads * p["d_h"] * size
    full_per_token = tensors * p["L"] * p["d"] * size
    saved = tensors * p["d"] * (p["d"] - p["h_kv"] * p["d_h"])
    return {"per_token": str(per_token), "cache_gib": figures(per_token * p["ctx"] / 2**30),
            "full_gib": figures(full_per_token * p["ctx"] / 2**30), "saved": str(saved)}  # fmt: skip


def test_gqa_kv_cache_page_numbers(catalog: Catalog) -> None:
    quantities = catalog.variant("gqa-kv-cache", 0).quantities
    assert (quantities["per_token"], quantities["cache_bytes"], quantities["saved"]) == (131_072, 2**30, 25_165_824)
    assert (quantities["cache_gib"], quantities["full_gib"]) == (1, 4)
    typed = {"per_token": "131,072", "cache_gib": "1.00", "full_gib": "4.00", "saved": "25,165,824"}
    assert statuses(catalog, "gqa-kv-cache", 0, typed) == dict.fromkeys(typed, "correct")


@pytest.mark.parametrize("seed", SEEDS)
def test_gqa_kv_cache_agrees_with_numpy(catalog: Catalog, seed: int) -> None:
    answers = kv_cache(catalog.variant("gqa-kv-cache", seed).params)
    assert statuses(catalog, "gqa-kv-cache", seed, answers) == dict.fromkeys(answers, "correct")


@pytest.mark.parametrize("seed", range(0, 20))
def test_gqa_kv_cache_mistakes_are_named(catalog: Catalog, seed: int) -> None:
    p = catalog.variant("gqa-kv-cache", seed).params
    all_heads = kv_cache(p, kv_heads=p["d"] // p["d_h"])
    one_tensor = kv_cache(p, tensors=1)
    bits = kv_cache(p, unit=p["bits"])
    cache = ("per_token", "cache_gib")
    assert named(catalog, "gqa-kv-cache", seed, {k: all_heads[k] for k in cache}) == dict.fromkeys(
        cache, "kv-cache-all-heads")
    assert named(catalog, "gqa-kv-cache", seed, one_tensor) == dict.fromkeys(one_tensor, "kv-cache-one-tensor")
    sized = ("per_token", "cache_gib", "full_gib")
    assert named(catalog, "gqa-kv-cache", seed, {k: bits[k] for k in sized}) == dict.fromkeys(sized, "bits-for-bytes")


# swiglu-why --------------------------------------------------------------------------------------------


def swiglu_width(d: int, exact: float | None = None, rounding: Callable[[float], int] = round) -> Answers:
    """8d/3 (or `exact`), its multiple of 256 by `rounding`, and the three matrices' parameters."""
    f_exact = 8 * d / 3 if exact is None else exact
    f = int(rounding(f_exact / 256)) * 256
    return {"f_exact": f"{f_exact:.4f}", "f": str(f), "swiglu": str(3 * d * f)}


def test_swiglu_why_page_numbers(catalog: Catalog) -> None:
    quantities = catalog.variant("swiglu-why", 0).quantities
    assert (quantities["classic"], quantities["f"], quantities["swiglu"]) == (134_217_728, 11_008, 135_266_304)
    typed = {"f_exact": "10922.67", "f": "11008", "swiglu": "135,266,304"}
    assert statuses(catalog, "swiglu-why", 0, typed) == dict.fromkeys(typed, "correct")


@pytest.mark.parametrize("seed", SEEDS)
def test_swiglu_why_agrees_with_numpy(catalog: Catalog, seed: int) -> None:
    answers = swiglu_width(catalog.variant("swiglu-why", seed).params["d"])
    assert statuses(catalog, "swiglu-why", seed, answers) == dict.fromkeys(answers, "correct")


@pytest.mark.parametrize("seed", range(0, 20))
def test_swiglu_why_mistakes_are_named(catalog: Catalog, seed: int) -> None:
    d = catalog.variant("swiglu-why", seed).params["d"]
    four_d = swiglu_width(d, exact=4 * d)
    assert named(catalog, "swiglu-why", seed, four_d) == dict.fromkeys(four_d, "ffn-4d")
    floor = swiglu_width(d, rounding=math.floor)
    del floor["f_exact"]  # rounding down happens after 8d/3, which stays right
    assert named(catalog, "swiglu-why", seed, floor) == dict.fromkeys(floor, "swiglu-floor")


# llama3-params -----------------------------------------------------------------------------------------


def llama(p: Mapping[str, Any], kv: int | None = None, gain: int | None = None, head: bool = True,
          layers: int | None = None) -> Answers:  # fmt: skip
    """One block, the embedding and output layer together, and the whole model, counted directly."""
    d, f = p["d"], 256 * p["f_units"]
    kv_width = p["n_kv_head"] * (d // p["n_head"]) if kv is None else kv
    norm = d if gain is None else gain
    block = 2 * d * d + 2 * d * kv_width + 3 * d * f + 2 * norm
    ends = p["V"] * d * (2 if head else 1)
    total = (p["L"] if layers is None else layers) * block + ends + norm
    return {"block": str(block), "ends": str(ends), "total": str(total)}


def test_llama3_params_page_numbers_are_llama_3_8b(catalog: Catalog) -> None:
    quantities = catalog.variant("llama3-params", 0).quantities
    assert (quantities["f"], quantities["block"], quantities["total"]) == (14_336, 218_112_000, 8_030_261_248)
    typed = {"block": "218,112,000", "ends": "1,050,673,152", "total": "8,030,261,248"}
    assert statuses(catalog, "llama3-params", 0, typed) == dict.fromkeys(typed, "correct")


@pytest.mark.parametrize("seed", SEEDS)
def test_llama3_params_agree_with_numpy(catalog: Catalog, seed: int) -> None:
    answers = llama(catalog.variant("llama3-params", seed).params)
    assert statuses(catalog, "llama3-params", seed, answers) == dict.fromkeys(answers, "correct")


@pytest.mark.parametrize("seed", range(0, 20))
def test_llama3_params_mistakes_are_named(catalog: Catalog, seed: int) -> None:
    p = catalog.variant("llama3-params", seed).params
    full_kv, no_gain = llama(p, kv=p["d"]), llama(p, gain=0)
    tied, one_layer = llama(p, head=False), llama(p, layers=1)
    check = "llama3-params"
    assert named(catalog, check, seed, {k: full_kv[k] for k in ("block", "total")}) == {
        "block": "full-kv-heads", "total": "full-kv-heads"}
    assert named(catalog, check, seed, {k: no_gain[k] for k in ("block", "total")}) == {
        "block": "norm-without-gain", "total": "norm-without-gain"}
    assert named(catalog, check, seed, {k: tied[k] for k in ("ends", "total")}) == {
        "ends": "tied-embeddings", "total": "tied-embeddings"}
    assert named(catalog, check, seed, {"total": one_layer["total"]}) == {"total": "forget-layers"}


# swiglu-by-hand ----------------------------------------------------------------------------------------


def silu(z: np.ndarray) -> np.ndarray:
    return z / (1 + np.exp(-z))


def swiglu(p: Mapping[str, Any], gate_fn: Callable[[np.ndarray], np.ndarray] = silu, swapped: bool = False) -> Answers:
    """The gate, h and y of SwiGLU for these weights; `swapped` puts the SiLU on the value branch."""
    x, w1, w3, w2 = (np.asarray(p[k], dtype=float) for k in ("x", "W1", "W3", "W2"))
    gate_in, value = (x @ w3, x @ w1) if swapped else (x @ w1, x @ w3)
    gate = gate_fn(gate_in)
    h = gate * value
    shut = [str(i + 1) for i in range(2) if abs(gate[i]) < 0.1]
    return {"gate": vector(gate), "h": vector(h), "y": vector(h @ w2), "shut": "{" + ", ".join(shut) + "}"}


def test_swiglu_by_hand_page_numbers(catalog: Catalog) -> None:
    # The page's weights: x = [1, 2] gives gate inputs [2, -4], so the second channel is nearly shut.
    typed = {"gate": "[1.762; -0.072]", "h": "[5.285; -0.252]", "y": "[5.159; -5.537]", "shut": "2"}
    assert statuses(catalog, "swiglu-by-hand", 0, typed) == dict.fromkeys(typed, "correct")
    assert swiglu(catalog.variant("swiglu-by-hand", 0).params)["shut"] == "{2}"


@pytest.mark.parametrize("seed", SEEDS)
def test_swiglu_by_hand_agrees_with_numpy(catalog: Catalog, seed: int) -> None:
    answers = swiglu(catalog.variant("swiglu-by-hand", seed).params)
    assert statuses(catalog, "swiglu-by-hand", seed, answers) == dict.fromkeys(answers, "correct")


@pytest.mark.parametrize("seed", range(0, 20))
def test_swiglu_by_hand_mistakes_are_named(catalog: Catalog, seed: int) -> None:
    p = catalog.variant("swiglu-by-hand", seed).params
    numeric = ("gate", "h", "y")
    relu = swiglu(p, gate_fn=lambda z: np.maximum(z, 0))
    swapped = swiglu(p, swapped=True)
    assert named(catalog, "swiglu-by-hand", seed, {k: relu[k] for k in numeric}) == dict.fromkeys(numeric, "relu-gate")
    assert named(catalog, "swiglu-by-hand", seed, {k: swapped[k] for k in numeric}) == dict.fromkeys(
        numeric, "gate-on-value")
