"""The FFN-memory and microGPT lessons' formula exercises: seed 0 gives the lesson's numbers, every seed
agrees with plain numpy written here, and typed mistakes are named."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from grader.catalog.catalog import Catalog

SEEDS = range(1, 61)
Answers = dict[str, Any]


def expected(catalog: Catalog, exercise: str, seed: int) -> Answers:
    """What the catalogue accepts for each part of this variant."""
    return {part.spec.id: part.target.exact for part in catalog.variant(exercise, seed).parts}


def arrays(catalog: Catalog, exercise: str, seed: int) -> dict[str, Any]:
    """The variant's parameters as float arrays (scalars stay numbers)."""
    params = catalog.variant(exercise, seed).params
    return {k: np.asarray(v, dtype=float) if np.ndim(v) else v for k, v in params.items()}


def ffn_threshold(x: np.ndarray, W1: np.ndarray, b1: np.ndarray, W2: np.ndarray, bias: bool = True,
                  residual: bool = True) -> Answers:  # fmt: skip
    h = np.maximum(0.0, x @ W1 + (b1 if bias else 0.0))
    out = h @ W2
    return {"active": {i + 1 for i in range(len(h)) if h[i] > 0}, "y": x + out if residual else out}


def ffn_design_edit(K: np.ndarray, V: np.ndarray, p: np.ndarray, j: int, target: np.ndarray,
                    X: np.ndarray, others: bool = True) -> Answers:  # fmt: skip
    weights = np.maximum(0.0, K @ p)
    rest = sum(weights[i] * V[i] for i in range(4) if i != j - 1)
    new = (target - (rest if others else 0.0)) / weights[j - 1]
    return {"v_new": new, "changed": {t + 1 for t in range(len(X)) if X[t] @ K[j - 1] > 0}}


def microgpt_first_step(tok: np.ndarray, pos: np.ndarray, vocab: int, centred: bool = False,
                        log: Callable[[float], float] = math.log) -> Answers:  # fmt: skip
    x = tok + pos
    if centred:
        x = x - x.mean()
    r = math.sqrt(float(np.mean(x * x)) + 1e-5)
    return {"r": r, "xn": x / r, "loss": -log(1 / vocab)}


def cost_per_token(N_b: float, P: int, forward_per_weight: int = 2, backward: bool = True,
                   moments: int = 2) -> Answers:  # fmt: skip
    forward = forward_per_weight * N_b * 1e9 / 1e9
    return {"fwd": forward, "train": forward * (3 if backward else 1), "adam": (1 + moments) * P}


def independent(exercise: str, params: dict[str, Any], **mistake: Any) -> Answers:
    """The answers computed here from the variant's parameters, with no formula of the catalogue."""
    if exercise == "ffn-threshold":
        return ffn_threshold(params["x"], params["W1"], params["b1"], params["W2"], **mistake)
    if exercise == "ffn-design-edit":
        args = [params[k] for k in ("K", "V", "p")] + [int(params["j"]), params["target"], params["X"]]
        return ffn_design_edit(*args, **mistake)
    if exercise == "microgpt-first-step":
        return microgpt_first_step(params["tok"], params["pos"], int(params["vocab"]), **mistake)
    return cost_per_token(float(params["N_b"]), int(params["P"]), **mistake)


def same(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, set):
        return set(int(i) for i in np.ravel(found)) == wanted
    return bool(np.allclose(np.asarray(found, dtype=float), np.asarray(wanted, dtype=float), rtol=1e-9, atol=1e-9))


def typed(value: Any) -> str:
    if isinstance(value, set):
        return "{" + ", ".join(str(i) for i in sorted(value)) + "}"
    if np.ndim(value):
        return "[" + "; ".join(f"{v:.4f}" for v in np.ravel(value)) + "]"
    return f"{value:.6g}"


def named(catalog: Catalog, exercise: str, seed: int, answers: Answers) -> dict[str, str | None]:
    """Each typed part's named mistake; every typed answer must be marked wrong."""
    parts = catalog.check(exercise, seed, {p: typed(v) for p, v in answers.items()}).to_json()["parts"]
    assert all(parts[p]["status"] == "incorrect" for p in answers), parts
    return {p: parts[p]["misconception"] for p in answers}


EXERCISES = ["ffn-threshold", "ffn-design-edit", "microgpt-first-step", "cost-per-token"]


def test_ffn_threshold_at_seed_0_is_the_worked_example(catalog: Catalog) -> None:
    # x = [1, 2, -1]: scores [1, 1, -1, 3], with the bias [-1, 2, 1, 2], so keys 2, 3 and 4 fire.
    answers = expected(catalog, "ffn-threshold", 0)
    assert set(answers["active"]) == {2, 3, 4}
    assert np.allclose(answers["y"], [2, 4, 1])


