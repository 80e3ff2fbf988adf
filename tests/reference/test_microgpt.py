"""Tests for the microGPT reference (one position at a time, with a KV cache)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.reference.microgpt import (
    MicroConfig,
    gpt,
    init_state_dict,
    linear,
    outside_share,
    param_table,
    rmsnorm,
    station_counts,
)

CFG = MicroConfig()


def _batched_logits(tokens, sd, cfg):
    """Whole sequence at once with a causal mask: rows are positions, weights transposed."""
    n, d_h = len(tokens), cfg.head_dim

    def norm(m):
        return m / np.sqrt(np.mean(m**2, axis=1, keepdims=True) + 1e-5)

    x = norm(sd["wte"][tokens] + sd["wpe"][np.arange(n)])
    mask = np.triu(np.full((n, n), -np.inf), 1)
    for li in range(cfg.n_layer):
        p = f"layer{li}."
        xn = norm(x)
        q, k, v = (xn @ sd[p + name].T for name in ("attn_wq", "attn_wk", "attn_wv"))
        heads = []
        for h in range(cfg.n_head):
            sl = slice(h * d_h, (h + 1) * d_h)
            s = q[:, sl] @ k[:, sl].T / np.sqrt(d_h) + mask
            w = np.exp(s - s.max(axis=1, keepdims=True))
            heads.append(w / w.sum(axis=1, keepdims=True) @ v[:, sl])
        x = x + np.concatenate(heads, axis=1) @ sd[p + "attn_wo"].T
        hidden = np.maximum(norm(x) @ sd[p + "mlp_fc1"].T, 0.0)
        x = x + hidden @ sd[p + "mlp_fc2"].T
    return x @ sd["lm_head"].T


def _run(tokens, sd, cfg, **kw):
    keys = [[] for _ in range(cfg.n_layer)]
    values = [[] for _ in range(cfg.n_layer)]
    logits = [gpt(t, i, keys, values, sd, cfg, **kw) for i, t in enumerate(tokens)]
    return np.stack(logits), keys, values


def test_linear_is_w_times_x_with_n_out_by_n_in_storage():
    w = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 0.5]])
    np.testing.assert_allclose(linear([1.0, 1.0, 2.0], w), [9.0, 0.0])


def test_rmsnorm_uses_eps_1e_5_and_no_weight():
    x = np.array([3.0, 4.0])
    np.testing.assert_allclose(rmsnorm(x), x / np.sqrt(12.5 + 1e-5))


def test_every_weight_starts_as_a_gaussian_with_standard_deviation_0_08():
    first = init_state_dict(MicroConfig(), np.random.default_rng(7))["wte"]
    np.testing.assert_allclose(first, 0.08 * np.random.default_rng(7).standard_normal((27, 16)))


def test_init_state_dict_keys_and_shapes():
    sd = init_state_dict(MicroConfig(n_layer=2), np.random.default_rng(0))
    assert sd["wte"].shape == (27, 16) and sd["wpe"].shape == (16, 16)
    assert sd["lm_head"].shape == (27, 16)
    for i in range(2):
        for name in ("attn_wq", "attn_wk", "attn_wv", "attn_wo"):
            assert sd[f"layer{i}.{name}"].shape == (16, 16)
        assert sd[f"layer{i}.mlp_fc1"].shape == (64, 16)
        assert sd[f"layer{i}.mlp_fc2"].shape == (16, 64)
    assert len(sd) == 3 + 2 * 6
    assert 0.06 < np.std(np.concatenate([a.ravel() for a in sd.values()])) < 0.10


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 16), st.integers(1, 2), st.integers(0, 2**32 - 1))
def test_kv_cache_position_by_position_equals_batched_causal_computation(n, n_layer, seed):
    cfg = MicroConfig(n_layer=n_layer)
    rng = np.random.default_rng(seed)
    sd = init_state_dict(cfg, rng, std=0.5)
    tokens = [int(t) for t in rng.integers(0, cfg.vocab, size=n)]
    logits, _, _ = _run(tokens, sd, cfg)
    np.testing.assert_allclose(logits, _batched_logits(tokens, sd, cfg), atol=1e-10)


def test_gpt_appends_one_key_and_value_per_layer_per_call():
    cfg = MicroConfig(n_layer=2)
    sd = init_state_dict(cfg, np.random.default_rng(1))
    logits, keys, values = _run([3, 1, 4, 1], sd, cfg)
    assert logits.shape == (4, 27)
    assert [len(k) for k in keys] == [4, 4] and [len(v) for v in values] == [4, 4]
    assert keys[0][0].shape == (16,)


def test_trace_records_named_intermediates_of_the_last_call():
    sd = init_state_dict(CFG, np.random.default_rng(2))
    keys, values, trace = [[]], [[]], {}
    gpt(5, 0, keys, values, sd, CFG)
    logits = gpt(7, 1, keys, values, sd, CFG, trace=trace)
    np.testing.assert_array_equal(trace["logits"], logits)
    np.testing.assert_allclose(trace["emb"], sd["wte"][7] + sd["wpe"][1])
    np.testing.assert_allclose(trace["x0"], rmsnorm(trace["emb"]))
    assert len(trace["attn_weights"]) == 4
    for w in trace["attn_weights"]:
        assert w.shape == (2,)
        np.testing.assert_allclose(w.sum(), 1.0)
    np.testing.assert_allclose(trace["h"], trace["x0"] + trace["attn_out"])
    np.testing.assert_array_equal(trace["act"], np.maximum(trace["fc1"], 0.0))
    np.testing.assert_allclose(trace["y"], trace["h"] + trace["fc2"])
    np.testing.assert_allclose(logits, sd["lm_head"] @ trace["y"])


def test_first_position_attends_only_to_itself():
    sd = init_state_dict(CFG, np.random.default_rng(3))
    trace = {}
    gpt(0, 0, [[]], [[]], sd, CFG, trace=trace)
    assert all(np.array_equal(w, [1.0]) for w in trace["attn_weights"])


@pytest.mark.parametrize("kw", [{"initial_norm": False}, {"activation": "gelu"},
                                {"scale": "dh"}])
def test_mutant_options_change_the_logits(kw):
    sd = init_state_dict(CFG, np.random.default_rng(4), std=0.5)
    tokens = [1, 2, 3, 4]
    base, _, _ = _run(tokens, sd, CFG)
    mutant, _, _ = _run(tokens, sd, CFG, **kw)
    assert not np.allclose(base, mutant)


def test_param_table_of_the_default_model_is_pinned():
    assert param_table(CFG) == {"wte": 432, "wpe": 256, "lm_head": 432,
                                "attention": 1024, "mlp": 2048, "total": 4192}


def test_outside_share_is_1120_over_4192():
    assert outside_share(CFG) == Fraction(1120, 4192)


@pytest.mark.parametrize("n_layer", [1, 2, 3])
def test_param_table_total_equals_size_of_state_dict(n_layer):
    cfg = MicroConfig(n_layer=n_layer, vocab=30, n_embd=8, n_head=2)
    sd = init_state_dict(cfg, np.random.default_rng(0))
    assert param_table(cfg)["total"] == sum(a.size for a in sd.values())


def test_station_counts_for_one_layer():
    assert station_counts(CFG) == {"norms": 3, "residual_adds": 2,
                                   "fc1_shape": (64, 16), "fc2_shape": (16, 64)}
    assert station_counts(MicroConfig(n_layer=4))["norms"] == 9
