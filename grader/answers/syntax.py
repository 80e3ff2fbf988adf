"""Render values in every syntax the parsers accept, for round-trip self-checks and UI hints.

Contract: for every kind and every name in syntaxes(kind), parsing render(kind, value, name) with
PARSERS[kind] gives the value back -- the value rounded to `decimals` places for real numbers
(compared exactly, as floats), exactly for integers (|n| <= 2**53), shapes and index sets.
Vectors may be empty; matrices need at least one row and one column.

Decimal-comma renderers write numbers the way learners write them ('0,911', '−1,239', '12,5'),
with a U+2212 minus.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

from grader.answers.numbers import parse_fraction, parse_integer, parse_number, small_count
from grader.answers.structures import parse_index_set, parse_matrix, parse_shape, parse_vector
from grader.texts import N_

T = TypeVar("T")
MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_SCALES = ((12, "T", "trillion"), (9, "B", "billion"), (6, "M", "million"), (3, "k", "thousand"))


def _rounded(value: float, decimals: int) -> Decimal:
    if not math.isfinite(value) or decimals < 0:
        raise ValueError(f"cannot render {value!r} with {decimals} decimals")
    rounded = Decimal(f"{value:.{decimals}f}")
    return rounded.copy_abs() if rounded.is_zero() else rounded  # no '-0.000'


def _shift(number: Decimal, places: int) -> Decimal:
    """Multiply by 10**places exactly (Decimal.scaleb would round to the context precision)."""
    sign, digits, exponent = number.as_tuple()
    assert isinstance(exponent, int)
    return Decimal((sign, digits, exponent + places))


def _parts(number: Decimal) -> tuple[bool, str, str]:
    whole, _, frac = format(number.copy_abs(), "f").partition(".")
    return number < 0, whole, frac


def _join(negative: bool, whole: str, frac: str, minus: str = "-") -> str:
    body = f"{whole}.{frac}" if frac else whole
    return minus + body if negative else body


def _comma_join(negative: bool, whole: str, frac: str) -> str:
    body = f"{whole},{frac}" if frac else whole
    return MINUS + body if negative else body


def _scientific(value: float, decimals: int) -> tuple[bool, str, str, int]:
    """Sign, leading digit, further digits and exponent, keeping the last digit at 10**-decimals."""
    rounded = _rounded(value, decimals)
    digits = "".join(map(str, rounded.as_tuple().digits)).lstrip("0")
    if not digits:
        return False, "0", "0" * decimals, 0
    return rounded < 0, digits[0], digits[1:], len(digits) - 1 - decimals


def _suffixed(value: float, decimals: int) -> str:
    rounded = _rounded(value, decimals)
    for power, unit, _ in _SCALES:
        if rounded.copy_abs() >= Decimal(10) ** power:
            return _join(*_parts(_shift(rounded, -power))) + unit
    return _join(*_parts(rounded))


def _sci(
    joiner: Callable[[bool, str, str], str], tail: Callable[[int], str]
) -> Callable[[float, int], str]:
    def render(value: float, decimals: int) -> str:
        negative, lead, rest, exponent = _scientific(value, decimals)
        return joiner(negative, lead, rest) + tail(exponent)

    return render


def _plus(value: float, decimals: int) -> str:
    written = _join(*_parts(_rounded(value, decimals)))
    return written if written.startswith("-") else "+" + written


def _ratio(value: float, decimals: int) -> str:
    exact = Fraction(_rounded(value, decimals))
    return f"{exact.numerator}/{exact.denominator}"


NUMBER_SYNTAXES: dict[str, Callable[[float, int], str]] = {
    "point": lambda v, n: _join(*_parts(_rounded(v, n))),
    "comma": lambda v, n: _comma_join(*_parts(_rounded(v, n))),
    "unicode-minus": lambda v, n: _join(*_parts(_rounded(v, n)), minus=MINUS),
    "plus-sign": _plus,
    "e-notation": _sci(_join, lambda e: f"e{e}"),
    "times-ten": _sci(_join, lambda e: f"×10^{e}"),
    "star-caret": _sci(_join, lambda e: f"*10^({e})"),
    "superscript": _sci(_comma_join, lambda e: "·10" + str(e).translate(_SUPERSCRIPT)),
    "suffix": _suffixed,
    "percent": lambda v, n: _join(*_parts(_shift(_rounded(v, n), 2))) + " %",
    "percent-comma": lambda v, n: _comma_join(*_parts(_shift(_rounded(v, n), 2))) + " %",
    "ratio": _ratio,
}
_SCALAR = ["point", "comma", "unicode-minus", "plus-sign", "e-notation", "times-ten", "star-caret",
           "superscript", "suffix"]
_FRACTION = ["point", "comma", "percent", "percent-comma", "ratio"]

# name -> (opening, separator, closing, number syntax)
_VECTORS = {
    "semicolon-brackets": ("[", "; ", "]", "point"),
    "parens-commas": ("(", ", ", ")", "point"),
    "spaces": ("", " ", "", "point"),
    "commas": ("", ", ", "", "point"),
    "decimal-comma-semicolons": ("[", "; ", "]", "comma"),
    "decimal-comma-spaces": ("", " ", "", "comma"),
}
# name -> (outer opening, row opening, entry separator, row closing, row separator,
#          outer closing, number syntax)
_MATRICES = {
    "newlines": ("", "", " ", "", "\n", "", "point"),
    "semicolons": ("", "", ", ", "", "; ", "", "point"),
    "nested": ("[", "[", ", ", "]", ", ", "]", "point"),
    "matlab": ("[", "", " ", "", "; ", "]", "point"),
    "decimal-comma-newlines": ("", "", " ", "", "\n", "", "comma"),
    "decimal-comma-nested": ("[", "[", " ", "]", "; ", "]", "comma"),
}
_INTEGER_SEPARATORS: dict[str, str | None] = {"plain": None, "commas": ",", "spaces": " ", "thin-spaces": "\u2009",
                       "nbsp": "\u00a0", "apostrophes": "'"}
_INTEGERS = [*_INTEGER_SEPARATORS, "suffix", "words"]
_SHAPES = {"parens": ("(", ", ", ")"), "brackets": ("[", ", ", "]"), "bare": ("", ", ", ""),
           "times": ("", "×", ""), "x": ("", "x", ""), "spaced-x": ("", " x ", "")}
_INDEX_SETS = {"braces": ("{", ", ", "}", "{}"), "tight-braces": ("{", ",", "}", "{}"),
               "bare": ("", ", ", "", "∅"), "brackets": ("[", " ", "]", "[]")}


def _pick(table: dict[str, T], syntax: str, kind: str) -> T:
    if syntax not in table:
        raise ValueError(f"unknown {kind} syntax {syntax!r}; choose from {sorted(table)}")
    return table[syntax]


def render_number(value: float, decimals: int, syntax: str) -> str:
    """Write a real number rounded to `decimals` places in the named syntax."""
    return _pick(NUMBER_SYNTAXES, syntax, "number")(value, decimals)


def render_vector(values: Sequence[float], decimals: int, syntax: str) -> str:
    """Write a list of numbers in the named syntax ('[]' when empty)."""
    opening, separator, closing, numbers = _pick(_VECTORS, syntax, "vector")
    if not values:
        return "[]"
    return opening + separator.join(render_number(v, decimals, numbers) for v in values) + closing


def render_matrix(rows: Sequence[Sequence[float]], decimals: int, syntax: str) -> str:
    """Write a non-empty matrix in the named syntax."""
    style = _pick(_MATRICES, syntax, "matrix")
    outer, row_open, sep, row_close, row_sep, outer_close, numbers = style
    if not rows or not all(rows):
        raise ValueError("a matrix needs at least one row and one column")
    written = [row_open + sep.join(render_number(v, decimals, numbers) for v in row) + row_close
               for row in rows]
    return outer + row_sep.join(written) + outer_close


def _integer_suffix(value: int, words: bool) -> str:
    sign, digits = ("-" if value < 0 else ""), str(abs(value))
    for power, unit, word in _SCALES:
        if abs(value) >= 10**power:
            # Every digit down to the unit: a whole number typed with a suffix must reach it.
            body = f"{digits[:-power]}.{digits[-power:]}"
            return sign + body + (f" {word}" if words else unit)
    return str(value)


def render_integer(value: int, syntax: str) -> str:
    """Write a whole number in the named syntax, exactly."""
    value = operator.index(value)  # refuse floats: '41,943,040.0' would not be an integer
    if syntax in ("suffix", "words"):
        return _integer_suffix(value, syntax == "words")
    separator = _pick(_INTEGER_SEPARATORS, syntax, "integer")
    if separator is None:
        return str(value)
    grouped = f"{abs(value):,}".replace(",", separator)
    minus = MINUS if separator in ("\u2009", "\u00a0") else "-"
    return minus + grouped if value < 0 else grouped


def render_shape(shape: Sequence[int], syntax: str) -> str:
    """Write a shape in the named syntax; the scalar shape () is '()' in every syntax."""
    opening, separator, closing = _pick(_SHAPES, syntax, "shape")
    if not shape:
        return "()"
    if syntax == "parens" and len(shape) == 1:
        return f"({shape[0]},)"
    return opening + separator.join(map(str, shape)) + closing


def render_index_set(indices: Sequence[int] | frozenset[int], syntax: str) -> str:
    """Write a set of indices in ascending order in the named syntax."""
    opening, separator, closing, empty = _pick(_INDEX_SETS, syntax, "index-set")
    if not indices:
        return empty
    return opening + separator.join(map(str, sorted(indices))) + closing


_SYNTAXES: dict[str, list[str]] = {
    "scalar": _SCALAR,
    "fraction": _FRACTION,
    "vector": list(_VECTORS),
    "matrix": list(_MATRICES),
    "integer": _INTEGERS,
    "shape": list(_SHAPES),
    "index-set": list(_INDEX_SETS),
}
PARSERS: dict[str, Callable[[str], Any]] = {
    "scalar": parse_number,
    "fraction": parse_fraction,
    "vector": parse_vector,
    "matrix": parse_matrix,
    "integer": parse_integer,
    "shape": parse_shape,
    "index-set": parse_index_set,
}
# Shown next to each field; the pages show them translated (N_ marks them for extraction).
_HINTS = {
    "scalar": N_("a number, e.g. −1.239, −1,239 (decimal comma), 1.2e-3 or 1,2·10⁻³"),
    "fraction": N_("a fraction, decimal or percentage, e.g. 2/3, 0.667, 0,667 or 66.7 %"),
    "vector": N_("numbers, e.g. [−1.239; 0.911; −1.021; 0.980] — decimal comma allowed; "
                 "separate with ';' when you use decimal commas"),
    "matrix": N_("one row per line or rows separated by ';', e.g. [[1, 2], [3, 4]] or 1 2; 3 4 — "
                 "with decimal commas separate entries by spaces: [[0,5 1,2]; [0,3 0,4]]"),
    "integer": N_("the exact whole number, e.g. 41943040, 41,943,040 or 41 943 040"),
    "shape": N_("the sizes of each dimension, e.g. (2, 5, 4) or 2×5×4; (5,) for one dimension"),
    "index-set": N_("indices numbered as in the question, e.g. {1, 3}; {} for none"),
}

# For a count below 1000: no thousands groups to show, and no example that could be its answer.
_SMALL_COUNT_HINT = N_("a whole number, written in digits")


def syntaxes(kind: str) -> list[str]:
    """Names of every syntax renderable (and accepted) for a kind of answer."""
    names: list[str] = _pick(_SYNTAXES, kind, "answer kind")
    return list(names)


def render(kind: str, value: Any, syntax: str, decimals: int = 3) -> str:
    """Write a value of the given kind in the named syntax."""
    return _pick(_RENDERERS, kind, "answer kind")(value, decimals, syntax)


_RENDERERS: dict[str, Callable[[Any, int, str], str]] = {
    "scalar": render_number,
    "fraction": render_number,
    "vector": render_vector,
    "matrix": render_matrix,
    # Whole numbers, shapes and index sets are written in full: decimals do not apply.
    "integer": lambda value, _decimals, syntax: render_integer(value, syntax),
    "shape": lambda value, _decimals, syntax: render_shape(value, syntax),
    "index-set": lambda value, _decimals, syntax: render_index_set(value, syntax),
}


def syntax_hint(kind: str, exact: Any = None) -> str:
    """A short description of what learners may type for a kind of answer, for the UI.

    Given the part's answer `exact`, the hint fits it: a count of 3 is not shown how to group
    the digits of 41 943 040. (Whether a count is below 1000 is all that it tells.)
    """
    if kind == "integer" and exact is not None and small_count(float(exact)):
        return _SMALL_COUNT_HINT
    return _pick(_HINTS, kind, "answer kind")