def test_ffn_design_edit_at_seed_0_is_the_worked_example(catalog: Catalog) -> None:
    # p fires key 1 with weight 2 and key 4 with weight 1: v1 = (target - v4) / 2.
    answers = expected(catalog, "ffn-design-edit", 0)
    assert np.allclose(answers["v_new"], [0.5, -1.5, -2.0])
    assert set(answers["changed"]) == {2, 3}


def test_microgpt_first_step_at_seed_0_gives_ln_27(catalog: Catalog) -> None:
    answers = expected(catalog, "microgpt-first-step", 0)
    assert round(answers["loss"], 3) == 3.296  # the lesson's ln 27
    assert round(answers["r"], 4) == 0.1225
    assert np.sqrt(np.mean(np.asarray(answers["xn"]) ** 2)) == pytest.approx(1.0, abs=1e-3)


def test_cost_per_token_at_seed_0_gives_the_lesson_figures(catalog: Catalog) -> None:
    answers = expected(catalog, "cost-per-token", 0)
    assert round(answers["fwd"], 1) == 11.3  # 2N for N = 5.67 B, in GFLOP
    assert answers["train"] == pytest.approx(34.02)  # 6N
    assert answers["adam"] == 3 * 4192


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_seed_agrees_with_plain_numpy(catalog: Catalog, exercise: str) -> None:
    for seed in SEEDS:
        answers = expected(catalog, exercise, seed)
        mine = independent(exercise, arrays(catalog, exercise, seed))
        assert set(answers) == set(mine)
        for part, value in mine.items():
            assert same(answers[part], value), (seed, part, answers[part], value)


@pytest.mark.parametrize("exercise", EXERCISES)
def test_correct_answers_typed_at_four_decimals_are_accepted(catalog: Catalog, exercise: str) -> None:
    for seed in (0, 7, 19):
        answers = independent(exercise, arrays(catalog, exercise, seed))
        typed_answers = {p: typed(v) for p, v in answers.items()}
        parts = catalog.check(exercise, seed, typed_answers).to_json()["parts"]
        assert all(parts[p]["status"] == "correct" for p in answers), parts


MISTAKES = [
    ("ffn-threshold", {"bias": False}, {"active": "bias-ignored", "y": "bias-ignored"}),
    ("ffn-threshold", {"residual": False}, {"y": "no-residual"}),
    ("ffn-design-edit", {"others": False}, {"v_new": "forgot-other-keys"}),
    ("microgpt-first-step", {"centred": True}, {"xn": "layernorm-for-rmsnorm"}),
    ("microgpt-first-step", {"log": math.log10}, {"loss": "log-base-10"}),
    ("cost-per-token", {"forward_per_weight": 1}, {"fwd": "flops-n-not-2n", "train": "flops-n-not-2n"}),
    ("cost-per-token", {"backward": False}, {"train": "training-forward-only"}),
    ("cost-per-token", {"moments": 1}, {"adam": "adam-no-second-moment"}),
]


@pytest.mark.parametrize("exercise, mistake, names", MISTAKES, ids=[str(m[1]) for m in MISTAKES])
def test_a_typed_mistake_is_named(catalog: Catalog, exercise: str, mistake: dict[str, Any],
                                  names: dict[str, str]) -> None:  # fmt: skip
    for seed in (0, 3, 11, 42):
        wrong = independent(exercise, arrays(catalog, exercise, seed), **mistake)
        assert named(catalog, exercise, seed, {p: wrong[p] for p in names}) == names


def test_the_edit_read_as_a_new_key_is_named(catalog: Catalog) -> None:
    # Rewriting key j as p changes every input whose weight on key j moves: relu(x·p) ≠ relu(x·k_j).
    for seed in (0, 3, 11, 42):
        params = arrays(catalog, "ffn-design-edit", seed)
        kj, X, p = params["K"][int(params["j"]) - 1], params["X"], params["p"]
        moved = {t + 1 for t in range(3) if max(0.0, X[t] @ p) != max(0.0, X[t] @ kj)}
        assert named(catalog, "ffn-design-edit", seed, {"changed": moved}) == {"changed": "edited-key"}


@pytest.mark.parametrize("exercise, part", [("ffn-threshold", "active"), ("ffn-design-edit", "changed")])
def test_sets_numbered_from_0_are_named(catalog: Catalog, exercise: str, part: str) -> None:
    right = independent(exercise, arrays(catalog, exercise, 5))[part]
    assert named(catalog, exercise, 5, {part: {i - 1 for i in right}}) == {part: "zero-based"}
