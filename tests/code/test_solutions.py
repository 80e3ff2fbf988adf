"""Solutions written the way a learner might: right ones pass, typical mistakes are named.

These are the tests' own functions, called directly; learner code only ever runs in the sandbox.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Callable

import numpy as np
import pytest

from grader.codecheck.tasks import get_task
from tests.code.support import grade_values, prepared_for


def outputs_of(function: Callable[..., Any], task: str, seed: int = 1) -> tuple[Any, ...]:
    spec, prepared = prepared_for(task, seed)
    changes = get_task(spec.task).changes
    values = []
    for case in prepared.cases:
        kwargs = copy.deepcopy(case.kwargs)
        with np.errstate(all="ignore"):
            returned = function(**kwargs)
        # As the sandbox's runner reports it: with the arguments the call was to change in place.
        values.append({"returned": returned, "after": {n: kwargs[n] for n in changes}} if changes else returned)
    result = grade_values(spec, prepared, values)
    return result.status, result.score, result.misconception


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def layer_norm_no_eps(x, gamma, beta, eps=1e-5):
    centred = x - np.mean(x, axis=1)[:, None]
    return gamma * centred / np.sqrt(np.sum(centred**2, axis=1) / x.shape[1])[:, None] + beta


def gelu(z):
    return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * np.power(z, 3))))


def layer_norm_sample(x, gamma, beta, eps=1e-5):
    var = x.var(-1, ddof=1, keepdims=True)
    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(var + eps) + beta


def gelu_no_half(z):
    return z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z**3)))


def layer_norm_no_affine(x, gamma, beta, eps=1e-5):
    return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def layer_norm_columns(x, gamma, beta, eps=1e-5):
    return gamma * (x - np.mean(x, axis=0)) / np.sqrt(np.var(x, axis=0) + eps) + beta


def gelu_erf(z):
    return 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))


def gelu_relu(z):
    return np.maximum(z, 0)


def causal_attention(q, k, v):
    n, d_h = q.shape[1], q.shape[2]
    scores = np.einsum("hid,hjd->hij", q, k) / np.sqrt(d_h)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -1e9)
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def attention_unstable(q, k, v):
    n = q.shape[1]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) + np.triu(np.full((n, n), -np.inf), 1)
    weights = np.exp(scores)
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def _stable_softmax(scores):
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def attention_mask_by_multiplying(q, k, v):
    n = q.shape[1]
    return _stable_softmax(q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) * np.tril(np.ones((n, n)))) @ v


def attention_mask_after_softmax(q, k, v):
    n = q.shape[1]
    return _stable_softmax(q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])) * np.tril(np.ones((n, n))) @ v


def attention_strictly_past(q, k, v):
    n = q.shape[1]
    scores = np.where(np.tril(np.ones((n, n), dtype=bool), k=-1), q @ k.transpose(0, 2, 1), -np.inf)
    return _stable_softmax(scores / np.sqrt(q.shape[-1])) @ v


def attention_no_mask(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def gpt2_block(x, p, ln=layer_norm, act=gelu, second_residual=True, post_norm=False, project=True):
    d_h = x.shape[1] // p["n_head"]
    u = x if post_norm else ln(x, p["ln1_g"], p["ln1_b"])
    q, k, v = (u @ p[w] + p[b] for w, b in (("wq", "bq"), ("wk", "bk"), ("wv", "bv")))
    cols = [slice(j * d_h, (j + 1) * d_h) for j in range(p["n_head"])]
    heads = np.concatenate([causal_attention(q[None, :, c], k[None, :, c], v[None, :, c])[0] for c in cols], axis=-1)
    h = x + (heads @ p["wo"] + p["bo"] if project else heads)
    if post_norm:
        h = ln(h, p["ln1_g"], p["ln1_b"])
        return ln(h + act(h @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"], p["ln2_g"], p["ln2_b"])
    m = act(ln(h, p["ln2_g"], p["ln2_b"]) @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
    return h + m if second_residual else m


def rms_norm(x, weight, eps=1e-6):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * weight


def rms_norm_eps_outside(x, weight, eps=1e-6):
    return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps) * weight


def swiglu_ffn(x, w1, w3, w2):
    a = x @ w1
    return (a / (1 + np.exp(-a)) * (x @ w3)) @ w2


def swiglu_relu_gate(x, w1, w3, w2):
    return (np.maximum(x @ w1, 0) * (x @ w3)) @ w2


def layer_norm_eps_after_sqrt(x, gamma, beta, eps=1e-5):
    centred = x - x.mean(-1, keepdims=True)
    return gamma * centred / (np.sqrt((centred**2).mean(-1, keepdims=True)) + eps) + beta


def attention_masking_the_past(q, k, v):
    n = q.shape[1]
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) + np.tril(np.full((n, n), -np.inf), -1)
    return _stable_softmax(scores) @ v


def swiglu_swapped(x, w1, w3, w2):
    return swiglu_ffn(x, w3, w1, w2)


def count_params(d, n_head, n_kv_head, d_ff, n_layer, vocab, kv_heads=None):
    d_h = d // n_head
    attention = 2 * d * d + 2 * d * (kv_heads or n_kv_head) * d_h
    ffn, norm = 3 * d * d_ff, 2 * d
    block = attention + ffn + norm
    embeddings = 2 * vocab * d
    return {"attention": attention, "ffn": ffn, "norm": norm, "block": block,
            "embeddings": embeddings, "total": n_layer * block + embeddings + d}  # fmt: skip


def count_params_full_kv(d, n_head, n_kv_head, d_ff, n_layer, vocab):
    return count_params(d, n_head, n_kv_head, d_ff, n_layer, vocab, kv_heads=n_head)


def _linear(x, w):
    return [sum(wi * xi for wi, xi in zip(row, x)) for row in w]


def _rmsnorm(x):
    scale = (sum(xi * xi for xi in x) / len(x) + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def gpt(token_id, pos_id, keys, values, state_dict, initial_norm=True):
    """microGPT in Karpathy's list style: plain Python floats and nested lists."""
    sd, n_head, head_dim = state_dict, 4, 4
    x = [t + p for t, p in zip(sd["wte"][token_id], sd["wpe"][pos_id])]
    x = _rmsnorm(x) if initial_norm else x
    for li in range(1):
        residual, xn = x, _rmsnorm(x)
        q = _linear(xn, sd[f"layer{li}.attn_wq"])
        keys[li].append(_linear(xn, sd[f"layer{li}.attn_wk"]))
        values[li].append(_linear(xn, sd[f"layer{li}.attn_wv"]))
        out = []
        for h in range(n_head):
            s = slice(h * head_dim, (h + 1) * head_dim)
            logits = [sum(a * b for a, b in zip(q[s], k[s])) / head_dim**0.5 for k in keys[li]]
            top = max(logits)
            exps = [math.exp(v - top) for v in logits]
            weights = [e / sum(exps) for e in exps]
            out += [sum(w * v[s][j] for w, v in zip(weights, values[li])) for j in range(head_dim)]
        x = [a + b for a, b in zip(_linear(out, sd[f"layer{li}.attn_wo"]), residual)]
        residual = x
        hidden = [max(0.0, v) for v in _linear(_rmsnorm(x), sd[f"layer{li}.mlp_fc1"])]
        x = [a + b for a, b in zip(_linear(hidden, sd[f"layer{li}.mlp_fc2"]), residual)]
    return _linear(x, sd["lm_head"])


