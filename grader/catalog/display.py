"""Write parameter and reference values into prompts and worked solutions, in each language's notation."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from grader.answers.kinds import KINDS, NumericKind
from grader.catalog.plurals import put_words
from grader.catalog.fields import PartSpec
from grader.catalog.spec import PLACEHOLDER, ExerciseSpec

MINUS = "\u2212"
QUANTITY_DECIMALS = 3  # the digits prompts and worked solutions print a computed quantity to
# Inline and display math, as the Markdown renderer (markdown-it's dollarmath) delimits it: an escaped
# \$ is a dollar sign, and inline math does not run past a blank line.
MATH_SPAN = re.compile(r"(?<!\\)\$\$.*?(?<!\\)\$\$|(?<!\\)\$(?:[^$\n]|\n(?!\s*\n))+?(?<!\\)\$", re.S)


@dataclass(frozen=True)
class Notation:
    """How a language writes numbers: its decimal mark, its thousands separator, and what parts a matrix row's entries."""

    decimal: str
    thousands: str
    entries: str
    minus: str = MINUS

    def in_math(self) -> Notation:
        """The same notation as LaTeX: a bare ',' would be spaced as punctuation, a bare space dropped."""
        return replace(self, decimal="{,}" if self.decimal == "," else self.decimal, thousands=r"\,",
                       entries=r"\;" if self.entries == " " else self.entries, minus="-")  # fmt: skip


ENGLISH = Notation(".", ",", ", ")
# Portuguese and Russian write 0,911; a comma between a row's entries would then be ambiguous, so
# entries are parted by spaces (which the parsers accept), and thousands by a narrow no-break space.
DECIMAL_COMMA = Notation(",", "\u202f", " ")
NOTATIONS = {"pt": DECIMAL_COMMA, "ru": DECIMAL_COMMA}


def notation(locale: str) -> Notation:
    """The notation learners reading `locale` expect (English for any language not listed)."""
    return NOTATIONS.get(locale, ENGLISH)


def _number(value: float, decimals: int, style: Notation) -> str:
    text = f"{value:.{decimals}f}"
    if re.fullmatch(r"-0\.?0*", text):
        text = text[1:]  # no "negative zero" after rounding
    return text.replace("-", style.minus).replace(".", style.decimal)


def _integer(value: int, style: Notation) -> str:
    text = f"{abs(value):,}".replace(",", style.thousands) if abs(value) >= 100_000 else str(abs(value))
    return style.minus + text if value < 0 else text


def show(value: Any, decimals: int = 3, style: Notation = ENGLISH) -> str:
    """A value as the learner reads it: 0.911, [−1.239; 0.911], (2, 5, 4), {1, 3}, 2/3 (0,911 with a decimal comma)."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (frozenset, set)):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return _integer(int(value), style)
    array = np.asarray(value, dtype=float)
    if np.all(array == np.round(array)):
        decimals = 0  # whole numbers read as 4 and −12, not 4.000 (which a decimal-comma reader takes for 4000)
    if array.ndim == 0:
        return _number(float(array), decimals, style)
    if array.ndim == 1:
        return "[" + "; ".join(_number(v, decimals, style) for v in array) + "]"
    rows = (style.entries.join(_number(v, decimals, style) for v in row) for row in array)
    return "[" + "; ".join(rows) + "]"


def figures_decimals(value: Any, figures: int, otherwise: int) -> int:
    """The decimals that print `value` to `figures` significant figures (11.34 to 3: 1, as 11.3), judged by
    its largest entry; `otherwise` for a value that is no real number or is zero."""
    try:
        magnitude = np.abs(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        return otherwise
    finite = magnitude[np.isfinite(magnitude) & (magnitude > 0)]
    if not finite.size:
        return otherwise
    return max(0, figures - 1 - int(np.floor(np.log10(finite.max()))))


def fill(template: str, shown: Mapping[str, str], in_math: Mapping[str, str] | None = None, locale: str = "en") -> str:
    """Replace each {{name}} with its shown value, inside $…$ math with its `in_math` form when given, and each
    plural {{name|one:…|other:…}} with the word `locale`'s rules pick for that value (grader.catalog.plurals)."""
    math = shown if in_math is None else in_math
    template = put_words(template, shown, notation(locale).decimal, locale)
    pieces, start = [], 0
    for span in MATH_SPAN.finditer(template):
        pieces += [_put(template[start : span.start()], shown), _put(span.group(), math)]
        start = span.end()
    return "".join([*pieces, _put(template[start:], shown)])


def _put(text: str, values: Mapping[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def has_reach(part: PartSpec) -> bool:
    """Real-valued parts get a route interval; counts, shapes and index sets are exact."""
    kind = KINDS[part.type]
    return isinstance(kind, NumericKind) and not kind.integral


def asked_figures(spec: ExerciseSpec) -> int | None:
    """The significant figures every real-valued part asks for, when they all ask for the same (else None)."""
    asked = {p.tolerance.sigfigs for p in spec.parts if has_reach(p)}
    return asked.pop() if len(asked) == 1 else None


def quantity_decimals(spec: ExerciseSpec, quantities: Mapping[str, Any]) -> dict[str, int]:
    """The decimals each quantity is printed to: QUANTITY_DECIMALS, or the precision asked where every
    real-valued part asks for significant figures (11.3, not 11.340, where 3 are asked)."""
    figures = asked_figures(spec)
    if figures is None:
        return {name: QUANTITY_DECIMALS for name in quantities}
    return {name: figures_decimals(value, figures, QUANTITY_DECIMALS) for name, value in quantities.items()}
