"""Reference for the FFN read as a key-value memory.

keys K and values V are both (d_ff, d): row k_i is the pattern memory i responds to and
row v_i is what it writes when it fires. The FFN output is sum_i f(k_i . x) v_i.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from grader.reference.common import Array, activation as lookup_activation

__all__ = [
    "edit_value",
    "ffn_matrix",
    "ffn_memory",
    "ffn_share",
    "firing_keys",
    "inputs_changed_by_edit",
    "swiglu_ffn_share",
]


def ffn_memory(
    x: npt.ArrayLike, keys: Array, values: Array, activation: str = "relu"
) -> Array:
    """FFN as a memory read, sum_i f(k_i . x) v_i, for x of shape (d,) or (n, d)."""
    x = np.asarray(x, dtype=np.float64)
    coeffs = lookup_activation(activation)(x @ keys.T)  # (..., d_ff): how strongly each fires
    out = np.zeros(x.shape[:-1] + (values.shape[1],))
    # Written as an explicit sum over memories: it is the definition being taught.
    for i in range(keys.shape[0]):
        out = out + coeffs[..., i, None] * values[i]
    return out


def ffn_matrix(x: npt.ArrayLike, w1: Array, w2: Array, activation: str = "relu") -> Array:
    """FFN in matrix form, W2 f(W1 x), with w1 = K (d_ff, d) and w2 = V^T (d, d_ff)."""
    x = np.asarray(x, dtype=np.float64)
    # Row-vector form of W2 f(W1 x), so a batch (n, d) works as well as a single (d,).
    return lookup_activation(activation)(x @ w1.T) @ w2.T


def firing_keys(x: npt.ArrayLike, keys: Array) -> list[int]:
    """0-based indices i of the memories whose key fires on x (k_i . x > 0)."""
    scores = keys @ np.asarray(x, dtype=np.float64)
    return [int(i) for i in np.flatnonzero(scores > 0)]


def edit_value(values: Array, index: int, new_value: npt.ArrayLike) -> Array:
    """Copy of `values` with row `index` replaced by `new_value`."""
    edited = np.array(values, dtype=np.float64, copy=True)
    edited[index] = np.asarray(new_value, dtype=np.float64)
    return edited


def inputs_changed_by_edit(xs: npt.ArrayLike, keys: Array, index: int) -> list[int]:
    """Rows of xs whose ReLU-FFN output changes when value `index` is set to a new vector."""
    # Under ReLU a memory that does not fire contributes exactly zero, so only inputs
    # whose key `index` fires can see the edit.
    scores = np.asarray(xs, dtype=np.float64) @ keys[index]
    return [int(r) for r in np.flatnonzero(scores > 0)]


def ffn_share(d: int, d_ff: int) -> Fraction:
    """Share of a block's matrix parameters in a 2-matrix FFN: 2 d d_ff / (4d^2 + 2 d d_ff)."""
    return Fraction(2 * d * d_ff, 4 * d * d + 2 * d * d_ff)


def swiglu_ffn_share(d: int, f: int) -> Fraction:
    """Share of a block's matrix parameters in a SwiGLU FFN: 3 d f / (4d^2 + 3 d f)."""
    return Fraction(3 * d * f, 4 * d * d + 3 * d * f)
