"""The FFN read as a memory: each key's score k·x as a small heatmap, the keys that fire outlined."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

import numpy as np

from grader.pictures.seen import Seen
from grader.pictures.layout import Box, row_of_cells

LEFT, TOP = 34, 24  # room for the row and column names
CELL_W, CELL_H, ROW = 64, 28, 32
MAX_SHADE = 0.45  # the darkest fill still keeps the number on it readable (ink on accent)
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def subscript(name: str, index: int) -> str:
    """`name` with a subscript index: k₁, x₁₂."""
    return name + str(index).translate(SUBSCRIPTS)


@dataclass(frozen=True)
class Cell:
    """One score: where it is drawn, how dark, and whether the key fires on it (score > 0)."""

    box: Box
    value: float
    fires: bool
    shade: float


@dataclass(frozen=True)
class KeyHeatmap:
    """Scores of inputs (rows) against keys (columns); ffn-edit also marks the edited key's column."""

    rows: tuple[tuple[Cell, ...], ...]
    row_labels: tuple[tuple[str, float], ...]  # name and the y of its row's centre
    col_labels: tuple[tuple[str, float], ...]  # name and the x of its column's centre
    edited: Box | None  # the edited key's column, framed
    edited_key: str | None
    width: float
    height: float
    decimals: int  # 0 when every score is whole (integer keys and inputs), else 3
    kind: Literal["keys"] = "keys"

    @property
    def firing(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """For each row: its name and the keys that fire on it (for the text alternative)."""
        keys = [name for name, _ in self.col_labels]
        return tuple((name, tuple(keys[j] for j, c in enumerate(row) if c.fires))
                     for (name, _), row in zip(self.row_labels, self.rows))  # fmt: skip


def key_heatmap(scores: Any, row_names: list[str], edited: int | None = None) -> KeyHeatmap:
    """The heatmap of `scores` (one row per input, one column per key); `edited` is a 1-based key."""
    table = np.atleast_2d(np.asarray(scores, dtype=float))
    biggest = float(np.abs(table).max()) or 1.0
    rows = []
    for i, line in enumerate(table):
        boxes = row_of_cells(LEFT, TOP + i * ROW, len(line) * CELL_W, CELL_H, len(line))
        rows.append(tuple(Cell(box, float(v), bool(v > 0), round(0.08 + (MAX_SHADE - 0.08) * abs(v) / biggest, 3))
                          for box, v in zip(boxes, line)))  # fmt: skip
    first = rows[0]
    cols = tuple((subscript("k", j + 1), c.box.cx) for j, c in enumerate(first))
    height = TOP + len(rows) * ROW + 4
    frame = None
    if edited is not None:
        cell = first[edited - 1].box
        frame = Box(cell.x - 2, TOP - 20, cell.w + 4, height - TOP + 18)
    return KeyHeatmap(
        rows=tuple(rows), row_labels=tuple((name, TOP + i * ROW + CELL_H / 2) for i, name in enumerate(row_names)),
        col_labels=cols, edited=frame, edited_key=subscript("k", edited) if edited else None,
        width=LEFT + len(first) * CELL_W + 4, height=height,
        decimals=0 if np.all(table == np.round(table)) else 3,
    )  # fmt: skip


def keys_picture(values: Mapping[str, Any], seen: Seen) -> KeyHeatmap:
    """ffn-keys: the one input x against each key."""
    return key_heatmap(values["scores"], ["x"])


def edit_picture(values: Mapping[str, Any], seen: Seen) -> KeyHeatmap:
    """ffn-edit: each input against each key, the edited key's column framed."""
    scores = np.atleast_2d(np.asarray(values["scores"], dtype=float))
    return key_heatmap(scores, [subscript("x", i + 1) for i in range(len(scores))], int(values["edited"]))
