"""What a learner's function returned, checked inside the sandbox before it is sent out.

A value the host's decoder would refuse becomes one case's bad_result here, with a message the
learner can act on, instead of a crashed job. Copied into the runtime beside codec.py, like
runner.py (stdlib + numpy only).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from . import codec
except ImportError:  # inside the sandbox this file is a top-level module beside codec.py
    import codec  # type: ignore[import-not-found, no-redef]

MAX_VALUE_DEPTH = 16
# The host decodes one case's frame with at most this many bytes (Limits.result_bytes).
DEFAULT_MAX_BYTES = 64 * 2**20


class BadResult(Exception):
    """The function returned something that may not leave the sandbox."""


def check_value(value: Any, depth: int = 0, max_bytes: int = DEFAULT_MAX_BYTES) -> Any:
    """Return `value` in a form the codec carries, or raise BadResult saying what is wrong.

    Arrays are held to the host decoder's own limits (codec.shape_problem, and `max_bytes` per
    array), so a value the host would refuse is one case's bad_result, not a crashed job.
    """
    if depth > MAX_VALUE_DEPTH:
        raise BadResult(f"the result is nested more than {MAX_VALUE_DEPTH} levels deep")
    kind = type(value)
    if kind is bool or kind is float:
        return value
    if kind is int:
        if not codec.INT64_MIN <= value <= codec.INT64_MAX:
            raise BadResult("an integer in the result does not fit in 64 bits")
        return value
    if kind is np.ndarray:
        return _check_array(value, max_bytes)
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        # Explicit conversions: .item() keeps np.longdouble as it is.
        code = value.dtype.kind
        plain = bool(value) if code == "b" else float(value) if code == "f" else int(value)
        return check_value(plain, depth + 1, max_bytes)
    if isinstance(value, np.ndarray):
        raise BadResult(f"returned a {kind.__name__} (an ndarray subclass); return np.ndarray")
    if kind is list or kind is tuple:
        items = [check_value(item, depth + 1, max_bytes) for item in value]
        return items if kind is list else tuple(items)
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise BadResult("dict keys in the result must be strings")
        return {key: check_value(item, depth + 1, max_bytes) for key, item in value.items()}
    if value is None:
        raise BadResult("the function returned None (is a `return` missing?)")
    raise BadResult(f"returned a {kind.__name__}; expected a numpy array, a number, "
                    "or a list, tuple or dict of those")


def _check_array(array: np.ndarray[Any, Any], max_bytes: int) -> np.ndarray[Any, Any]:
    """`array` in a wire dtype, or BadResult if the host's decoder would refuse it."""
    kind = array.dtype.kind
    if kind == "O":
        raise BadResult("object arrays are not allowed; return numbers")
    wire = codec.wire_dtype(array.dtype)
    if wire is None and kind not in "fiu":
        raise BadResult(f"arrays of dtype {array.dtype} are not allowed; use float64")
    problem = codec.shape_problem(array.shape)
    if problem is not None:
        raise BadResult(f"returned {problem}")
    # Other floats and integers go as float64 and int64: 8 bytes an item on the wire.
    nbytes = array.size * (codec.ALLOWED_DTYPES[wire].itemsize if wire else 8)
    if nbytes > max_bytes:
        raise BadResult(f"the result is too large: an array of {nbytes} bytes, over the "
                        f"{max_bytes} bytes allowed")
    if wire is not None:
        return array
    if kind == "f":
        return array.astype(np.float64)
    if array.size and array.max() > codec.INT64_MAX:  # an "i" or "u" array from here on
        raise BadResult("an integer in the result does not fit in 64 bits")
    return array.astype(np.int64)
