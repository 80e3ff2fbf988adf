"""Tests for the modern block reference (and the shared softmax / causal mask helpers)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.reference.common import causal_mask, softmax
from grader.reference.modern import (
    ModernConfig,
    gqa_attention,
    init_modern_weights,
    modern_block,
    param_counts,
    rms_norm,
    silu,
    stage_shapes,
    swiglu_ffn,
    swiglu_width,
)

LLAMA2_7B = ModernConfig(d=4096, n_head=32, n_kv_head=8, n_layer=32)
SEED_CFG = ModernConfig(d=8, n_head=2, n_kv_head=1)


def _naive_attention(x, w, cfg, *, causal=True, divisor=None):
    """Loop-per-head attention, written independently of the reference's reshapes."""
    n, d_h = x.shape[0], cfg.head_dim
    divisor = math.sqrt(d_h) if divisor is None else divisor
    q, k, v = x @ w["wq"], x @ w["wk"], x @ w["wv"]
    group = cfg.n_head // cfg.n_kv_head
    heads = []
    for j in range(cfg.n_head):
        g = j // group
        qj = q[:, j * d_h:(j + 1) * d_h]
        kj, vj = k[:, g * d_h:(g + 1) * d_h], v[:, g * d_h:(g + 1) * d_h]
        s = qj @ kj.T / divisor
        if causal:
            s[np.triu_indices(n, 1)] = -np.inf
        p = np.exp(s - s.max(axis=1, keepdims=True))
        heads.append(p / p.sum(axis=1, keepdims=True) @ vj)
    return np.concatenate(heads, axis=1) @ w["wo"]


# --- shared helpers ---------------------------------------------------------------


def test_softmax_rows_sum_to_one_and_survive_huge_scores():
    s = np.array([[1000.0, 1001.0, 999.0], [-5.0, 0.0, 5.0]])
    p = softmax(s)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(p.sum(axis=-1), 1.0)
    np.testing.assert_allclose(p[0], softmax(np.array([1.0, 2.0, 0.0])))


def test_softmax_of_masked_entries_is_exactly_zero():
    p = softmax(np.array([0.3, -np.inf, 1.2]))
    assert p[1] == 0.0
    np.testing.assert_allclose(p.sum(), 1.0)


def test_causal_mask_is_zero_on_and_below_diagonal_and_minus_inf_above():
    m = causal_mask(3)
    assert m.shape == (3, 3)
    assert np.all(m[np.tril_indices(3)] == 0.0)
    assert np.all(m[np.triu_indices(3, 1)] == -np.inf)


# --- RMSNorm, SiLU, SwiGLU -----------------------------------------------------------


def test_rms_norm_makes_rows_unit_rms_then_applies_gain():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 6)) * 7.0
    u = rms_norm(x, eps=0.0)
    np.testing.assert_allclose(np.sqrt(np.mean(u**2, axis=-1)), 1.0)
    g = rng.normal(size=6)
    np.testing.assert_allclose(rms_norm(x, g, eps=0.0), u * g)


def test_rms_norm_does_not_subtract_the_mean():
    x = np.array([[1.0, 2.0, 3.0]])
    expected = x / np.sqrt(14.0 / 3.0 + 1e-6)
    np.testing.assert_allclose(rms_norm(x), expected)


def test_silu_values():
    np.testing.assert_allclose(silu(np.array([0.0, 1.0, -1.0])),
                               [0.0, 1 / (1 + math.exp(-1)), -1 / (1 + math.exp(1))])
    assert np.isfinite(silu(np.array([-1000.0, 1000.0]))).all()


def test_swiglu_ffn_matches_gate_times_up_then_down():
    rng = np.random.default_rng(1)
    x, w1, w3, w2 = (rng.normal(size=s) for s in [(3, 4), (4, 5), (4, 5), (5, 4)])
    gate = x @ w1
    expected = (gate / (1 + np.exp(-gate)) * (x @ w3)) @ w2
    np.testing.assert_allclose(swiglu_ffn(x, w1, w3, w2), expected)


def test_swiglu_width_of_4096_is_11008():
    assert swiglu_width(4096) == 11008


def test_swiglu_width_of_8_is_21():
    assert swiglu_width(8) == 21


@given(st.integers(min_value=256, max_value=20000))
def test_swiglu_width_is_nearest_multiple_of_256_for_large_d(d):
    f = swiglu_width(d)
    assert f % 256 == 0
    assert abs(f - 8 * d / 3) <= 128


# --- config -------------------------------------------------------------------------


