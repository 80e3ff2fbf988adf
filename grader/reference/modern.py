"""Reference for the modern (Llama-style) block: RMSNorm, grouped-query attention, SwiGLU.

Activations are row vectors (x has shape (n, d)) and weights are stored (d_in, d_out),
so every linear layer is y = x @ W.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from grader.reference.common import Array, attention_scale, causal_mask, silu, softmax

__all__ = [
    "ModernConfig",
    "ParamCounts",
    "gqa_attention",
    "init_modern_weights",
    "modern_block",
    "param_counts",
    "rms_norm",
    "silu",
    "stage_shapes",
    "swiglu_ffn",
    "swiglu_width",
]


def rms_norm(x: npt.ArrayLike, weight: npt.ArrayLike | None = None, eps: float = 1e-6) -> Array:
    """RMSNorm over the last axis: x / sqrt(mean(x^2) + eps), times an optional gain."""
    x = np.asarray(x, dtype=np.float64)
    out = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return out if weight is None else out * np.asarray(weight, dtype=np.float64)


def swiglu_ffn(x: npt.ArrayLike, w1: Array, w3: Array, w2: Array) -> Array:
    """SwiGLU feed-forward: (silu(x @ w1) * (x @ w3)) @ w2."""
    x = np.asarray(x, dtype=np.float64)
    return _swiglu_hidden(x, w1, w3) @ w2


def _swiglu_hidden(x: Array, w1: Array, w3: Array) -> Array:
    # The gated hidden layer is traced on its own, so it is computed in one place.
    return silu(x @ w1) * (x @ w3)


def swiglu_width(d: int) -> int:
    """SwiGLU hidden width: 8d/3 rounded to the nearest multiple of 256 (d >= 256), else floor."""
    if d < 256:
        return (8 * d) // 3
    # Exact arithmetic so that 8d/3 is never misrounded; ties go up.
    multiples = math.floor(Fraction(8 * d, 3 * 256) + Fraction(1, 2))
    return 256 * multiples


@dataclass(frozen=True)
class ModernConfig:
    """Shape of a modern block: model width, query heads, key/value heads, layers, vocab."""

    d: int
    n_head: int
    n_kv_head: int
    n_layer: int = 1
    vocab: int = 0
    ffn_width: int | None = None

    def __post_init__(self) -> None:
        if min(self.d, self.n_head, self.n_kv_head, self.n_layer) <= 0:
            raise ValueError("d, n_head, n_kv_head and n_layer must be positive")
        if self.d % self.n_head:
            raise ValueError(f"d={self.d} is not divisible by n_head={self.n_head}")
        if self.n_head % self.n_kv_head:
            raise ValueError(f"n_head={self.n_head} is not divisible by n_kv_head={self.n_kv_head}")
        if self.vocab < 0 or (self.ffn_width is not None and self.ffn_width <= 0):
            raise ValueError("vocab must be >= 0 and ffn_width positive when given")

    @property
    def head_dim(self) -> int:
        """Width of one attention head, d // n_head."""
        return self.d // self.n_head

    @property
    def f(self) -> int:
        """FFN hidden width: the explicit override or swiglu_width(d)."""
        return self.ffn_width if self.ffn_width is not None else swiglu_width(self.d)

    @property
    def kv_dim(self) -> int:
        """Output width of W_K and W_V, n_kv_head * head_dim."""
        return self.n_kv_head * self.head_dim


def _split_heads(t: Array, n_heads: int) -> Array:
    """(n, n_heads * d_h) -> (n_heads, n, d_h)."""
    n = t.shape[0]
    return t.reshape(n, n_heads, -1).transpose(1, 0, 2)


def gqa_attention(
    x: npt.ArrayLike,
    wq: Array,
    wk: Array,
    wv: Array,
    wo: Array,
    cfg: ModernConfig,
    *,
    causal: bool = True,
    scale: str = "sqrt",
) -> dict[str, Array]:
    """Grouped-query attention on x (n, d); returns a trace of every intermediate."""
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[0]
    q = _split_heads(x @ wq, cfg.n_head)
    k = _split_heads(x @ wk, cfg.n_kv_head)
    v = _split_heads(x @ wv, cfg.n_kv_head)
    # Query head j reads kv head j // group: np.repeat keeps each group contiguous.
    group = cfg.n_head // cfg.n_kv_head
    k_rep = np.repeat(k, group, axis=0)
    v_rep = np.repeat(v, group, axis=0)
    scores = q @ k_rep.transpose(0, 2, 1) / attention_scale(cfg.head_dim, scale)
    if causal:
        scores = scores + causal_mask(n)
    weights = softmax(scores, axis=-1)
    heads = weights @ v_rep
    # Concatenate heads back into one row per token before the output projection.
    out = heads.transpose(1, 0, 2).reshape(n, cfg.d) @ wo
    return {
        "q": q,
        "k": k,
        "v": v,
        "k_rep": k_rep,
        "v_rep": v_rep,
        "scores": scores,
        "weights": weights,
        "heads": heads,
        "out": out,
    }


