"""What formulas can call: numpy's elementwise functions and reductions, and the lessons' own building
blocks taken from grader.reference (one implementation, shared with the built-in scenarios).

Every function that makes an array from sizes checks the size first, so `zeros(10**10)` is refused
before any memory is taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from grader.reference.common import causal_mask, gelu_tanh, relu, silu, softmax
from grader.reference.gpt2 import LN_EPS, gelu_erf, layer_norm
from grader.reference.modern import rms_norm

MAX_ELEMENTS = 20_000  # entries in any array a formula makes
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}


class VocabularyError(ValueError):
    """A call with arguments it cannot take (a size too large, an axis that does not exist, ...)."""


@dataclass(frozen=True)
class Function:
    """A function formulas may call, with how many arguments and which keywords it takes."""

    run: Callable[..., Any]
    min_args: int
    max_args: int
    keywords: tuple[str, ...] = field(default=())

    def arity(self) -> str:
        """The argument count in words ("1", "1 to 2")."""
        return str(self.min_args) if self.min_args == self.max_args else f"{self.min_args} to {self.max_args}"


def _size(*dims: Any) -> tuple[int, ...]:
    shape = tuple(int(d) for d in (np.ravel(dims) if dims else ()))
    if any(d < 0 for d in shape) or math.prod(shape) > MAX_ELEMENTS:
        raise VocabularyError(f"an array of shape {shape} is too large (at most {MAX_ELEMENTS} entries)")
    return shape


def _filled(fill: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    return lambda *dims: fill(_size(*dims))


def _eye(n: Any) -> np.ndarray:
    return np.eye(_size(n, n)[0])


def _arange(*ends: Any) -> np.ndarray:
    start, stop = (0, ends[0]) if len(ends) == 1 else ends[:2]
    _size(max(0, int(stop) - int(start)))
    return np.arange(int(start), int(stop))


def _reshape(x: Any, *dims: Any) -> np.ndarray:
    return np.reshape(np.asarray(x), tuple(int(d) for d in np.ravel(dims)))


def _mask(n: Any) -> np.ndarray:
    return causal_mask(_size(n, n)[0])


def _layer_norm(x: Any, eps: float = LN_EPS) -> np.ndarray:
    return layer_norm(np.asarray(x, dtype=float), eps=float(eps))


def _reduce(name: str) -> Function:
    method = getattr(np, name)
    return Function(lambda x, axis=None: method(np.asarray(x), axis=axis), 1, 1, ("axis",))


def _elementwise(run: Callable[[Any], Any]) -> Function:
    return Function(run, 1, 1)


def _concat(*parts: Any, axis: int = 0) -> np.ndarray:
    return np.concatenate([np.atleast_1d(np.asarray(p)) for p in parts], axis=axis)


FUNCTIONS: dict[str, Function] = {
    **{name: _elementwise(getattr(np, name)) for name in ("sqrt", "exp", "log", "log2", "log10", "tanh", "abs",
                                                           "floor", "ceil", "sign")},
    "erf": _elementwise(np.vectorize(math.erf, otypes=[float])),
    "sigmoid": _elementwise(lambda x: 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=float)))),
    "relu": _elementwise(relu), "silu": _elementwise(silu), "gelu": _elementwise(gelu_tanh),
    "gelu_erf": _elementwise(gelu_erf),
    **{name: _reduce(name) for name in ("sum", "mean", "var", "std", "max", "min", "argmax", "argmin", "prod")},
    "maximum": Function(np.maximum, 2, 2), "minimum": Function(np.minimum, 2, 2),
    "where": Function(np.where, 3, 3),
    "round": Function(lambda x, n=0: np.round(x, int(n)), 1, 2),
    "softmax": Function(lambda x, axis=-1: softmax(x, axis=axis), 1, 1, ("axis",)),
    "layer_norm": Function(_layer_norm, 1, 1, ("eps",)),
    "rms_norm": Function(lambda x, eps=1e-6: rms_norm(x, eps=eps), 1, 1, ("eps",)),
    "causal_mask": Function(_mask, 1, 1),
    "matmul": Function(np.matmul, 2, 2), "transpose": Function(np.transpose, 1, 1),
    "outer": Function(np.outer, 2, 2),
    "reshape": Function(_reshape, 2, 4), "concat": Function(_concat, 1, 8, ("axis",)),
    "ones": Function(_filled(np.ones), 1, 2), "zeros": Function(_filled(np.zeros), 1, 2),
    "eye": Function(_eye, 1, 1), "arange": Function(_arange, 1, 2),
    "nonzero": Function(lambda x: np.flatnonzero(np.asarray(x)), 1, 1),
    "size": Function(lambda x: int(np.size(x)), 1, 1),
}  # fmt: skip
