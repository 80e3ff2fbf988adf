"""Charts of class figures as plain geometry for server-rendered SVG: horizontal bars, a histogram of
counts, and a cumulative line over days.

Like the other pictures, nothing here imports Flask or SQLAlchemy: builders take labels and numbers
and return dataclasses of coordinates; the markup (with its title, description and the same numbers
as a table) is in grader/web/templates/teach/_charts.html, coloured by classes from style.css.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import Literal, Sequence

from grader.pictures.layout import Axis, Box

BAR_H, BAR_GAP = 14, 10  # a bar's thickness, and the room between one bar and the next one's name
# Small user units: a chart shrunk to a phone's width still has readable text.
VALUE_W = 48  # room for a bar's number on its right
BARS_WIDTH = 380
# A bar's name is written whole above it, on as many lines as it needs: never cut, so two bars are never
# read alike. A line holds what fits at the labels' 11 units, at a generous width per character.
CHAR_W, LINE_H = 6.6, 13.0
LABEL_CHARS = int((BARS_WIDTH - 4) // CHAR_W)
COLUMNS_WIDTH, COLUMNS_HEIGHT = 340, 170
LINE_WIDTH, LINE_HEIGHT = 380, 180
PLOT_LEFT, PLOT_TOP, PLOT_BOTTOM = 44, 14, 28  # room for the value ticks (left) and the date ticks (below)
Tone = Literal["", "low", "quiet"]


@dataclass(frozen=True)
class Bar:
    """One named number drawn as a bar under its name: `tone` is "low" for one that needs attention, "quiet"
    for one set apart. `lines` is the name as drawn, whole, one baseline in `line_ys` per line."""

    label: str
    value: float
    box: Box
    lines: tuple[str, ...]
    line_ys: tuple[float, ...]
    tone: Tone = ""


@dataclass(frozen=True)
class BarChart:
    """Horizontal bars, each under its name, with its value on its right."""

    bars: tuple[Bar, ...]
    label_x: float  # the names start here
    width: float
    height: float
    share: bool  # values are shares of one (shown as percentages), else counts
    kind: Literal["bars"] = "bars"


def wrapped(text: str, most: int = LABEL_CHARS) -> tuple[str, ...]:
    """`text` in lines of at most `most` characters, broken at spaces (a longer word is broken inside)."""
    lines: list[str] = []
    for word in text.split():
        while len(word) > most:
            lines.append(word[:most])
            word = word[most:]
        if lines and len(lines[-1]) + 1 + len(word) <= most:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return tuple(lines) or ("",)


def distinct(labels: Sequence[str], keys: Sequence[str]) -> list[str]:
    """The labels, each one shared by several items told apart by its item's key in parentheses."""
    seen = Counter(labels)
    return [f"{label} ({key})" if seen[label] > 1 and key else label for label, key in zip(labels, keys)]


def bar_chart(items: Sequence[tuple[str, float]], *, share: bool = False, low_below: float | None = None,
              quiet: Sequence[str] = (), keys: Sequence[str] = ()) -> BarChart:  # fmt: skip
    """Bars for `items` (name, value) in the given order; shares run to 1, counts to the largest value.
    A share under `low_below` is toned "low"; the names in `quiet` are toned "quiet". Names that several
    items share get their item's entry in `keys` (an id), so no two bars are named alike."""
    high = 1.0 if share else max([1.0, *(v for _, v in items)])
    axis = Axis(0.0, high, 0.0, BARS_WIDTH - VALUE_W - 2)
    names = distinct([label for label, _ in items], list(keys) or [""] * len(items))
    bars, y = [], 6.0
    for (label, value), name in zip(items, names):
        tone: Tone = "quiet" if label in quiet else "low" if low_below is not None and value < low_below else ""
        lines = wrapped(name)
        ys = tuple(y + LINE_H * (i + 0.75) for i in range(len(lines)))  # baselines: a line's ascent above each
        y += LINE_H * len(lines) + 2
        # A zero still shows a sliver, so a bar that is there reads differently from one that is missing.
        bars.append(Bar(name, value, Box(2, y, max(axis(value), 1.5), BAR_H), lines, ys, tone))
        y += BAR_H + BAR_GAP
    return BarChart(tuple(bars), 2, BARS_WIDTH, y - BAR_GAP + 6, share)


@dataclass(frozen=True)
class Column:
    """One bucket of a histogram: its name under it, its count over it."""

    label: str
    count: int
    box: Box


@dataclass(frozen=True)
class Histogram:
    """Counts per bucket as upright columns on a baseline."""

    columns: tuple[Column, ...]
    baseline: float
    width: float
    height: float
    kind: Literal["histogram"] = "histogram"


def histogram(buckets: Sequence[tuple[str, int]]) -> Histogram:
    """Columns for `buckets` (name, count), left to right, scaled to the largest count."""
    baseline = COLUMNS_HEIGHT - 22
    axis = Axis(0.0, float(max([1, *(c for _, c in buckets)])), baseline, 18.0)
    step = (COLUMNS_WIDTH - 8) / max(len(buckets), 1)
    columns = tuple(Column(label, count, Box(round(4 + i * step + 4, 2), axis(count), round(step - 8, 2),
                                             round(baseline - axis(count), 2)))
                    for i, (label, count) in enumerate(buckets))  # fmt: skip
    return Histogram(columns, baseline, COLUMNS_WIDTH, COLUMNS_HEIGHT)


@dataclass(frozen=True)
class Point:
    """One day on a line chart: its date, its value, and where it is drawn."""

    day: date
    value: float
    x: float
    y: float


@dataclass(frozen=True)
class LineChart:
    """A value over days as a line over a shaded area, with a few ticks on each axis."""

    points: tuple[Point, ...]
    line: str  # SVG path data
    area: str
    x_ticks: tuple[tuple[date, float], ...]
    y_ticks: tuple[tuple[float, float], ...]
    left: float
    baseline: float
    width: float
    height: float
    share: bool
    kind: Literal["line"] = "line"


def _ticks(count: int, most: int) -> list[int]:
    """Up to `most` evenly spread indexes of `count` items, the first and the last always among them."""
    if count <= most:
        return list(range(count))
    step = (count - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def line_chart(series: Sequence[tuple[date, float]], *, share: bool = False) -> LineChart:
    """The line through `series` (day, value), days in order; shares run to 1, counts to the largest value."""
    baseline = LINE_HEIGHT - PLOT_BOTTOM
    steps = (0.0, 0.25, 0.5, 0.75, 1.0) if share else _count_ticks(max([1.0, *(v for _, v in series)]))
    ys = Axis(0.0, steps[-1], baseline, PLOT_TOP)
    xs = Axis(0.0, float(max(len(series) - 1, 1)), PLOT_LEFT + 6, LINE_WIDTH - 12)
    points = tuple(Point(day, value, xs(i), ys(value)) for i, (day, value) in enumerate(series))
    line = "M" + " L".join(f"{p.x} {p.y}" for p in points) if points else ""
    area = f"{line} L{points[-1].x} {baseline} L{points[0].x} {baseline} Z" if points else ""
    x_ticks = tuple((points[i].day, points[i].x) for i in _ticks(len(points), 5))
    return LineChart(points, line, area, x_ticks, tuple((v, ys(v)) for v in steps), PLOT_LEFT, baseline,
                     LINE_WIDTH, LINE_HEIGHT, share)  # fmt: skip


def _count_ticks(high: float) -> tuple[float, ...]:
    """Five whole-number ticks from 0, evenly spaced, the last at `high` or just above it."""
    step = max(1, -(-int(high) // 4))
    return tuple(float(step * i) for i in range(5))
