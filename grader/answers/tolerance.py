"""The one tolerance rule every numeric answer is checked with.

A part has one tolerance: absolute (`abs`), relative (`rel`), significant figures (`sigfigs`) or
`exact`. For an expected value v it gives a half-width w(v):

    abs t      ->  w = t
    rel r      ->  w = r * |v|
    sigfigs n  ->  w = half a unit in the n-th significant figure of v
    exact      ->  w = 0

The accepted interval is the hull of every acceptable route to the answer (the exact value and each
lesson hand path, which rounds intermediates the way the page does), widened by w on both sides.
An answer is correct when it lies in that interval; whole numbers are compared exactly. A named
mistake's interval is as wide as the answer's; under `sigfigs` also at least as wide as the
mistake's own figures (significant figures belong to the number written).

The same half-width sets the precision a learner must type: an answer whose last typed digit is
coarser than 2w (e.g. "0.64" when 3 decimals are needed) is invalid and asks for more digits.
Under `sigfigs` the typed number's own figures also count: "0.940" has 3, whatever the answer's
size. Integers ("exact") must be typed to the unit.

One exception (kinds.py): an answer that is exactly the expected value is correct however few
digits it has ("0.75" for 3/4, "60 %" for 0.6, "[4; -8; -4]" for whole numbers). Only the whole
answer exactly right passes: a short answer that is not the exact value is invalid with the same
request for digits as before, whichever entries are exact, so a free short guess learns nothing
but that it solved the part. In a vector or matrix with entries typed to the precision asked, an entry
typed "0" or "1" is that exact number (a causal mask's 0), not a short one, wherever it stands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from grader.answers.numbers import small_count
from grader.texts import Figure, Text, say, say_n

ToleranceKind = Literal["abs", "rel", "sigfigs", "exact"]

# Float noise allowance when comparing typed decimals against interval ends, relative to their size.
_SLACK = 1e-9
# Whole numbers below 2**53 are exact in float64, so counts need no relative allowance: one that
# grew with the value would accept 5,670,961,147 for 5,670,961,152. This absolute one only absorbs
# noise in the ends of a non-exact tolerance and stays far below a unit.
_INTEGRAL_SLACK = 1e-6
# Relative distance under which a typed value counts as the exact answer itself (float noise only).
_SAME = 1e-12


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
        must be typed to the unit. `fewer_digits_than_asked` adds what the typed number brings.
        """
        if self.kind == "exact" and not integral:
            return np.full_like(np.asarray(expected, dtype=float), np.inf)
        return np.maximum(2.0 * self.half_width(expected), 1.0 if integral else 0.0)

    def band_half_width(self, own: np.ndarray, answer: np.ndarray) -> np.ndarray:
        """Half-width of a mistake's band (around `own`) in a part whose answer is `answer`.

        As wide as the precision asked for at the answer; for significant figures at least as
        wide as the mistake's own figures too, since a learner making it rounds at its size
        (0.940 for 0.9404, when the answer is 0.0596).
        """
        width = self.half_width(answer)
        return np.maximum(width, self.half_width(own)) if self.kind == "sigfigs" else width

    def describe(self) -> Text:
        """A short human description, e.g. '±0.0005' or '3 significant figures'."""
        if self.kind == "abs":
            return say("±%(width)s", width=Figure(_short(self.value)))
        if self.kind == "rel":
            return say("±%(percent)s %%", percent=Figure(_short(self.value * 100)))
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
    slack: np.ndarray | float = 0.0  # how far past an end float noise may put a value on it

    def contains(self, values: np.ndarray) -> np.ndarray:
        """Per entry: does the value lie in its band (allowing for float noise)?"""
        return (self.low - self.slack <= values) & (values <= self.high + self.slack)

    def disjoint_from(self, other: Bands) -> np.ndarray:
        """Per entry: do the two bands share no point?"""
        return (self.high < other.low) | (other.high < self.low)


