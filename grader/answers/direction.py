"""Which way a wrong number is off, when no named mistake explains it.

Each rule states a fact about the answer that holds within the part's own tolerance, so it is
never a guess: the sign is wrong (the size is right); every entry is off by one simple factor
(2, 10, or sqrt(d/(d-1)) for a vector of d entries); the entries are the right numbers in the
wrong order; or only the last entries of a vector are wrong. The first that holds is said.

It says more than "incorrect" does, so the page shows it only after a counted attempt.
"""

from __future__ import annotations

import math

import numpy as np

from grader.answers.tolerance import Bands, Tolerance, bands
from grader.answers.where import entries_phrase, positions
from grader.texts import Text, say


def _band(routes: np.ndarray, factor: float, tolerance: Tolerance, integral: bool) -> Bands:
    """The band of every route scaled by `factor`, as wide as a named mistake's there."""
    return bands(routes * factor, tolerance, routes[0], integral)


def _sign(values: np.ndarray, inside: np.ndarray, routes: np.ndarray, tolerance: Tolerance,
          integral: bool) -> Text | None:  # fmt: skip
    flipped = _band(routes, -1.0, tolerance, integral).contains(values) & ~inside
    if not flipped.any() or not (inside | flipped).all():
        return None
    if flipped.all():
        return say("The sign is wrong; the size is right.")
    return say("The sign of %(where)s is wrong; the size is right.", where=entries_phrase(positions(flipped)))


def _factors(shape: tuple[int, ...]) -> list[tuple[float, str]]:
    """Each simple factor with how it is written; sqrt(d/(d-1)) only for a vector of d >= 2 entries."""
    found = [(2.0, "2"), (10.0, "10")]
    if len(shape) == 1 and shape[0] >= 2:
        d = shape[0]
        found.append((math.sqrt(d / (d - 1)), f"√({d}/{d - 1}) = √(d/(d − 1))"))
    return found


def _factor(values: np.ndarray, inside: np.ndarray, routes: np.ndarray, tolerance: Tolerance,
            integral: bool) -> Text | None:  # fmt: skip
    right = bands(routes, tolerance, integral=integral)
    for factor, written in _factors(values.shape):
        for scale in (factor, 1 / factor):
            scaled = _band(routes, scale, tolerance, integral)
            # Told apart from the answer somewhere, or the factor would say nothing.
            if scaled.contains(values).all() and scaled.disjoint_from(right).any():
                if scale > 1:
                    return say("Too large by a factor of %(factor)s (in size).", factor=written)
                return say("Too small by a factor of %(factor)s (in size).", factor=written)
    return None


def _order(values: np.ndarray, inside: np.ndarray, routes: np.ndarray, tolerance: Tolerance,
           integral: bool) -> Text | None:  # fmt: skip
    if values.ndim != 1 or values.size < 2:
        return None
    # Pair the smallest typed with the smallest expected, and so on: the right numbers in any order match so.
    order = np.argsort(routes[0], kind="stable")
    sorted_band = bands(routes[:, order], tolerance, integral=integral)
    if sorted_band.contains(np.sort(values)).all():
        return say("The entries are the right numbers, in the wrong order.")
    return None


def _last(values: np.ndarray, inside: np.ndarray) -> Text | None:
    if values.ndim != 1 or values.size < 3:
        return None
    wrong = np.flatnonzero(~inside)
    first = int(wrong[0])
    # A run of wrong entries at the end, after at least two right ones.
    if first < 2 or wrong.size != values.size - first:
        return None
    if wrong.size == 1:
        return say("Only the last entry is wrong; the ones before it are right.")
    return say("Only the last entries (%(where)s) are wrong; the ones before them are right.",
               where=entries_phrase(positions(~inside)))


def direction(values: np.ndarray, inside: np.ndarray, routes: np.ndarray, tolerance: Tolerance,
              integral: bool) -> Text | None:  # fmt: skip
    """Which way a wrong answer is off (`inside`: per entry, in its band; `routes` stacked on axis 0), or None."""
    if inside.all():
        return None
    for rule in (_sign, _factor, _order):
        found = rule(values, inside, routes, tolerance, integral)
        if found is not None:
            return found
    return _last(values, inside)
