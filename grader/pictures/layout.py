"""Small geometry shared by the pictures: boxes, rows of cells, and mapping numbers onto an axis."""

from __future__ import annotations

from dataclasses import dataclass, replace

GAP = 4  # between neighbouring cells


@dataclass(frozen=True)
class Box:
    """A rectangle in SVG user units."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        """The centre's x."""
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        """The centre's y."""
        return self.y + self.h / 2

    def at(self, x: float | None = None, y: float | None = None) -> Box:
        """The same box moved to x and/or y."""
        return replace(self, x=self.x if x is None else x, y=self.y if y is None else y)


def row_of_cells(x: float, y: float, width: float, height: float, count: int) -> tuple[Box, ...]:
    """`count` equal cells side by side across `width`, with a small gap between them."""
    if count <= 0:
        return ()
    step = width / count
    return tuple(Box(round(x + i * step, 2), y, round(step - GAP, 2), height) for i in range(count))


@dataclass(frozen=True)
class Axis:
    """A linear map from values in [low, high] onto user units from `start` to `end` (either direction)."""

    low: float
    high: float
    start: float
    end: float

    def __call__(self, value: float) -> float:
        """Where `value` lands, clamped to the axis."""
        share = (min(max(value, self.low), self.high) - self.low) / (self.high - self.low)
        return round(self.start + share * (self.end - self.start), 2)


def padded_range(values: list[float], pad: float = 0.12) -> tuple[float, float]:
    """The range of `values` and zero, widened a little on both sides (never empty)."""
    low, high = min([0.0, *values]), max([0.0, *values])
    span = high - low or 1.0
    return low - pad * span, high + pad * span