def gpt_no_initial_norm(token_id, pos_id, keys, values, state_dict):
    return gpt(token_id, pos_id, keys, values, state_dict, initial_norm=False)


def gpt_without_extending_the_cache(token_id, pos_id, keys, values, state_dict):
    # Attends over the cache plus this position, but leaves the caller's cache as it was.
    return gpt(token_id, pos_id, copy.deepcopy(keys), copy.deepcopy(values), state_dict)


def test_microgpt_that_does_not_extend_the_kv_cache_fails_though_its_logits_are_right() -> None:
    spec, prepared = prepared_for("microgpt", 1)
    status, score, _ = outputs_of(gpt_without_extending_the_cache, "microgpt")
    assert (status, score) == ("failed", 0.0)
    values = [{"returned": gpt_without_extending_the_cache(**copy.deepcopy(c.kwargs)),
               "after": {"keys": c.kwargs["keys"], "values": c.kwargs["values"]}} for c in prepared.cases]
    first = grade_values(spec, prepared, values).cases[0]
    assert first.message == ("The output is right, but keys is not left as it should be after the call: "
                             "Expected shape (1, 1, 16), got (1, 0).")


@pytest.mark.parametrize("function, task", [
    (layer_norm, "layer-norm"), (gelu, "gelu"), (causal_attention, "causal-attention"),
    (gpt2_block, "gpt2-block"), (rms_norm, "rms-norm"), (swiglu_ffn, "swiglu"), (gpt, "microgpt"),
    (count_params, "param-count"),
])
def test_an_independent_correct_solution_passes(function: Callable[..., Any], task: str) -> None:
    assert outputs_of(function, task) == ("passed", 1.0, None)


@pytest.mark.parametrize("function, task, mistake", [
    (layer_norm_no_eps, "layer-norm", "no-eps"),
    (layer_norm_sample, "layer-norm", "sample-variance"),
    (gelu_erf, "gelu", "erf-gelu"),
    (attention_unstable, "causal-attention", "unstable-softmax"),
    (gelu_relu, "gelu", "relu"),
    (attention_no_mask, "causal-attention", "no-causal-mask"),
    (lambda x, p: gpt2_block(x, p, second_residual=False), "gpt2-block", "no-residual-mlp"),
    (rms_norm_eps_outside, "rms-norm", "eps-outside-sqrt"),
    (swiglu_swapped, "swiglu", "swapped-gate"),
    (gpt_no_initial_norm, "microgpt", "no-initial-norm"),
    (count_params_full_kv, "param-count", "full-kv-heads"),
    (gelu_no_half, "gelu", "no-half"),
    (swiglu_relu_gate, "swiglu", "relu-gate"),
    (layer_norm_eps_after_sqrt, "layer-norm", "eps-outside-sqrt"),
    (attention_masking_the_past, "causal-attention", "mask-wrong-side"),
    (layer_norm_no_affine, "layer-norm", "no-gain-shift"),
    (layer_norm_columns, "layer-norm", "column-statistics"),
    (attention_mask_by_multiplying, "causal-attention", "mask-zero"),
    (attention_mask_after_softmax, "causal-attention", "mask-after-softmax"),
    (attention_strictly_past, "causal-attention", "diagonal-masked"),
    (lambda x, p: gpt2_block(x, p, post_norm=True), "gpt2-block", "post-norm"),
    (lambda x, p: gpt2_block(x, p, project=False), "gpt2-block", "no-output-projection"),
])
def test_a_hand_written_mistake_is_named(function: Callable, task: str, mistake: str) -> None:
    status, score, named = outputs_of(function, task)
    assert (status, named) == ("failed", mistake)
    assert score < 1.0