def test_config_head_dim_and_default_ffn_width():
    assert SEED_CFG.head_dim == 4 and SEED_CFG.f == 21
    assert ModernConfig(d=4096, n_head=32, n_kv_head=8, ffn_width=14336).f == 14336


@pytest.mark.parametrize("d,h,h_kv", [(10, 3, 1), (8, 4, 3), (8, 2, 4)])
def test_config_rejects_indivisible_heads(d, h, h_kv):
    with pytest.raises(ValueError):
        ModernConfig(d=d, n_head=h, n_kv_head=h_kv)


# --- attention and the block ------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(8, 2, 1), (8, 2, 2), (12, 4, 2), (16, 4, 1)]),
       st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_gqa_attention_matches_a_per_head_loop(dims, n, seed):
    cfg = ModernConfig(d=dims[0], n_head=dims[1], n_kv_head=dims[2])
    rng = np.random.default_rng(seed)
    w = init_modern_weights(cfg, rng)
    x = rng.normal(size=(n, cfg.d))
    out = gqa_attention(x, w["wq"], w["wk"], w["wv"], w["wo"], cfg)["out"]
    np.testing.assert_allclose(out, _naive_attention(x, w, cfg), atol=1e-12)


def test_gqa_repeats_each_kv_head_for_its_group():
    cfg = ModernConfig(d=16, n_head=4, n_kv_head=2)
    rng = np.random.default_rng(2)
    w = init_modern_weights(cfg, rng)
    t = gqa_attention(rng.normal(size=(3, 16)), w["wq"], w["wk"], w["wv"], w["wo"], cfg)
    assert t["k"].shape == (2, 3, 4) and t["k_rep"].shape == (4, 3, 4)
    for j, g in enumerate([0, 0, 1, 1]):
        np.testing.assert_array_equal(t["k_rep"][j], t["k"][g])
        np.testing.assert_array_equal(t["v_rep"][j], t["v"][g])


def test_causal_attention_ignores_future_tokens():
    rng = np.random.default_rng(3)
    w = init_modern_weights(SEED_CFG, rng)
    x = rng.normal(size=(5, 8))
    x2 = x.copy()
    x2[3:] += 10.0
    t1 = gqa_attention(x, w["wq"], w["wk"], w["wv"], w["wo"], SEED_CFG)
    t2 = gqa_attention(x2, w["wq"], w["wk"], w["wv"], w["wo"], SEED_CFG)
    np.testing.assert_allclose(t1["out"][:3], t2["out"][:3])
    assert np.all(t1["weights"][:, np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] == 0)


def test_non_causal_and_dh_scale_variants():
    rng = np.random.default_rng(4)
    w = init_modern_weights(SEED_CFG, rng)
    x = rng.normal(size=(5, 8))
    args = (x, w["wq"], w["wk"], w["wv"], w["wo"], SEED_CFG)
    full = gqa_attention(*args, causal=False)
    assert np.all(full["weights"] > 0)
    np.testing.assert_allclose(full["out"], _naive_attention(x, w, SEED_CFG, causal=False))
    dh = gqa_attention(*args, scale="dh")
    np.testing.assert_allclose(dh["out"], _naive_attention(x, w, SEED_CFG, divisor=4.0))
    np.testing.assert_allclose(dh["scores"] * 4.0, gqa_attention(*args)["scores"] * 2.0)
    with pytest.raises(ValueError):
        gqa_attention(*args, scale="none")


def test_modern_block_stages_compose():
    rng = np.random.default_rng(5)
    w = init_modern_weights(SEED_CFG, rng)
    w["norm1"] = rng.normal(size=8)
    w["norm2"] = rng.normal(size=8)
    x = rng.normal(size=(5, 8))
    t = modern_block(x, w, SEED_CFG)
    u = rms_norm(x, w["norm1"])
    np.testing.assert_allclose(t["attn_out"], _naive_attention(u, w, SEED_CFG), atol=1e-12)
    np.testing.assert_allclose(t["h"], x + t["attn_out"])
    np.testing.assert_allclose(t["u2"], rms_norm(t["h"], w["norm2"]))
    np.testing.assert_allclose(t["hidden"], silu(t["u2"] @ w["w1"]) * (t["u2"] @ w["w3"]))
    np.testing.assert_allclose(t["ffn_out"], swiglu_ffn(t["u2"], w["w1"], w["w3"], w["w2"]))
    np.testing.assert_allclose(t["y"], t["h"] + t["ffn_out"])


def test_seed_example_stage_shapes():
    s = stage_shapes(5, SEED_CFG)
    assert s["q"] == (2, 5, 4) and s["kv"] == (2, 5, 4) and s["kv_cache"] == (1, 5, 4)
    assert s["scores"] == (2, 5, 5) and s["hidden"] == (5, 21) and s["out"] == (5, 8)


