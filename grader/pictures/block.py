"""The GPT-2 block as a diagram: x → LN → attention → ⊕ → LN → MLP → ⊕, one token's vector at each station.

A station's numbers are drawn only when the learner may see them: the prompt gives them, or the
worked solution is shown. A station the exercise asks about is highlighted and reads "?" until then;
the others stay empty, so the diagram never gives away more than the prompt.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from grader.pictures.layout import Box, row_of_cells
from grader.pictures.seen import Seen

State = Literal["shown", "asked", "hidden"]

# Geometry in SVG user units (the viewBox); the page scales the whole picture to its width.
WIDTH = 316
ROW = 36
TOP = 10
STREAM_X = 14  # the residual stream runs down this line
OP = Box(28, 0, 62, 26)  # an operation's box, placed on each row
SYMBOL_X = 116  # the vector's name ends here
CELLS_X, CELLS_W = 120, 192  # the vector's entries share this span


@dataclass(frozen=True)
class StationSpec:
    """One station of the block: its operation, the vector it hands on, and the quantities it stands for."""

    key: str
    op: str  # what the box reads ("" for the input, "⊕" for an addition)
    vector: str | None  # the quantity whose entries are drawn beside it
    symbol: str  # that vector's name on the page
    about: frozenset[str]  # quantities an exercise may ask about at this station


STATIONS = (
    StationSpec("x", "", "x", "x₅", frozenset({"x"})),
    StationSpec("ln1", "LN", None, "", frozenset()),
    StationSpec("attn", "Attn", "a", "a₅", frozenset({"a"})),
    StationSpec("add1", "⊕", "h", "h₅", frozenset({"h"})),
    StationSpec("ln2", "LN", "u", "u′₅", frozenset({"mu", "sigma", "u", "z1"})),
    StationSpec("mlp", "MLP", "m", "m₅", frozenset({"z", "gelu", "gelu_neg", "gelu_pos", "m"})),
    StationSpec("add2", "⊕", "y", "y₅", frozenset({"y", "y_no_attention"})),
)


@dataclass(frozen=True)
class Station:
    """A station as drawn: its row's centre, its box and cells, and what the learner may see of it."""

    key: str
    op: str
    symbol: str
    y: float
    box: Box
    cells: tuple[Box, ...]
    values: tuple[float, ...]  # empty unless the state is "shown"
    state: State
    current: bool


@dataclass(frozen=True)
class BlockDiagram:
    """The block with one token's vectors; `current` names the highlighted station (None: none)."""

    stations: tuple[Station, ...]
    width: float
    height: float
    stream_x: float
    branches: tuple[str, ...]  # SVG path data of the two side branches (out of and back into the stream)
    revealed: bool
    kind: str = "block"

    @property
    def current(self) -> Station | None:
        """The station the exercise asks about, if any."""
        return next((s for s in self.stations if s.current), None)

    @property
    def shown(self) -> tuple[Station, ...]:
        """Stations whose numbers are drawn, for the text alternative."""
        return tuple(s for s in self.stations if s.state == "shown")


def _state(spec: StationSpec, seen: Seen) -> State:
    if spec.vector is None:
        return "hidden"
    if seen.drawn(spec.vector):
        return "shown"
    return "asked" if spec.vector in seen.asked else "hidden"


def _branch(top: float, bottom: float) -> str:
    """A side branch: out of the stream into the box on row `top`, down, and back into the ⊕ on row `bottom`."""
    middle = OP.x + OP.w / 2
    return (f"M{STREAM_X} {top} H{OP.x} "
            f"M{middle} {top + OP.h / 2} V{top + ROW - OP.h / 2} "
            f"M{middle} {top + ROW + OP.h / 2} V{bottom} H{STREAM_X + 9}")  # fmt: skip


def block_diagram(values: Mapping[str, Any], seen: Seen) -> BlockDiagram:
    """The diagram of a variant's quantities, drawing only the numbers `seen` lets the learner see."""
    stations = []
    for row, spec in enumerate(STATIONS):
        y = TOP + ROW * row + ROW / 2
        state = _state(spec, seen)
        vector = values.get(spec.vector) if spec.vector else None
        numbers = tuple(float(v) for v in vector) if state == "shown" and vector is not None else ()
        count = len(vector) if vector is not None else 0
        stations.append(Station(
            key=spec.key, op=spec.op, symbol=spec.symbol, y=y, box=OP.at(y=y - OP.h / 2),
            cells=row_of_cells(CELLS_X, y - OP.h / 2, CELLS_W, OP.h, count), values=numbers,
            state=state, current=bool(spec.about & seen.asked),
        ))  # fmt: skip
    centre = [s.y for s in stations]
    branches = (_branch(centre[1], centre[3]), _branch(centre[4], centre[6]))
    height = TOP * 2 + ROW * len(STATIONS)
    return BlockDiagram(tuple(stations), WIDTH, height, STREAM_X, branches, seen.reveal)
