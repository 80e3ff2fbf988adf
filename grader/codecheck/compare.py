"""Compare one output of a learner's function with an expected one, and say what differs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping

import numpy as np

from grader.texts import Text, joined, say

MismatchKind = Literal["type", "dtype", "shape", "keys", "nonfinite", "values", "changed"]

# What a hidden case may say: no shapes, no numbers, nothing derived from its inputs.
HIDDEN_MESSAGES: dict[MismatchKind, Text] = {
    "type": say("The output has the wrong type."),
    "dtype": say("The output has the wrong dtype."),
    "shape": say("The output has the wrong shape."),
    "keys": say("The output dict lacks some of the required keys."),
    "nonfinite": say("The output contains NaN or infinity where finite values are expected."),
    "values": say("The output's values are wrong."),
    "changed": say("The output is right, but an argument is not left as it should be after the call."),
}
DTYPE_KINDS = {"b": say("boolean"), "c": say("complex"), "O": say("object"), "U": say("text"), "S": say("bytes")}
ARRAY_LIKE = (np.ndarray, np.generic, int, float, list, tuple)
SHORT_CHARS = 160


@dataclass(frozen=True)
class Mismatch:
    """Why an output is not the expected one; `detail` may quote values (visible cases only)."""

    kind: MismatchKind
    said: Text | Callable[[], Text]  # a function when saying it costs more than finding it

    @property
    def detail(self) -> Text:
        """The sentence saying what differs."""
        return self.said() if callable(self.said) else self.said


@dataclass(frozen=True)
class WithChanges:
    """What a call returns and the state it leaves the arguments it changes in place in."""

    returned: Any
    after: Mapping[str, Any]


def compare(expected: Any, got: Any, rtol: float, atol: float) -> Mismatch | None:
    """None when `got` matches `expected` within tolerance (NaN matches NaN), else the mismatch."""
    if isinstance(expected, WithChanges):
        return _compare_with_changes(expected, got, rtol, atol)
    if isinstance(expected, Mapping):
        return _compare_dict(expected, got, rtol, atol)
    return _compare_array(np.asarray(expected), got, rtol, atol)


def _compare_with_changes(expected: WithChanges, got: Any, rtol: float, atol: float) -> Mismatch | None:
    if isinstance(got, WithChanges):  # another reference-side value, say a mutant's
        got = {"returned": got.returned, "after": got.after}
    if not isinstance(got, Mapping) or not isinstance(got.get("after"), Mapping) or "returned" not in got:
        return Mismatch("type", say("The sandbox's report of this call is malformed."))
    mismatch = compare(expected.returned, got["returned"], rtol, atol)
    if mismatch is not None:
        return mismatch
    for name, want in expected.after.items():
        wrong = compare(np.asarray(want), got["after"].get(name), rtol, atol)
        if wrong is not None:
            return Mismatch("changed", say("The output is right, but %(name)s is not left as it should be after "
                                           "the call: %(detail)s", name=name, detail=wrong.detail))  # fmt: skip
    return None


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def _as_array(got: Any) -> np.ndarray | Mismatch:
    """The output as a numeric array, or why it cannot be one."""
    if got is None:
        return Mismatch("type", say("Expected a numpy array, got None: does the function return it?"))
    if isinstance(got, (bool, np.bool_)) or not isinstance(got, ARRAY_LIKE):
        return Mismatch("type", say("Expected a numpy array, got %(type)s.", type=_type_name(got)))
    if isinstance(got, tuple) and any(isinstance(item, np.ndarray) for item in got):
        return Mismatch("type", say("Expected one numpy array, got a tuple of %(num)d items: return only the "
                                    "output asked for.", num=len(got)))  # fmt: skip
    try:
        arr = np.asarray(got)
    except (ValueError, TypeError):
        return Mismatch("type", say("Expected a numpy array, got a ragged nested list."))
    if arr.dtype.kind not in "iuf":
        kind = DTYPE_KINDS.get(arr.dtype.kind, arr.dtype.kind)
        return Mismatch("dtype", say("Expected real numbers, got an array of %(kind)s dtype.", kind=kind))
    return arr


def _compare_array(expected: np.ndarray, got: Any, rtol: float, atol: float) -> Mismatch | None:
    arr = _as_array(got)
    if isinstance(arr, Mismatch):
        return arr
    if arr.shape != expected.shape:
        return Mismatch("shape", say("Expected shape %(expected)s, got %(got)s.", expected=str(expected.shape),
                                     got=str(arr.shape)))  # fmt: skip
    bad = ~np.isfinite(arr) & np.isfinite(expected)
    if bad.any():
        return Mismatch("nonfinite", say(
            "NaN or inf in %(bad)d of %(size)d entries (first at index %(first)s) where the expected values are finite.",
            bad=int(bad.sum()), size=arr.size, first=_index(np.argwhere(bad)[0])))  # fmt: skip
    if np.allclose(arr, expected, rtol=rtol, atol=atol, equal_nan=True):
        return None
    # Only a visible case's verdict says where and by how much (quoting arrays costs more than
    # comparing them); hidden cases and the search for a named mistake only need the kind.
    def detail() -> Text:
        said = _values_detail(expected, arr.astype(float), rtol, atol)
        return joined([said, FLOAT32], " ") if arr.dtype == np.float32 else said

    return Mismatch("values", detail)


def _index(position: Any) -> str:
    return "[" + ", ".join(str(int(i)) for i in position) + "]"


def _excess(expected: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's absolute error and how many times the allowed error it is (0 within tolerance)."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        error = np.abs(got - expected)
        allowed = atol + rtol * np.abs(expected)
        # Equal infinities and paired NaNs are no error; a NaN against a number is the worst one.
        same = (got == expected) | (np.isnan(got) & np.isnan(expected))
        error = np.where(same, 0.0, np.nan_to_num(error, nan=np.inf))
        return error, np.nan_to_num(error / allowed, nan=0.0)


def worst_index(expected: Any, got: Any, rtol: float, atol: float) -> tuple[int, ...] | None:
    """Where an array output is furthest outside the tolerance; None when the two are not same-shaped arrays."""
    try:
        want, have = np.asarray(expected, dtype=float), np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return None
    if want.shape != have.shape or not want.ndim:
        return None
    excess = _excess(want, have, rtol, atol)[1]
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(excess)), excess.shape))


def _values_detail(expected: np.ndarray, got: np.ndarray, rtol: float, atol: float) -> Text:
    """The entry furthest outside the tolerance, by how much, and both arrays in short."""
    error, excess = _excess(expected, got, rtol, atol)
    allowed = atol + rtol * np.abs(expected)
    worst = np.unravel_index(int(np.argmax(excess)), excess.shape) if excess.ndim else ()
    values = {"error": _number(error[worst]), "allowed": _number(allowed[worst]), "want": _number(expected[worst]),
              "got": _number(got[worst])}  # fmt: skip
    if not excess.ndim:
        return say("Off by %(error)s where %(allowed)s is allowed: expected %(want)s, got %(got)s.", **values)
    if expected.size == 1:
        return say("Off by %(error)s at index %(where)s, where %(allowed)s is allowed: expected %(want)s, "
                   "got %(got)s.", where=_index(worst), **values)  # fmt: skip
    return say("Off by %(error)s at index %(where)s, where %(allowed)s is allowed: expected %(want)s, got %(got)s; "
               "expected %(want_all)s, got %(got_all)s.", where=_index(worst), want_all=_short(expected),
               got_all=_short(got), **values)  # fmt: skip


FLOAT32 = say("The output is float32, which keeps about 7 significant digits: compute in float64, numpy's "
              "default, to meet the tolerance.")


def _short(a: np.ndarray) -> str:
    # One edge item per axis beyond the first keeps a (3, 768) or (2, 5, 4) array readable.
    text = np.array2string(a, precision=4, suppress_small=True, threshold=6, separator=", ",
                           edgeitems=2 if a.ndim == 1 else 1, max_line_width=10**6)  # fmt: skip
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= SHORT_CHARS else text[: SHORT_CHARS - 1] + "…"


def _number(value: Any) -> str:
    x = _float(value)
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.6g}"


def _is_number(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, float, np.integer, np.floating))


def _float(value: Any) -> float:
    # A Python int beyond the float range is still a (wrong) number, not a crash.
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def _compare_dict(
    expected: Mapping[str, Any], got: Any, rtol: float, atol: float
) -> Mismatch | None:
    if not isinstance(got, Mapping):
        return Mismatch("type", say("Expected a dict with keys %(keys)s, got %(type)s.", keys=", ".join(expected),
                                    type=_type_name(got)))  # fmt: skip
    missing = [key for key in expected if key not in got]
    if missing:
        return Mismatch("keys", say("Missing keys: %(keys)s.", keys=", ".join(missing)))
    for key in expected:
        if not _is_number(got[key]):
            return Mismatch("type", say("The value of %(key)s is %(type)s, not a number.", key=repr(key),
                                        type=_type_name(got[key])))  # fmt: skip
        if not np.isfinite(_float(got[key])) and np.isfinite(_float(expected[key])):
            return Mismatch("nonfinite", say("The value of %(key)s is %(value)s.", key=repr(key), value=str(got[key])))
    pairs = {key: (_float(expected[key]), _float(got[key])) for key in expected}
    wrong = [k for k, (e, g) in pairs.items()
             if not np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)]  # fmt: skip
    if not wrong:
        return None
    largest = max(abs(pairs[key][1] - pairs[key][0]) for key in wrong)
    listed = joined([say("%(key)s: expected %(want)s, got %(got)s", key=k, want=_number(pairs[k][0]),
                         got=_number(pairs[k][1])) for k in wrong], "; ")  # fmt: skip
    return Mismatch("values", say("Largest absolute error %(error)s: %(listed)s.", error=_number(largest), listed=listed))
