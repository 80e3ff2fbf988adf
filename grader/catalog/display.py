"""Write parameter and reference values into prompts and worked solutions."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Mapping

import numpy as np

from grader.catalog.spec import PLACEHOLDER

MINUS = "\u2212"


def _number(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}"
    if re.fullmatch(r"-0\.?0*", text):
        text = text[1:]  # no "negative zero" after rounding
    return text.replace("-", MINUS)


def _integer(value: int) -> str:
    return f"{value:,}" if abs(value) >= 100_000 else str(value)


def show(value: Any, decimals: int = 3) -> str:
    """A value as the learner reads it: 0.911, [−1.239; 0.911], (2, 5, 4), {1, 3}, 2/3."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, (frozenset, set)):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return _integer(int(value))
    array = np.asarray(value, dtype=float)
    if array.ndim == 0:
        return _number(float(array), decimals)
    if array.ndim == 1:
        return "[" + "; ".join(_number(v, decimals) for v in array) + "]"
    return "[" + "; ".join(", ".join(_number(v, decimals) for v in row) for row in array) + "]"


def fill(template: str, values: Mapping[str, str]) -> str:
    """Replace each {{name}} with its shown value."""
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], template)
