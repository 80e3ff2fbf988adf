"""Reference for microGPT (after Karpathy): one token position at a time, with a KV cache.

Unlike the modern block, matrices here are stored (n_out, n_in) and linear(x, w) = w @ x
for a 1-D x. There are no biases, no final norm, ReLU in the MLP and a weightless RMSNorm.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from grader.reference.common import Array, attention_scale, softmax
from grader.reference.common import activation as lookup_activation

__all__ = [
    "MicroConfig",
    "gpt",
    "init_state_dict",
    "linear",
    "outside_share",
    "param_table",
    "rmsnorm",
    "station_counts",
]

RMS_EPS = 1e-5


@dataclass(frozen=True)
class MicroConfig:
    """microGPT hyper-parameters (defaults are the names-dataset model)."""

    vocab: int = 27
    n_embd: int = 16
    block_size: int = 16
    n_head: int = 4
    n_layer: int = 1

    def __post_init__(self) -> None:
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd={self.n_embd} is not divisible by n_head={self.n_head}")

    @property
    def head_dim(self) -> int:
        """Width of one attention head, n_embd // n_head."""
        return self.n_embd // self.n_head


def linear(x: npt.ArrayLike, w: Array) -> Array:
    """microGPT's linear layer: w (n_out, n_in) applied to a 1-D x, i.e. w @ x."""
    return w @ np.asarray(x, dtype=np.float64)


def rmsnorm(x: npt.ArrayLike) -> Array:
    """Weightless RMSNorm with eps 1e-5: x / sqrt(mean(x^2) + 1e-5)."""
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x * x) + RMS_EPS)


def _shapes(cfg: MicroConfig) -> dict[str, tuple[int, int]]:
    e = cfg.n_embd
    shapes = {
        "wte": (cfg.vocab, e),
        "wpe": (cfg.block_size, e),
        "lm_head": (cfg.vocab, e),
    }
    for i in range(cfg.n_layer):
        for name in ("attn_wq", "attn_wk", "attn_wv", "attn_wo"):
            shapes[f"layer{i}.{name}"] = (e, e)
        shapes[f"layer{i}.mlp_fc1"] = (4 * e, e)
        shapes[f"layer{i}.mlp_fc2"] = (e, 4 * e)
    return shapes


def init_state_dict(
    cfg: MicroConfig, rng: np.random.Generator, std: float = 0.08
) -> dict[str, Array]:
    """Random microGPT parameters, each entry normal(0, std), stored (n_out, n_in)."""
    return {name: rng.normal(0.0, std, size=shape) for name, shape in _shapes(cfg).items()}


def _attend(
    q: Array, keys: list[Array], values: list[Array], cfg: MicroConfig, scale: str
) -> tuple[Array, list[Array]]:
    """Per-head attention of one query over the cached positions; returns (concat, weights)."""
    ks, vs = np.stack(keys), np.stack(values)  # (t, n_embd): every cached position so far
    divisor = attention_scale(cfg.head_dim, scale)
    outs, all_weights = [], []
    for h in range(cfg.n_head):
        sl = slice(h * cfg.head_dim, (h + 1) * cfg.head_dim)
        w = softmax(ks[:, sl] @ q[sl] / divisor)
        all_weights.append(w)
        outs.append(w @ vs[:, sl])
    return np.concatenate(outs), all_weights


def _layer(
    x: Array,
    li: int,
    keys: list[list[Array]],
    values: list[list[Array]],
    sd: dict[str, Array],
    cfg: MicroConfig,
    act: str,
    scale: str,
) -> tuple[Array, dict[str, Any]]:
    """One transformer layer for one position; appends to the layer's KV cache."""
    p = f"layer{li}."
    xn = rmsnorm(x)
    q, k, v = (linear(xn, sd[p + n]) for n in ("attn_wq", "attn_wk", "attn_wv"))
    keys[li].append(k)
    values[li].append(v)
    concat, weights = _attend(q, keys[li], values[li], cfg, scale)
    attn_out = linear(concat, sd[p + "attn_wo"])
    h = x + attn_out
    fc1 = linear(rmsnorm(h), sd[p + "mlp_fc1"])
    a = lookup_activation(act)(fc1)
    fc2 = linear(a, sd[p + "mlp_fc2"])
    y = h + fc2
    rec = {"q": q, "k": k, "v": v, "attn_weights": weights, "attn_out": attn_out,
           "h": h, "fc1": fc1, "act": a, "fc2": fc2, "y": y}
    return y, rec


def gpt(
    token_id: int,
    pos_id: int,
    keys: list[list[Array]],
    values: list[list[Array]],
    state_dict: dict[str, Array],
    cfg: MicroConfig,
    *,
    initial_norm: bool = True,
    activation: str = "relu",
    scale: str = "sqrt",
    trace: dict[str, Any] | None = None,
) -> Array:
    """Logits (vocab,) for one position; appends this position's k, v to keys/values."""
    emb = state_dict["wte"][token_id] + state_dict["wpe"][pos_id]
    # initial_norm=False reproduces the mistake of forgetting the norm after the embedding.
    x = rmsnorm(emb) if initial_norm else emb
    x0, layers = x, []
    for li in range(cfg.n_layer):
        x, rec = _layer(x, li, keys, values, state_dict, cfg, activation, scale)
        layers.append(rec)
    logits = linear(x, state_dict["lm_head"])
    if trace is not None:
        # Top-level names describe the last layer; "layers" keeps every layer's record.
        trace.clear()
        trace.update(layers[-1] if layers else {})
        trace.update(emb=emb, x0=x0, layers=layers, logits=logits)
    return logits


def param_table(cfg: MicroConfig) -> dict[str, int]:
    """Parameter counts: wte, wpe, lm_head, attention, mlp (over all layers) and total."""
    e, L = cfg.n_embd, cfg.n_layer
    table = {
        "wte": cfg.vocab * e,
        "wpe": cfg.block_size * e,
        "lm_head": cfg.vocab * e,
        "attention": 4 * e * e * L,
        "mlp": 2 * 4 * e * e * L,
    }
    table["total"] = sum(table.values())
    return table


def outside_share(cfg: MicroConfig) -> Fraction:
    """Share of parameters outside the blocks: (wte + wpe + lm_head) / total."""
    t = param_table(cfg)
    return Fraction(t["wte"] + t["wpe"] + t["lm_head"], t["total"])


def station_counts(cfg: MicroConfig) -> dict[str, Any]:
    """Counts of norms and residual adds, and the MLP matrix shapes (n_out, n_in)."""
    e = cfg.n_embd
    return {
        # The norm after the embedding, plus one before each sub-block.
        "norms": 1 + 2 * cfg.n_layer,
        "residual_adds": 2 * cfg.n_layer,
        "fc1_shape": (4 * e, e),
        "fc2_shape": (e, 4 * e),
    }
