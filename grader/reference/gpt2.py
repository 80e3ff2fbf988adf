"""The GPT-2 block in numpy: pre-LN, LayerNorm, tanh-GELU, causal multi-head attention, residuals.

Every function takes a `BlockOptions` so that a learner's typical mistake (sample variance, ReLU,
a forgotten residual, ...) can be re-run through the same code path as a "mutant".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from grader.reference.common import GELU_C, GELU_K, attention_scale, causal_mask, gelu_tanh, relu, softmax

LN_EPS = 1e-5

Activation = Literal["gelu", "erf", "relu"]


@dataclass(frozen=True)
class BlockOptions:
    """Switches that turn the correct block into one with a named learner mistake."""

    ddof: int = 0  # 1 = sample variance (n - 1)
    center: bool = True  # False = divide by the RMS without subtracting the mean
    activation: Activation = "gelu"
    attn_residual: bool = True
    mlp_residual: bool = True
    second_norm_of_input: bool = False  # True = the second LayerNorm reads x instead of h
    scale: Literal["sqrt", "dh"] = "sqrt"
    causal: bool = True
    gelu_c: float = GELU_C  # the lesson's hand computation uses 0.798 and 0.0447
    gelu_k: float = GELU_K
    # The causal mask: -inf added above the diagonal (right), those scores set to 0 instead, the
    # future weights zeroed after the softmax (rows no longer sum to 1), or the diagonal masked too.
    mask: Literal["additive", "zero", "after-softmax", "strict"] = "additive"
    post_norm: bool = False  # True = LayerNorm after each residual sum, as in the original Transformer
    gelu_halved: bool = True  # False = GELU without its leading ½
    second_residual_of_input: bool = False  # True = y = x + m instead of h + m
    second_norm: bool = True  # False = the MLP reads h itself, not LN(h)
    output_projection: bool = True  # False = the merged heads used without W_O and b_O


CORRECT = BlockOptions()


def row_stats(x: np.ndarray, opts: BlockOptions = CORRECT, eps: float = LN_EPS) -> tuple[np.ndarray, np.ndarray]:
    """Return (mu, sigma) per row, sigma = sqrt(var + eps), as LayerNorm uses them."""
    n = x.shape[-1]
    mu = x.mean(axis=-1, keepdims=True)
    centred = x - mu if opts.center else x
    var = (centred**2).sum(axis=-1, keepdims=True) / (n - opts.ddof)
    sigma = np.sqrt(var + eps)
    return (mu if opts.center else np.zeros_like(mu)), sigma


def layer_norm(
    x: np.ndarray,
    gamma: np.ndarray | None = None,
    beta: np.ndarray | None = None,
    opts: BlockOptions = CORRECT,
    eps: float = LN_EPS,
) -> np.ndarray:
    """LayerNorm over the last axis with population variance and eps (1e-5 by default)."""
    mu, sigma = row_stats(x, opts, eps)
    u = (x - mu) / sigma
    if gamma is not None:
        u = u * gamma
    if beta is not None:
        u = u + beta
    return u


def gelu_erf(z: np.ndarray) -> np.ndarray:
    """The exact GELU, z * Phi(z), kept to explain answers computed with it."""
    z = np.asarray(z, dtype=float)
    erf = np.vectorize(math.erf, otypes=[float])
    return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))


def activate(z: np.ndarray, opts: BlockOptions = CORRECT) -> np.ndarray:
    """Apply the block's activation as chosen in `opts`."""
    if opts.activation == "relu":
        return relu(z)
    if opts.activation == "erf":
        return gelu_erf(z)
    gelu = gelu_tanh(z, opts.gelu_c, opts.gelu_k)
    return gelu if opts.gelu_halved else 2.0 * gelu