def bands(
    routes: np.ndarray, tolerance: Tolerance, scale: np.ndarray | None = None, integral: bool = False
) -> Bands:
    """Hull of the routes (axis 0; routes[0] is exact), widened by the tolerance.

    `scale` is the part's right answer, for a mistake's bands (`Tolerance.band_half_width`); by
    default the width is measured at routes[0]. Integral bands are compared exactly.
    """
    own = routes[0]
    width = tolerance.half_width(own) if scale is None else tolerance.band_half_width(own, scale)
    low, high = routes.min(axis=0) - width, routes.max(axis=0) + width
    if integral:
        return Bands(low, high, _INTEGRAL_SLACK)
    return Bands(low, high, _SLACK * np.maximum(1.0, np.maximum(np.abs(low), np.abs(high))))


def fewer_digits_than_asked(resolution: np.ndarray, typed: np.ndarray, coarsest: np.ndarray,
                            tolerance: Tolerance) -> np.ndarray:  # fmt: skip
    """Per entry: typed coarser than `coarsest` (the part's need at the expected value), unless
    the typed number's own significant figures suffice ("0.940" has 3 when the answer is 0.0596).

    Whether the typed number is right plays no part here; kinds.py lets a short answer through
    only when the whole answer is exactly right.
    """
    coarse = typed_too_coarse(resolution, coarsest)
    if coarse.any() and tolerance.kind == "sigfigs":
        coarse &= typed_too_coarse(resolution, 2.0 * tolerance.half_width(typed))
    return coarse


def is_exact_answer(values: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Per entry: is the typed value the exact expected value itself (up to float noise)?"""
    expected = np.asarray(expected, dtype=float)
    return np.abs(values - expected) <= _SAME * np.abs(expected)


def typed_too_coarse(resolution: np.ndarray, coarsest: np.ndarray) -> np.ndarray:
    """Per entry: is the typed place value coarser than the coarsest one allowed?"""
    return np.asarray(resolution) > coarsest * (1.0 + 1e-6)


def decimal_places(tolerance: Tolerance, expected: object, integral: bool) -> int | None:
    """Decimals a learner must type to land within `tolerance` of every expected entry, or None
    when no count says it (an exact real sets no precision; a zero-width band needs the exact value).

    Entries with a zero-width band (a relative tolerance at 0) need the exact value, which any
    number of digits can give, so they set no count for the others.
    """
    widths = tolerance.coarsest_resolution(np.asarray(expected, dtype=float), integral)
    finite = widths[(widths > 0) & (widths < math.inf)]
    if finite.size == 0:
        return None
    return max(0, math.ceil(-math.log10(float(np.min(finite))) - 1e-9))


def _largest(expected: object) -> float:
    return float(np.max(np.abs(np.asarray(expected, dtype=float))))


def digits_request(expected: np.ndarray, tolerance: Tolerance, integral: bool) -> Text:
    """The learner-facing request for more digits."""
    # Figures first: a count checked to 3 figures wants 3 figures, not the whole number.
    if tolerance.kind == "sigfigs":
        return say_n("give at least %(num)d significant figure", "give at least %(num)d significant figures",
                     int(tolerance.value))  # fmt: skip
    if integral:
        if small_count(_largest(expected)):  # a count of 3 has no 41.9M to warn about
            return say("give the exact whole number")
        return say("give the exact whole number, not a rounded one (e.g. 41,943,040 rather than 41.9M)")
    decimals = decimal_places(tolerance, expected, integral)
    if decimals is None:  # every band has zero width (a relative tolerance at 0): only the exact value
        return say("give the exact value")
    return say_n("give at least %(num)d decimal place", "give at least %(num)d decimal places", decimals)


def precision_asked(expected: np.ndarray, tolerance: Tolerance, integral: bool) -> Text | None:
    """The precision a field asks for before any answer, or None for an exact real: any exact form
    of it is right ("3/5", "0.6"), so no count of decimals applies."""
    if tolerance.kind == "exact" and not integral:
        return None
    return digits_request(expected, tolerance, integral)
