"""Small numeric helpers shared by the reference implementations."""

from __future__ import annotations

from typing import Callable

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


def softmax(s: npt.ArrayLike, axis: int = -1) -> Array:
    """Numerically stable softmax of `s` along `axis`."""
    s = np.asarray(s, dtype=np.float64)
    # Subtracting the max leaves the result unchanged but keeps exp() from overflowing;
    # rows that are entirely -inf would give nan, so their max is treated as 0.
    m = np.max(s, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(s - m)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_mask(n: int) -> Array:
    """(n, n) additive mask: 0 on and below the diagonal, -inf above it."""
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    return np.where(upper, -np.inf, 0.0)


def relu(x: npt.ArrayLike) -> Array:
    """Rectified linear unit, max(x, 0)."""
    return np.maximum(np.asarray(x, dtype=np.float64), 0.0)


GELU_C = float(np.sqrt(2.0 / np.pi))
GELU_K = 0.044715


def gelu_tanh(x: npt.ArrayLike, c: float = GELU_C, k: float = GELU_K) -> Array:
    """GELU in its tanh approximation (the GPT-2 form): 0.5 x (1 + tanh(c (x + k x^3)))."""
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * (1.0 + np.tanh(c * (x + k * x**3)))


def silu(x: npt.ArrayLike) -> Array:
    """SiLU / swish, x * sigmoid(x)."""
    x = np.asarray(x, dtype=np.float64)
    # 0.5*(1+tanh(x/2)) is sigmoid without overflow warnings for large |x|.
    return x * 0.5 * (1.0 + np.tanh(0.5 * x))


ACTIVATIONS: dict[str, Callable[[npt.ArrayLike], Array]] = {
    "relu": relu,
    "gelu": gelu_tanh,
    "silu": silu,
}


def activation(name: str) -> Callable[[npt.ArrayLike], Array]:
    """Look up an activation function by name, raising ValueError if unknown."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(
            f"unknown activation {name!r}; expected one of {sorted(ACTIVATIONS)}"
        ) from None


def attention_scale(head_dim: int, scale: str) -> float:
    """Divisor for attention scores: sqrt(d_h) normally, d_h for the 'dh' mistake."""
    if scale == "sqrt":
        return float(np.sqrt(head_dim))
    if scale == "dh":
        return float(head_dim)
    raise ValueError(f"unknown scale {scale!r}; expected 'sqrt' or 'dh'")
