"""The shape an operation will make, worked out from its operands' shapes before it runs, so that no formula
asks numpy for more than MAX_ELEMENTS entries, even for a moment.

`outer(arange(20000), arange(20000))` would take 3.2 GB before a check afterwards could refuse it, and a
`where()` over three broadcast operands can ask for terabytes; both are refused here instead, from their
shapes alone. Operations that never make more entries than they are given (elementwise functions,
reductions, indexing, transposes, reshapes) need no rule.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

MAX_ELEMENTS = 20_000  # entries in any array a formula makes


class VocabularyError(ValueError):
    """An operation refused for its arguments (a size too large, shapes that do not fit, ...)."""


def bounded(shape: tuple[int, ...], what: str) -> tuple[int, ...]:
    """`shape` when it has at most MAX_ELEMENTS entries; else VocabularyError saying what would make it."""
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        raise VocabularyError(f"{what} would make an array of shape {shape}, {count} entries: too large "
                              f"(at most {MAX_ELEMENTS})")  # fmt: skip
    return shape


def shape_of(value: Any) -> tuple[int, ...]:
    """The shape of a formula's value: an array's, or () for a number (without np.shape's conversion)."""
    return getattr(value, "shape", ())


def broadcast_shape(*operands: Any) -> tuple[int, ...]:
    """The shape elementwise operands broadcast to (ValueError when they do not fit together)."""
    return _broadcast([shape_of(o) for o in operands])


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    arrays = [s for s in shapes if s]
    if all(s == arrays[0] for s in arrays):  # numbers and arrays of one shape: no need of numpy's slower rule
        return arrays[0] if arrays else ()
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"shapes {', '.join(map(str, shapes))} do not fit together") from None


def matmul_shape(left: Any, right: Any) -> tuple[int, ...]:
    """The shape of `left @ right`, by numpy's rule (a vector on either side counts as a row or a column)."""
    a, b = shape_of(left), shape_of(right)
    if not a or not b:
        raise ValueError("@ and matmul() multiply arrays, not single numbers (use * for those)")
    rows = a if len(a) > 1 else (1, *a)
    columns = b if len(b) > 1 else (*b, 1)
    if rows[-1] != columns[-2]:
        raise ValueError(f"@ cannot multiply shapes {a} and {b}: {rows[-1]} columns against {columns[-2]} rows")
    batch = _broadcast([rows[:-2], columns[:-2]])
    # A vector operand's added axis is dropped again from the result, as numpy does.
    return (*batch, *(rows[-2:-1] if len(a) > 1 else ()), *(columns[-1:] if len(b) > 1 else ()))
