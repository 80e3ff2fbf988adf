"""Why a right answer can differ from the worked solution's in the last digit.

A part accepts every route to its answer: full precision and the lesson's hand paths, which
round intermediate values on the way (routes[0] is full precision). The worked solution prints
one of them (`Target.shown`). A learner who followed another route writes a number that differs
from the printed one in the last digit (1.164 where the page says 1.163); both are right, and the
verdict says so and why, instead of leaving the learner to wonder which one is wrong.
"""

from __future__ import annotations

import math

import numpy as np

from grader.answers.where import entries_phrase, positions
from grader.texts import Figure, Text, joined, say

_KEPT_FULL = say("The worked solution rounds intermediate values by hand, as the lesson does; "
                 "you kept full precision.")  # fmt: skip
_OTHER_STEPS = say("The worked solution rounds intermediate values by hand where the lesson does; "
                   "you rounded at other steps or used other constants.")  # fmt: skip
_ROUNDED = say("The worked solution keeps full precision; you rounded intermediate values by hand.")


def _follows(values: np.ndarray, resolution: np.ndarray, route: np.ndarray) -> np.ndarray:
    """Per entry: is the typed number this route's value rounded to the typed place?"""
    return np.abs(values - route) <= 0.5 * resolution * (1 + 1e-9) + 1e-12 * np.abs(route)


def _written(values: np.ndarray, resolution: np.ndarray) -> Figure:
    """Entries as typed (to their own place), the list a figure so each reader gets their decimal mark."""
    places = [max(0, round(-math.log10(r))) for r in resolution.ravel()]
    numbers = [f"{v:.{p}f}" for v, p in zip(values.ravel(), places)]
    # No "negative zero" once rounded, as the pages write numbers; a minus sign, not a hyphen.
    numbers = [n.lstrip("-") if float(n) == 0 else n.replace("-", "\u2212") for n in numbers]
    return Figure("; ".join(numbers))


def hand_rounding_note(values: np.ndarray, resolution: np.ndarray, routes: np.ndarray,
                       shown: int | None) -> Text | None:  # fmt: skip
    """For a right answer: why it differs from the worked solution's number, or None when it does not."""
    resolution = np.broadcast_to(np.asarray(resolution, dtype=float), values.shape)
    if shown is None or len(routes) < 2 or not np.all(resolution > 0):
        return None  # a fraction is exact: it follows no rounding
    differs = ~_follows(values, resolution, routes[shown])
    if not differs.any():
        return None
    others = [i for i in range(len(routes)) if i != shown and _follows(values, resolution, routes[i]).all()]
    if not others:
        return None  # right, but along no route exactly: nothing true to say about why
    reason = _ROUNDED if shown == 0 else _KEPT_FULL if others[0] == 0 else _OTHER_STEPS
    # Each number to the place the learner typed it, as the page writes it (rounded, not cut).
    shown_text = _written(routes[shown][differs], resolution[differs])
    yours = _written(values[differs], resolution[differs])
    if values.ndim == 0:
        lead = say("The worked solution shows %(shown)s and you wrote %(yours)s: both are right.",
                   shown=shown_text, yours=yours)  # fmt: skip
    else:
        lead = say("For %(where)s the worked solution shows %(shown)s and you wrote %(yours)s: both are right.",
                   where=entries_phrase(positions(differs)), shown=shown_text, yours=yours)  # fmt: skip
    return joined([lead, reason], " ")