@pytest.mark.parametrize("d,h,h_kv,n", [(8, 2, 1, 5), (16, 4, 2, 3), (24, 6, 3, 7), (8, 2, 2, 1)])
def test_stage_shapes_match_modern_block(d, h, h_kv, n):
    cfg = ModernConfig(d=d, n_head=h, n_kv_head=h_kv)
    rng = np.random.default_rng(d + n)
    t = modern_block(rng.normal(size=(n, d)), init_modern_weights(cfg, rng), cfg)
    s = stage_shapes(n, cfg)
    assert t["x"].shape == s["x"] and t["q"].shape == s["q"]
    assert t["k_rep"].shape == t["v_rep"].shape == s["kv"]
    assert t["k"].shape == t["v"].shape == s["kv_cache"]
    assert t["scores"].shape == s["scores"] and t["hidden"].shape == s["hidden"]
    assert t["y"].shape == s["out"]


# --- parameter counts -------------------------------------------------------------


def test_llama2_7b_block_counts_are_pinned():
    c = param_counts(LLAMA2_7B)
    assert c.attention == 41_943_040 and f"{c.attention / 1e6:.1f}" == "41.9"
    assert c.ffn == 135_266_304 and f"{c.ffn / 1e6:.1f}" == "135.3"
    assert c.norm == 8192 and f"{c.norm / 1e6:.1f}" == "0.0" and round(100 * c.norm / c.block) == 0
    assert c.block == 177_217_536 and f"{c.block / 1e6:.1f}" == "177.2"
    assert c.blocks == 5_670_961_152 and f"{c.blocks / 1e9:.2f}" == "5.67"


def test_llama2_7b_attention_and_ffn_shares_are_24_and_76_percent():
    c = param_counts(LLAMA2_7B)
    assert round(100 * c.attention / c.block) == 24
    assert round(100 * c.ffn / c.block) == 76


def test_full_kv_mistake_gives_four_d_squared_attention():
    c = param_counts(ModernConfig(d=4096, n_head=32, n_kv_head=32))
    assert c.attention == 4 * 4096**2 == 67_108_864


def test_llama2_7b_widths_with_the_128k_vocabulary_come_near_7b_and_llama3_width_closes_8b():
    # The page: 32 blocks give 5.7B, the embedding and output layer about 1B more, "near 7B".
    near = param_counts(ModernConfig(d=4096, n_head=32, n_kv_head=8, n_layer=32, vocab=128256))
    assert near.total == 6_721_638_400 and f"{near.total / 1e9:.1f}" == "6.7"
    wider = param_counts(ModernConfig(d=4096, n_head=32, n_kv_head=8, n_layer=32, vocab=128256, ffn_width=14336))
    assert wider.total == 8_030_261_248


def test_llama3_ffn_width_override_flows_into_counts():
    cfg = ModernConfig(d=4096, n_head=32, n_kv_head=8, n_layer=32, vocab=128256,
                       ffn_width=14336)
    c = param_counts(cfg)
    assert c.ffn == 3 * 4096 * 14336
    assert c.embeddings + c.head == 2 * 128256 * 4096
    assert f"{(c.embeddings + c.head) / 1e9:.2f}" == "1.05"
    assert c.total == c.blocks + c.embeddings + c.head + 4096


def test_tied_head_drops_the_head_matrix():
    cfg = ModernConfig(d=64, n_head=4, n_kv_head=2, n_layer=2, vocab=100)
    untied, tied = param_counts(cfg), param_counts(cfg, tied_head=True)
    assert tied.head == 0 and untied.head == 100 * 64
    assert untied.total - tied.total == 100 * 64


def test_bias_mistake_adds_a_bias_per_linear_and_a_beta_per_norm():
    c0 = param_counts(LLAMA2_7B)
    c1 = param_counts(LLAMA2_7B, biases=True)
    assert c1.attention - c0.attention == 4096 + 2 * 1024 + 4096
    assert c1.ffn - c0.ffn == 2 * 11008 + 4096
    assert c1.norm - c0.norm == 2 * 4096
    assert c1.blocks == 32 * c1.block


@pytest.mark.parametrize("d,h,h_kv", [(8, 2, 1), (16, 4, 2), (32, 8, 8)])
def test_param_counts_block_equals_size_of_initialised_weights(d, h, h_kv):
    cfg = ModernConfig(d=d, n_head=h, n_kv_head=h_kv)
    w = init_modern_weights(cfg, np.random.default_rng(0))
    assert sum(a.size for a in w.values()) == param_counts(cfg).block
