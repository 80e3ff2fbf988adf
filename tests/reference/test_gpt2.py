"""The GPT-2 block reference: LayerNorm, GELU, causal attention and the pre-LN block."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from grader.reference.gpt2 import (
    CORRECT,
    causal_attention,
    gelu_erf,
    gelu_tanh,
    gpt2_block,
    init_gpt2_weights,
    layer_norm,
    merge_heads,
    split_heads,
)


def test_layer_norm_rows_have_zero_mean_and_unit_population_variance() -> None:
    x = np.random.default_rng(1).normal(size=(5, 8)) * 3 + 2
    u = layer_norm(x)
    assert np.allclose(u.mean(axis=-1), 0.0, atol=1e-12)
    assert np.allclose(u.var(axis=-1), 1.0, atol=1e-4)  # eps keeps it just under 1


def test_layer_norm_uses_eps_so_a_constant_row_maps_to_zeros() -> None:
    assert np.array_equal(layer_norm(np.full((1, 4), 7.0)), np.zeros((1, 4)))


def test_layer_norm_applies_gamma_and_beta() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    gamma, beta = np.array([2.0, 2.0, 2.0, 2.0]), np.array([1.0, 0.0, 0.0, 0.0])
    assert np.allclose(layer_norm(x, gamma, beta), 2 * layer_norm(x) + beta)


def test_sample_variance_option_divides_by_n_minus_one() -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    wrong = layer_norm(x, opts=replace(CORRECT, ddof=1))
    assert np.allclose(wrong, (x - 2.5) / np.sqrt(x.var(ddof=1) + 1e-5))


def test_gelu_tanh_and_erf_agree_to_three_decimals_but_differ() -> None:
    z = np.linspace(-4, 4, 81)
    assert np.max(np.abs(gelu_tanh(z) - gelu_erf(z))) < 1e-3
    assert np.max(np.abs(gelu_tanh(z) - gelu_erf(z))) > 1e-5


@pytest.mark.parametrize("z, expected", [(0.0, 0.0), (1.0, 0.841192), (-1.0, -0.158808), (3.0, 2.996363)])
def test_gelu_tanh_known_values(z: float, expected: float) -> None:
    assert gelu_tanh(np.array(z)) == pytest.approx(expected, abs=1e-6)


def test_causal_attention_ignores_future_tokens() -> None:
    rng = np.random.default_rng(2)
    q, k, v = (rng.normal(size=(2, 5, 4)) for _ in range(3))
    out = causal_attention(q, k, v)
    k2, v2 = k.copy(), v.copy()
    k2[:, 3:], v2[:, 3:] = 9.0, -9.0
    assert np.allclose(causal_attention(q, k2, v2)[:, :3], out[:, :3])
    assert not np.allclose(causal_attention(q, k2, v2)[:, 3:], out[:, 3:])


def test_first_token_attends_only_to_itself() -> None:
    rng = np.random.default_rng(3)
    q, k, v = (rng.normal(size=(3, 4, 2)) for _ in range(3))
    assert np.allclose(causal_attention(q, k, v)[:, 0], v[:, 0])


def test_split_and_merge_heads_round_trip() -> None:
    t = np.arange(5 * 8, dtype=float).reshape(5, 8)
    assert split_heads(t, 2).shape == (2, 5, 4)
    assert np.array_equal(merge_heads(split_heads(t, 2)), t)


def test_block_trace_names_every_intermediate_with_its_shape() -> None:
    n, d, heads = 5, 8, 2
    rng = np.random.default_rng(4)
    trace = gpt2_block(rng.normal(size=(n, d)), init_gpt2_weights(d, rng), heads)
    shapes = {name: np.shape(value) for name, value in trace.items()}
    assert shapes == {
        "x": (n, d), "u": (n, d), "q": (2, n, 4), "k": (2, n, 4), "v": (2, n, 4),
        "scores": (2, n, n), "weights": (2, n, n), "a": (n, d), "h": (n, d), "mu": (n,),
        "sigma": (n,), "u2": (n, d), "z": (n, 4 * d), "gelu": (n, 4 * d), "m": (n, d), "y": (n, d),
    }  # fmt: skip


def test_gpt2_small_mlp_widens_768_to_3072_and_back() -> None:
    weights = init_gpt2_weights(768, np.random.default_rng(0))
    assert (weights["w1"].shape, weights["w2"].shape) == ((768, 3072), (3072, 768))


def test_block_is_pre_ln_with_two_residuals() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 8))
    trace = gpt2_block(x, init_gpt2_weights(8, rng), 2)
    assert np.allclose(trace["h"], x + trace["a"])
    assert np.allclose(trace["y"], trace["h"] + trace["m"])
    assert np.allclose(trace["weights"].sum(axis=-1), 1.0)
    assert np.allclose(np.triu(trace["weights"], k=1), 0.0)


def test_block_with_mistakes_differs_from_the_correct_block() -> None:
    rng = np.random.default_rng(6)
    x, p = rng.normal(size=(4, 8)), init_gpt2_weights(8, rng)
    right = gpt2_block(x, p, 2)["y"]
    for mistake in (dict(causal=False), dict(scale="dh"), dict(activation="relu"), dict(mlp_residual=False)):
        assert not np.allclose(gpt2_block(x, p, 2, replace(CORRECT, **mistake))["y"], right), mistake
