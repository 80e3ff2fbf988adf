"""Expected against yours, entry by entry, for a wrong vector or matrix answer.

One strip per row (a vector is one row): each entry's expected value as a ring, the learner's as a
dot, joined by a line where the entry is wrong, so the sign, size and place of each slip show.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Literal

import numpy as np

from grader.pictures.layout import Axis, padded_range

WIDTH = 320
LEFT, RIGHT = 26, 8  # the left margin holds the ● and ○ that name the two rows of numbers
PLOT_H = 70  # a strip's plot; its two rows of numbers go below it
STRIP = PLOT_H + 44
TOP = 8


@dataclass(frozen=True)
class Entry:
    """One entry: its 1-based position, both values, and where they are drawn."""

    label: str
    expected: float
    yours: float
    wrong: bool
    x: float
    expected_y: float
    yours_y: float


@dataclass(frozen=True)
class Strip:
    """One row of entries and the y of its zero line and of its two rows of numbers."""

    entries: tuple[Entry, ...]
    top: float
    zero_y: float
    yours_y: float
    expected_y: float


@dataclass(frozen=True)
class Comparison:
    """The strips of a wrong answer; `wrong` counts the entries outside the tolerance."""

    strips: tuple[Strip, ...]
    wrong: int
    width: int
    height: float
    kind: Literal["compare"] = "compare"

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry, row by row (for the text alternative)."""
        return tuple(e for s in self.strips for e in s.entries)


def _position(row: int, col: int, matrix: bool) -> Any:
    return (row, col) if matrix else col


def _label(row: int, col: int, matrix: bool) -> str:
    return f"({row + 1}, {col + 1})" if matrix else str(col + 1)


def comparison(expected: Any, yours: Any, wrong: Collection[Any]) -> Comparison | None:
    """The picture for an answer `yours` against `expected` (same shape); `wrong` are the wrong positions
    as grading reports them (0-based ints for a vector, (row, column) pairs for a matrix). None when the
    shapes differ or the answer is not a vector or matrix."""
    want, got = np.asarray(expected, dtype=float), np.asarray(yours, dtype=float)
    if want.shape != got.shape or want.ndim not in (1, 2) or want.size == 0:
        return None
    matrix = want.ndim == 2
    want2, got2 = np.atleast_2d(want), np.atleast_2d(got)
    wrong_set = {tuple(w) if isinstance(w, (list, tuple)) else w for w in wrong}
    low, high = padded_range([*want2.ravel().tolist(), *got2.ravel().tolist()])
    step = (WIDTH - LEFT - RIGHT) / want2.shape[1]
    strips = []
    for r, (line_want, line_got) in enumerate(zip(want2, got2)):
        top = TOP + r * STRIP
        axis = Axis(low, high, top + PLOT_H - 4, top + 4)
        entries = tuple(
            Entry(_label(r, c, matrix), float(w), float(g), _position(r, c, matrix) in wrong_set,
                  round(LEFT + (c + 0.5) * step, 2), axis(float(w)), axis(float(g)))
            for c, (w, g) in enumerate(zip(line_want, line_got))
        )  # fmt: skip
        strips.append(Strip(entries, top, axis(0.0), top + PLOT_H + 14, top + PLOT_H + 31))
    count = sum(e.wrong for s in strips for e in s.entries)
    return Comparison(tuple(strips), count, WIDTH, TOP + STRIP * len(strips))