def init_modern_weights(cfg: ModernConfig, rng: np.random.Generator) -> dict[str, Array]:
    """Random block weights: normal / sqrt(fan_in) for matrices, ones for norm gains."""
    d, f, kv = cfg.d, cfg.f, cfg.kv_dim
    shapes = {
        "wq": (d, d),
        "wk": (d, kv),
        "wv": (d, kv),
        "wo": (d, d),
        "w1": (d, f),
        "w3": (d, f),
        "w2": (f, d),
    }
    weights = {name: rng.standard_normal(s) / math.sqrt(s[0]) for name, s in shapes.items()}
    weights["norm1"] = np.ones(d)
    weights["norm2"] = np.ones(d)
    return weights


def modern_block(
    x: npt.ArrayLike, weights: dict[str, Array], cfg: ModernConfig
) -> dict[str, Array]:
    """One pre-norm modern block on x (n, d); returns a trace of every stage."""
    x = np.asarray(x, dtype=np.float64)
    w = weights
    u = rms_norm(x, w["norm1"])
    attn = gqa_attention(u, w["wq"], w["wk"], w["wv"], w["wo"], cfg)
    h = x + attn["out"]
    u2 = rms_norm(h, w["norm2"])
    hidden = _swiglu_hidden(u2, w["w1"], w["w3"])
    ffn_out = hidden @ w["w2"]
    trace = {"x": x, "u": u}
    for key in ("q", "k", "v", "k_rep", "v_rep", "scores", "weights", "heads"):
        trace[key] = attn[key]
    trace.update(attn_out=attn["out"], h=h, u2=u2, hidden=hidden, ffn_out=ffn_out)
    trace["y"] = h + ffn_out
    return trace


def stage_shapes(n: int, cfg: ModernConfig) -> dict[str, tuple[int, ...]]:
    """Expected shapes of the main stages of modern_block for n tokens."""
    h, d_h = cfg.n_head, cfg.head_dim
    return {
        "x": (n, cfg.d),
        "q": (h, n, d_h),
        "kv": (h, n, d_h),
        "kv_cache": (cfg.n_kv_head, n, d_h),
        "scores": (h, n, n),
        "hidden": (n, cfg.f),
        "out": (n, cfg.d),
    }


@dataclass(frozen=True)
class ParamCounts:
    """Parameter counts of a modern decoder, broken down by component."""

    attention: int
    ffn: int
    norm: int
    block: int
    blocks: int
    embeddings: int
    head: int
    final_norm: int
    total: int


def param_counts(
    cfg: ModernConfig, *, biases: bool = False, tied_head: bool = False, ffn_matrices: int = 3,
    output_projection: bool = True, norm_gains: int = 2,
) -> ParamCounts:
    """Count parameters; biases=True (adding biases and betas), ffn_matrices=2 (the GPT-2 habit of
    counting W1 and W2 only), output_projection=False (W_O forgotten) and norm_gains=1 or 0 (one
    norm per block, or gains not counted) model learner mistakes."""
    d, f, kv = cfg.d, cfg.f, cfg.kv_dim
    attention = d * d + 2 * d * kv + (d * d if output_projection else 0)
    ffn = ffn_matrices * d * f
    norm = norm_gains * d
    if biases:
        # One bias per linear layer (W_Q, W_K, W_V, W_O; W1, W3, W2) and a beta per norm.
        attention += d + 2 * kv + d
        ffn += 2 * f + d
        norm += norm_gains * d
    block = attention + ffn + norm
    blocks = cfg.n_layer * block
    embeddings = cfg.vocab * d
    head = 0 if tied_head else cfg.vocab * d
    final_norm = d
    total = blocks + embeddings + head + final_norm
    return ParamCounts(
        attention=attention,
        ffn=ffn,
        norm=norm,
        block=block,
        blocks=blocks,
        embeddings=embeddings,
        head=head,
        final_norm=final_norm,
        total=total,
    )
