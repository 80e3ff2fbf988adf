"""The GELU curve, with the learner's ±z marked where the exercise asks for gelu(±z)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import numpy as np

from grader.pictures.seen import Seen
from grader.pictures.layout import Axis
from grader.reference.common import gelu_tanh

WIDTH, HEIGHT = 320, 200
Z = Axis(-2.5, 2.5, 34, 310)  # z across
G = Axis(-0.5, 2.5, 180, 10)  # gelu(z) up
Z_TICKS = (-2, -1, 0, 1, 2)
G_TICKS = (0, 1, 2)
SAMPLES = 101


@dataclass(frozen=True)
class Mark:
    """One marked input: z, gelu(z) (None until the learner may see it), and where they land."""

    z: float
    value: float | None
    x: float
    y: float  # on the curve: the page shows the curve, so this says no more than the curve itself


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
    width: int = WIDTH
    height: int = HEIGHT
    kind: str = "gelu"


def _path(points: list[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{x} {y}" for x, y in points)


@lru_cache(maxsize=1)
def _curves() -> tuple[str, str]:
    """The two curves (the same on every page: worked out once)."""
    zs = np.linspace(Z.low, Z.high, SAMPLES)
    gelu = _path([(Z(float(z)), G(float(g))) for z, g in zip(zs, gelu_tanh(zs))])
    relu = _path([(Z(Z.low), G(0.0)), (Z(0.0), G(0.0)), (Z(G.high), G(G.high))])
    return gelu, relu


def gelu_curve(values: Mapping[str, Any], seen: Seen) -> GeluCurve:
    """The curve with −z and z marked (z = the variant's z1); gelu(±z) written only when `seen.reveal`."""
    z = float(values["z1"])
    marks = tuple(
        Mark(point, float(values[name]) if seen.reveal else None, Z(point), G(float(gelu_tanh(np.array(point)))))
        for point, name in ((-z, "gelu_neg"), (z, "gelu_pos"))
    )
    gelu, relu = _curves()
    return GeluCurve(gelu=gelu, relu=relu, marks=marks, z_ticks=tuple((t, Z(t)) for t in Z_TICKS),
                     g_ticks=tuple((t, G(t)) for t in G_TICKS), zero_x=Z(0.0), zero_y=G(0.0),
                     revealed=seen.reveal)  # fmt: skip
