"""The GELU curve, with the learner's ±z marked where the exercise asks for gelu(±z)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from grader.pictures.seen import Seen
from grader.pictures.layout import Axis, Box
from grader.reference.common import gelu_tanh

WIDTH, HEIGHT = 320, 224
Z = Axis(-2.5, 2.5, 34, 310)  # z across
# gelu(z) up, from just under GELU's lowest value (about −0.17), so the curve stays inside its axes.
G = Axis(-0.2, 2.5, 166, 10)
Z_TICKS = (-2, -1, 0, 1, 2)
G_TICKS = (0, 1, 2)
SAMPLES = 101
# Text rows under the plot: the z ticks' numbers, then the marks' labels, each under its own dot. The
# widths are generous estimates at the labels' 10 units (template: learn/_pictures.html).
TICK_Y, LABEL_Y, LABEL_ROW = G.start + 16, G.start + 34, 14
LABEL_CHAR_W, LABEL_GAP = 6.4, 6.0


@dataclass(frozen=True)
class Mark:
    """One marked input: z, gelu(z) (None until the learner may see it), and where they land."""

    z: float
    value: float | None
    x: float
    y: float  # on the curve: the page shows the curve, so this says no more than the curve itself
    label: str  # "−z = −1.438", written under the dot (centred on label_x, baseline label_y)
    label_x: float
    label_y: float


@dataclass(frozen=True)
class GeluCurve:
    """The GELU and ReLU curves as SVG path data, axes and ticks, and the marked ±z."""

    gelu: str
    relu: str
    marks: tuple[Mark, ...]
    z_ticks: tuple[tuple[int, float], ...]
    g_ticks: tuple[tuple[int, float], ...]
    zero_x: float
    zero_y: float
    revealed: bool
    tick_y: float = TICK_Y
    plot: Box = Box(Z.start, G.end, Z.end - Z.start, G.start - G.end)  # the axes' extent: the curves stay inside
    width: int = WIDTH
    height: int = HEIGHT
    kind: str = "gelu"


def _path(points: list[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{x} {y}" for x, y in points)


def _fixed(value: float) -> str:
    """A z as the page prints it (3 decimals, a true minus sign)."""
    return f"{value:.3f}".replace("-", "−")


@lru_cache(maxsize=1)
def _curves() -> tuple[str, str]:
    """The two curves (the same on every page: worked out once)."""
    zs = np.linspace(Z.low, Z.high, SAMPLES)
    gelu = _path([(Z(float(z)), G(float(g))) for z, g in zip(zs, gelu_tanh(zs))])
    relu = _path([(Z(Z.low), G(0.0)), (Z(0.0), G(0.0)), (Z(G.high), G(G.high))])
    return gelu, relu


def label_width(text: str) -> float:
    """The room a mark's label takes, at a generous width per character."""
    return LABEL_CHAR_W * len(text)


def _under_dots(texts: tuple[str, str], xs: tuple[float, float]) -> tuple[tuple[float, float], ...]:
    """(centre, baseline) of −z's and z's labels: each under its dot, moved apart just enough not to touch
    (a small z), kept inside the picture; where the dots are too close for that, z's goes a row lower."""
    left, right = label_width(texts[0]) / 2, label_width(texts[1]) / 2
    shift = max((xs[0] + left + LABEL_GAP) - (xs[1] - right), 0.0) / 2
    if shift > min(left, right) - 4:  # the labels would leave their dots: one under the other instead
        return (xs[0], LABEL_Y), (xs[1], LABEL_Y + LABEL_ROW)
    a = min(max(xs[0] - shift, left + 2), WIDTH - 2 - left)
    b = min(max(xs[1] + shift, right + 2), WIDTH - 2 - right)
    return (a, LABEL_Y), (b, LABEL_Y)


def gelu_curve(values: Mapping[str, Any], seen: Seen) -> GeluCurve:
    """The curve with −z and z marked (z = the variant's z1); gelu(±z) written only when `seen.reveal`."""
    z = float(values["z1"])
    texts = (f"−z = {_fixed(-z)}", f"z = {_fixed(z)}")
    places = _under_dots(texts, (Z(-z), Z(z)))
    marks = tuple(
        Mark(point, float(values[name]) if seen.reveal else None, Z(point), G(float(gelu_tanh(np.array(point)))),
             text, *place)
        for (point, name), text, place in zip(((-z, "gelu_neg"), (z, "gelu_pos")), texts, places)
    )
    gelu, relu = _curves()
    return GeluCurve(gelu=gelu, relu=relu, marks=marks, z_ticks=tuple((t, Z(t)) for t in Z_TICKS),
                     g_ticks=tuple((t, G(t)) for t in G_TICKS), zero_x=Z(0.0), zero_y=G(0.0),
                     revealed=seen.reveal)  # fmt: skip