def split_heads(t: np.ndarray, n_head: int) -> np.ndarray:
    """(n, d) -> (h, n, d_h)."""
    n, d = t.shape
    return t.reshape(n, n_head, d // n_head).transpose(1, 0, 2)


def merge_heads(t: np.ndarray) -> np.ndarray:
    """(h, n, d_h) -> (n, d)."""
    h, n, dh = t.shape
    return t.transpose(1, 0, 2).reshape(n, h * dh)


def attention_weights(q: np.ndarray, k: np.ndarray, opts: BlockOptions = CORRECT) -> dict:
    """Scores QK^T / sqrt(d_h) + M and their softmax, per head; q, k are (h, n, d_h)."""
    scores = q @ k.transpose(0, 2, 1) / attention_scale(q.shape[-1], opts.scale)
    n = q.shape[1]
    if opts.causal and opts.mask == "after-softmax":
        return {"scores": scores, "weights": softmax(scores, axis=-1) * np.tril(np.ones((n, n)))}
    if opts.causal:
        scores = _masked(scores, opts.mask)
    return {"scores": scores, "weights": softmax(scores, axis=-1)}


def _masked(scores: np.ndarray, mask: str) -> np.ndarray:
    """The scores with the causal mask applied the way `mask` names."""
    n = scores.shape[-1]
    if mask == "zero":
        return np.where(np.triu(np.ones((n, n), dtype=bool), k=1), 0.0, scores)
    if mask == "strict":
        return scores + np.where(np.triu(np.ones((n, n), dtype=bool)), -np.inf, 0.0)
    return scores + causal_mask(n)


def causal_attention(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, opts: BlockOptions = CORRECT
) -> np.ndarray:
    """softmax(QK^T / sqrt(d_h) + M) V for (h, n, d_h) inputs; returns (h, n, d_h)."""
    return attention_weights(q, k, opts)["weights"] @ v


def mlp(
    u: np.ndarray,
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    opts: BlockOptions = CORRECT,
) -> dict:
    """W1, b1 -> activation -> W2, b2 on rows; returns z, gelu and m."""
    z = u @ w1 + b1
    g = activate(z, opts)
    return {"z": z, "gelu": g, "m": g @ w2 + b2}


def gpt2_block(x: np.ndarray, p: dict[str, np.ndarray], n_head: int, opts: BlockOptions = CORRECT) -> dict:
    """Run one pre-LN GPT-2 block on x (n, d) and return every named intermediate."""
    u = x if opts.post_norm else layer_norm(x, p["ln1_g"], p["ln1_b"], opts)
    attn = _attention_sublayer(u, p, n_head, opts)
    h = x + attn["a"] if opts.attn_residual else attn["a"]
    if opts.post_norm:
        h = layer_norm(h, p["ln1_g"], p["ln1_b"], opts)
    norm_input = x if opts.second_norm_of_input else h
    mu, sigma = row_stats(norm_input, opts)
    normalised = opts.second_norm and not opts.post_norm
    u2 = layer_norm(norm_input, p["ln2_g"], p["ln2_b"], opts) if normalised else norm_input
    ff = mlp(u2, p["w1"], p["b1"], p["w2"], p["b2"], opts)
    stream = x if opts.second_residual_of_input else h
    y = stream + ff["m"] if opts.mlp_residual else ff["m"]
    if opts.post_norm:
        y = layer_norm(y, p["ln2_g"], p["ln2_b"], opts)
    return {
        "x": x, "u": u, **attn, "h": h, "mu": mu[..., 0], "sigma": sigma[..., 0],
        "u2": u2, "z": ff["z"], "gelu": ff["gelu"], "m": ff["m"], "y": y,
    }  # fmt: skip


def _attention_sublayer(u: np.ndarray, p: dict[str, np.ndarray], n_head: int, opts: BlockOptions) -> dict:
    """q, k, v per head, the scores and weights, and the attention output a for normalised rows u."""
    q = split_heads(u @ p["wq"] + p["bq"], n_head)
    k = split_heads(u @ p["wk"] + p["bk"], n_head)
    v = split_heads(u @ p["wv"] + p["bv"], n_head)
    att = attention_weights(q, k, opts)
    merged = merge_heads(att["weights"] @ v)
    a = merged @ p["wo"] + p["bo"] if opts.output_projection else merged
    return {"q": q, "k": k, "v": v, "scores": att["scores"], "weights": att["weights"], "a": a}


def init_gpt2_weights(d: int, rng: np.random.Generator, d_ff: int | None = None) -> dict[str, np.ndarray]:
    """Random GPT-2 block weights (d_ff = 4d by default), scaled by 1/sqrt(fan_in)."""
    d_ff = d_ff or 4 * d

    def mat(n_in: int, n_out: int) -> np.ndarray:
        return rng.normal(size=(n_in, n_out)) / math.sqrt(n_in)

    def vec(n: int, scale: float = 0.1) -> np.ndarray:
        return rng.normal(size=n) * scale

    return {
        "ln1_g": 1.0 + vec(d), "ln1_b": vec(d), "ln2_g": 1.0 + vec(d), "ln2_b": vec(d),
        "wq": mat(d, d), "bq": vec(d), "wk": mat(d, d), "bk": vec(d), "wv": mat(d, d), "bv": vec(d),
        "wo": mat(d, d), "bo": vec(d), "w1": mat(d, d_ff), "b1": vec(d_ff), "w2": mat(d_ff, d), "b2": vec(d),
    }  # fmt: skip
