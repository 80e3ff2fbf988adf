"""Common wrong answers, worked out here independently of the catalogue, are named as their mistake."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from grader.catalog.catalog import Catalog

# The block lesson's token 5: x5, and h5 = x5 + a5 and m5 at full precision.
X5 = np.array([-0.5, -0.5, -0.5, 1.5])
H5 = np.array([-1.239, 0.911, -1.021, 0.980])
M5 = np.array([0.80329, 0.64105, 0.55969, 0.71841])


def named(catalog: Catalog, exercise: str, seed: int, **answers: str) -> dict[str, str | None]:
    """Each answered part's named mistake (None when it is generic, or correct)."""
    parts = catalog.check(exercise, seed, answers).to_json()["parts"]
    assert all(parts[p]["status"] == "incorrect" for p in answers), parts
    return {p: parts[p]["misconception"] for p in answers}


def typed(values: np.ndarray) -> str:
    return "[" + "; ".join(f"{v:.3f}" for v in values) + "]"


def gelu_without_half(z: float) -> float:
    return z * (1 + math.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))


def test_the_variance_given_for_sigma(catalog: Catalog) -> None:
    assert named(catalog, "block-layernorm", 0, sigma=f"{np.var(H5):.3f}") == {"sigma": "variance-not-sigma"}


def test_gelu_without_its_half(catalog: Catalog) -> None:
    z = 1.10169  # |u'5[0]| unrounded
    answers = {"neg": f"{gelu_without_half(-z):.3f}", "pos": f"{gelu_without_half(z):.3f}"}
    assert named(catalog, "block-gelu", 0, **answers) == {"neg": "gelu-no-half", "pos": "gelu-no-half"}


def test_the_second_residual_added_to_x(catalog: Catalog) -> None:
    assert named(catalog, "block-output", 0, y=typed(X5 + M5)) == {"y": "residual-from-x"}


def test_swiglu_counted_with_two_ffn_matrices(catalog: Catalog) -> None:
    d, f, layers = 4096, 11008, 32  # the page's Llama 2 7B
    attention, norms = 2 * d * d + 2 * d * (d // 4), 2 * d
    answers = {"ffn": f"{2 * d * f}", "block": f"{attention + 2 * d * f + norms}",
               "model": f"{layers * (attention + 2 * d * f + norms)}"}  # fmt: skip
    assert named(catalog, "modern-params", 0, **answers) == dict.fromkeys(answers, "two-matrix-ffn")


def test_scores_without_the_head_axis(catalog: Catalog) -> None:
    assert named(catalog, "modern-shapes", 0, scores="(5, 5)") == {"scores": "scores-without-heads"}


def test_a_gpt2_style_final_norm_counted_in_microgpt(catalog: Catalog) -> None:
    # One layer: the initial norm, two per layer, and a final one microGPT does not have.
    assert named(catalog, "microgpt-stations", 0, norms="4") == {"norms": "extra-final-norm"}


def test_lm_head_taken_as_tied_to_the_embedding(catalog: Catalog) -> None:
    assert named(catalog, "microgpt-params", 0, lm_head="0") == {"lm_head": "tied-head"}


def test_ffn_edit_read_with_every_firing_value_at_full_strength(catalog: Catalog) -> None:
    params = catalog.variant("ffn-edit", 0).params  # the page gives no numbers: they are drawn
    keys, values = np.asarray(params["keys"], dtype=float), np.asarray(params["values"], dtype=float)
    values[int(params["edited"]) - 1] = params["new_value"]
    probe = np.asarray(params["inputs"], dtype=float)[int(params["probe"]) - 1]
    unweighted = (keys @ probe > 0).astype(float) @ values
    assert named(catalog, "ffn-edit", 0, out=typed(unweighted)) == {"out": "unweighted-values"}


@pytest.mark.parametrize("layers, expected", [(2, None), (4, "one-ffn-matrix")])
def test_one_ffn_matrix_is_named_only_where_forgetting_layers_gives_another_number(
        catalog: Catalog, layers: int, expected: str | None) -> None:
    seed = next(s for s in range(1, 200) if int(catalog.variant("microgpt-params", s).params["n_layer"]) == layers)
    width = int(catalog.variant("microgpt-params", seed).params["n_embd"])
    # With two layers, one FFN matrix (4e² per layer) is exactly one layer's two: either mistake.
    assert named(catalog, "microgpt-params", seed, mlp=f"{4 * width * width * layers}") == {"mlp": expected}


def gelu(z: np.ndarray) -> np.ndarray:
    return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))


def test_the_attention_output_subtracted_in_the_residual(catalog: Catalog) -> None:
    a5 = np.array([-0.739, 1.411, -0.521, -0.520])
    assert named(catalog, "block-residual", 0, h=typed(X5 - a5)) == {"h": "subtracted-residual"}


def test_the_mlp_fed_h_without_layernorm(catalog: Catalog) -> None:
    # The toy MLP is gelu(v) + gelu(-v) of whatever it reads: here h5 itself.
    assert named(catalog, "block-mlp", 0, m=typed(gelu(H5) + gelu(-H5))) == {"m": "no-norm-before-mlp"}


def test_the_output_projection_left_out_of_attention_counts(catalog: Catalog) -> None:
    d, kv = 4096, 4096 // 32 * 8  # Llama 2 7B's widths as the page gives them: 8 K/V heads of 128
    assert named(catalog, "modern-params", 0, attention=f"{d * d + 2 * d * kv}") == {"attention": "no-wo"}
    assert named(catalog, "microgpt-params", 0, attention=f"{3 * 16 * 16}") == {"attention": "no-wo"}


def test_queries_left_unsplit_into_heads_or_each_head_given_the_full_width(catalog: Catalog) -> None:
    # The page: n = 5 tokens, d = 8, two query heads (d_h = 4), one K/V head.
    assert named(catalog, "modern-shapes", 0, q="(5, 8)", kv="(5, 8)") == {"q": "heads-not-split", "kv": "heads-not-split"}
    assert named(catalog, "modern-shapes", 0, q="(2, 5, 8)", kv="(2, 5, 8)") == {"q": "head-size-d", "kv": "head-size-d"}


def test_the_firing_keys_written_instead_of_their_values(catalog: Catalog) -> None:
    params = catalog.variant("ffn-keys", 0).params  # drawn: the page gives no numbers
    keys, x = np.asarray(params["keys"], dtype=float), np.asarray(params["x"], dtype=float)
    assert named(catalog, "ffn-keys", 0, out=typed(np.maximum(keys @ x, 0) @ keys)) == {"out": "keys-as-values"}


@pytest.mark.parametrize("cut", [math.floor, round], ids=["cut", "rounded"])
def test_8d_over_3_as_a_whole_number_without_the_multiple_of_256(catalog: Catalog, cut: Callable[[float], int]) -> None:
    # d = 640: 8d/3 = 1706.67; int() gives 1706 and a calculator rounded gives 1707 (the answer is 1792).
    seed = next(s for s in range(300) if catalog.variant("swiglu-width", s).params["d"] == 640)
    assert named(catalog, "swiglu-width", seed, f=str(cut(8 * 640 / 3))) == {"f": "swiglu-unrounded"}
