"""microGPT's path for one token: embedding, a pre-norm layer (× n_layer), lm_head, with the counts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from grader.pictures.seen import Seen
from grader.pictures.layout import Box

Role = Literal["io", "norm", "op", "add"]
WIDTH = 300
ROW, TOP = 30, 8
BOX = Box(54, 0, 110, 22)
BADGE_X = 174  # counts and shapes, right of the boxes
FRAME_X = 28  # the frame around one layer


@dataclass(frozen=True)
class Stop:
    """One station on the path; `note` is a count badge ("1", "+1") or a matrix shape."""

    label: str
    role: Role
    box: Box
    badge: str = ""
    shapes: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class StationsPath:
    """The path, the frame of the repeated layer, and the totals the exercise asks for."""

    stops: tuple[Stop, ...]
    layer: Box
    skips: tuple[str, ...]  # SVG path data of each residual: around its sub-block into its ⊕
    n_layer: int
    norms: int
    residual_adds: int
    width: int
    height: float
    badge_x: int = BADGE_X
    left: float = BOX.x  # the totals line up with the boxes
    kind: Literal["stations"] = "stations"


# (label, role, badge): the stops before, inside (once per layer) and after the repeated layer.
BEFORE = (("wte + wpe", "io", ""), ("RMSNorm", "norm", "1"))
LAYER = (("RMSNorm", "norm", "+1"), ("attn", "op", ""), ("⊕", "add", "+1"),
         ("RMSNorm", "norm", "+1"), ("MLP", "op", ""), ("⊕", "add", "+1"))  # fmt: skip
AFTER = (("lm_head", "io", ""),)


def _skips(stops: list[Stop]) -> tuple[str, ...]:
    """Each sub-block's residual: from the stream just before its norm, around it, into its ⊕."""
    paths = []
    for start, add in ((len(BEFORE), len(BEFORE) + 2), (len(BEFORE) + 3, len(BEFORE) + 5)):
        top, join = stops[start].box.y - 4, stops[add].box
        paths.append(f"M{BOX.cx} {top} H{BOX.x - 14} V{join.cy} H{BOX.x}")
    return tuple(paths)


def stations_path(values: Mapping[str, Any], seen: Seen) -> StationsPath:
    """The path for the variant's n_layer, with the fc1/fc2 shapes on the MLP stop."""
    stops: list[Stop] = []
    shapes = (("fc1", values["fc1_shape"]), ("fc2", values["fc2_shape"]))
    for label, role, badge in (*BEFORE, *LAYER, *AFTER):
        box = BOX.at(y=TOP + len(stops) * ROW + (ROW - BOX.h) / 2 + (8 if len(stops) >= len(BEFORE) else 0)
                     + (8 if len(stops) >= len(BEFORE) + len(LAYER) else 0))  # fmt: skip
        stops.append(Stop(label, role, box, badge, shapes if label == "MLP" else ()))  # type: ignore[arg-type]
    first, last = stops[len(BEFORE)].box, stops[len(BEFORE) + len(LAYER) - 1].box
    layer = Box(FRAME_X, first.y - 7, WIDTH - FRAME_X - 4, last.y + last.h + 7 - (first.y - 7))
    height = stops[-1].box.y + BOX.h + 44  # two lines of totals below
    return StationsPath(tuple(stops), layer, _skips(stops), int(values["n_layer"]), int(values["norms"]),
                        int(values["residual_adds"]), WIDTH, height)  # fmt: skip
