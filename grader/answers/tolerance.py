"""The one tolerance rule every numeric answer is checked with.

A part has one tolerance: absolute (`abs`), relative (`rel`), significant figures (`sigfigs`) or
`exact`. For an expected value v it gives a half-width w(v):

    abs t      ->  w = t
    rel r      ->  w = r * |v|
    sigfigs n  ->  w = half a unit in the n-th significant figure of v
    exact      ->  w = 0

The accepted interval is the hull of every acceptable route to the answer (the exact value and each
lesson hand path, which rounds intermediates the way the page does), widened by w on both sides.
An answer is correct when it lies in that interval.

The same half-width sets the precision a learner must type: an answer whose last typed digit is
coarser than 2w (e.g. "0.64" when 3 decimals are needed) is invalid and asks for more digits.
Integers ("exact") must be typed to the unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from grader.texts import Text, say, say_n

ToleranceKind = Literal["abs", "rel", "sigfigs", "exact"]

# Float noise allowance when comparing typed decimals against interval ends.
_SLACK = 1e-9


@dataclass(frozen=True)
class Tolerance:
    """A tolerance of one kind and size."""

    kind: ToleranceKind
    value: float = 0.0

    def half_width(self, expected: np.ndarray) -> np.ndarray:
        """Half-width of the accepted band around each expected entry."""
        expected = np.asarray(expected, dtype=float)
        if self.kind == "abs":
            return np.full_like(expected, self.value)
        if self.kind == "rel":
            return self.value * np.abs(expected)
        if self.kind == "sigfigs":
            return 0.5 * sigfig_unit(expected, int(self.value))
        return np.zeros_like(expected)

    def coarsest_resolution(self, expected: np.ndarray, integral: bool) -> np.ndarray:
        """The coarsest place value a learner may type for each expected entry.

        An exact real answer sets no precision (it has nothing to round); an exact integer
        must be typed to the unit.
        """
        if self.kind == "exact" and not integral:
            return np.full_like(np.asarray(expected, dtype=float), np.inf)
        return np.maximum(2.0 * self.half_width(expected), 1.0 if integral else 0.0)

    def describe(self) -> Text:
        """A short human description, e.g. '±0.0005' or '3 significant figures'."""
        if self.kind == "abs":
            return say("±%(width)s", width=_short(self.value))
        if self.kind == "rel":
            return say("±%(percent)s %%", percent=_short(self.value * 100))
        if self.kind == "sigfigs":
            return say_n("%(num)d significant figure", "%(num)d significant figures", int(self.value))
        return say("exact")


def _short(value: float) -> str:
    return format(value, "g")


def sigfig_unit(value: np.ndarray, figures: int) -> np.ndarray:
    """Place value of the `figures`-th significant figure of each entry (zero counts as 1)."""
    magnitude = np.abs(np.asarray(value, dtype=float))
    safe = np.where(magnitude > 0, magnitude, 1.0)
    return 10.0 ** (np.floor(np.log10(safe)) - figures + 1)


@dataclass(frozen=True)
class Bands:
    """Accepted intervals [low, high], one per entry of an answer."""

    low: np.ndarray
    high: np.ndarray

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Per entry: does the value lie in its band (allowing for float noise)?"""
        slack = _SLACK * np.maximum(1.0, np.maximum(np.abs(self.low), np.abs(self.high)))
        return (self.low - slack <= values) & (values <= self.high + slack)

    def disjoint_from(self, other: Bands) -> np.ndarray:
        """Per entry: do the two bands share no point?"""
        return (self.high < other.low) | (other.high < self.low)


def bands(routes: np.ndarray, tolerance: Tolerance, scale: np.ndarray | None = None) -> Bands:
    """Hull of the routes (axis 0; routes[0] is exact), widened by the tolerance.

    The width is measured at `scale` (the right answer, for a mistake's bands), so every band of
    a part is as wide as the precision the learner was asked for; by default at routes[0].
    """
    width = tolerance.half_width(routes[0] if scale is None else scale)
    return Bands(routes.min(axis=0) - width, routes.max(axis=0) + width)


def too_coarse(resolution: np.ndarray, expected: np.ndarray, tolerance: Tolerance, integral: bool) -> np.ndarray:
    """Per entry: was it typed with fewer digits than the part needs?"""
    return typed_too_coarse(resolution, tolerance.coarsest_resolution(expected, integral))


def typed_too_coarse(resolution: np.ndarray, coarsest: np.ndarray) -> np.ndarray:
    """Per entry: is the typed place value coarser than the coarsest one allowed?"""
    return np.asarray(resolution) > coarsest * (1.0 + 1e-6)


def digits_request(expected: np.ndarray, tolerance: Tolerance, integral: bool) -> Text:
    """The learner-facing request for more digits."""
    if integral:
        return say("give the exact whole number, not a rounded one (e.g. 41,943,040 rather than 41.9M)")
    if tolerance.kind == "sigfigs":
        return say_n("give at least %(num)d significant figure", "give at least %(num)d significant figures",
                     int(tolerance.value))  # fmt: skip
    finest = float(np.min(tolerance.coarsest_resolution(expected, integral)))
    decimals = max(0, math.ceil(-math.log10(finest) - 1e-9)) if finest > 0 else 6
    return say_n("give at least %(num)d decimal place", "give at least %(num)d decimal places", decimals)
