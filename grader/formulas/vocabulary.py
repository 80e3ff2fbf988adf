"""What formulas can call: numpy's elementwise functions and reductions, and the lessons' own building
blocks taken from grader.reference (one implementation, shared with the built-in scenarios).

Every function that can make more entries than it is given says the shape it will make (`makes`), and the
evaluator refuses a shape over the limit before calling it; those that make an array from sizes check the
size first. So `zeros(10**10)` and `outer(arange(20000), arange(20000))` are refused before any memory is
taken.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from grader.reference.common import causal_mask, gelu_tanh, relu, silu, softmax
from grader.reference.gpt2 import LN_EPS, gelu_erf, layer_norm
from grader.formulas.limits import VocabularyError, bounded, broadcast_shape, matmul_shape
from grader.reference.modern import rms_norm

CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}
Shape = tuple[int, ...]


@dataclass(frozen=True)
class Function:
    """A function formulas may call, with how many arguments and which keywords it takes."""

    run: Callable[..., Any]
    min_args: int
    max_args: int
    keywords: tuple[str, ...] = field(default=())
    # The shape a call will make, from its arguments, for a function that can make more entries than
    # its first argument has; None for the others (elementwise, reductions, reshapes, ...).
    makes: Callable[..., Shape] | None = None

    def arity(self) -> str:
        """The argument count in words ("1", "1 to 2")."""
        return str(self.min_args) if self.min_args == self.max_args else f"{self.min_args} to {self.max_args}"


def _size(*dims: Any) -> Shape:
    shape = tuple(int(d) for d in (np.ravel(dims) if dims else ()))
    if any(d < 0 for d in shape):
        raise VocabularyError(f"an array cannot have the shape {shape}")
    return bounded(shape, "the sizes given")


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
    count = np.asarray(n)
    if count.ndim != 0 or count.dtype == bool or not float(count).is_integer():
        # An instructor passing the score matrix itself is the likely slip; say what to pass instead.
        raise VocabularyError("causal_mask(n) takes the number of tokens, a whole number "
                              "(for a score matrix S, causal_mask(size(S[0])))")  # fmt: skip
    return causal_mask(_size(n, n)[0])


def _layer_norm(x: Any, eps: float = LN_EPS) -> np.ndarray:
    return layer_norm(np.asarray(x, dtype=float), eps=float(eps))


def _reduce(name: str) -> Function:
    method = getattr(np, name)
    return Function(lambda x, axis=None, keepdims=False: method(np.asarray(x), axis=axis, keepdims=bool(keepdims)),
                    1, 1, ("axis", "keepdims"))  # fmt: skip


def _elementwise(run: Callable[[Any], Any]) -> Function:
    return Function(run, 1, 1)


def _concat(*parts: Any, axis: int = 0) -> np.ndarray:
    return np.concatenate([np.atleast_1d(np.asarray(p)) for p in parts], axis=axis)


def _concat_makes(*parts: Any, axis: int = 0) -> Shape:
    return (sum(max(1, int(np.size(p))) for p in parts),)  # the entry count is what is bounded


def _outer_makes(a: Any, b: Any) -> Shape:
    return (int(np.size(a)), int(np.size(b)))


FUNCTIONS: dict[str, Function] = {
    **{name: _elementwise(getattr(np, name)) for name in ("sqrt", "exp", "log", "log2", "log10", "tanh", "sin",
                                                           "cos", "abs", "floor", "ceil", "sign")},
    "erf": _elementwise(np.vectorize(math.erf, otypes=[float])),
    "sigmoid": _elementwise(lambda x: 0.5 * (1.0 + np.tanh(0.5 * np.asarray(x, dtype=float)))),
    "relu": _elementwise(relu), "silu": _elementwise(silu), "gelu": _elementwise(gelu_tanh),
    "gelu_erf": _elementwise(gelu_erf),
    **{name: _reduce(name) for name in ("sum", "mean", "var", "std", "max", "min", "argmax", "argmin", "prod")},
    "maximum": Function(np.maximum, 2, 2, makes=broadcast_shape),
    "minimum": Function(np.minimum, 2, 2, makes=broadcast_shape),
    "where": Function(np.where, 3, 3, makes=broadcast_shape),
    "round": Function(lambda x, n=0: np.round(x, int(n)), 1, 2),
    "softmax": Function(lambda x, axis=-1: softmax(x, axis=axis), 1, 1, ("axis",)),
    "layer_norm": Function(_layer_norm, 1, 1, ("eps",)),
    "rms_norm": Function(lambda x, eps=1e-6: rms_norm(x, eps=eps), 1, 1, ("eps",)),
    "causal_mask": Function(_mask, 1, 1),
    "matmul": Function(np.matmul, 2, 2, makes=matmul_shape), "transpose": Function(np.transpose, 1, 1),
    "outer": Function(np.outer, 2, 2, makes=_outer_makes),
    "reshape": Function(_reshape, 2, 4), "concat": Function(_concat, 1, 8, ("axis",), makes=_concat_makes),
    "ones": Function(_filled(np.ones), 1, 2), "zeros": Function(_filled(np.zeros), 1, 2),
    "eye": Function(_eye, 1, 1), "arange": Function(_arange, 1, 2),
    "nonzero": Function(lambda x: np.flatnonzero(np.asarray(x)), 1, 1),
    "size": Function(lambda x: int(np.size(x)), 1, 1),
}  # fmt: skip
