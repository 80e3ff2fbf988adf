"""What a learner following a worked solution with the printed numbers can reach: the route interval.

A worked solution (and the hints, its first steps) prints intermediate numbers rounded to their
digits, and a prompt may round a constant (sqrt(2/pi) ~ 0.798). A learner may carry any printed
number on as printed, or their own to any precision: each printed entry is a source of error, from
its own rounding (half a unit of its printed digits) to the printed value itself (which may come
from another route, as the toy block's page does). Its effect on each graded quantity is found by
running the route again with that entry moved to each end of its range (the route evaluated at the
corners), and the effects add up: the interval holds every result the printed route leads to.

One mechanism for every scenario: a scenario that can run its correct route again with some
intermediates fixed (`Scenario.retrace`) gets its interval here, built-in or written as formulas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np

Quantities = Mapping[str, Any]
Retrace = Callable[[Mapping[str, Any]], Quantities]


@dataclass(frozen=True)
class Reach:
    """Per graded quantity, the lowest and highest value a printed route leads to (entry by entry)."""

    low: Mapping[str, np.ndarray]
    high: Mapping[str, np.ndarray]

    def of(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The interval of one quantity, or None when it has none (a count, an index set)."""
        return (self.low[name], self.high[name]) if name in self.low else None


def _floats(value: Any) -> np.ndarray | None:
    """The value as a float array, or None when it is no real number (an index set, a shape, a flag)."""
    if isinstance(value, (bool, np.bool_, tuple, frozenset, set)):
        return None
    array = np.asarray(value)
    return array.astype(float) if np.issubdtype(array.dtype, np.number) else None


def source_range(value: np.ndarray, printed: np.ndarray, decimals: int) -> tuple[np.ndarray, np.ndarray]:
    """How far a learner's copy of each entry may be from `value`: its rounding to `decimals` (nothing for an
    entry those digits hold exactly) and the printed number itself, as offsets (low <= 0 <= high)."""
    half = 0.5 * 10.0 ** -decimals
    rounds = np.abs(np.round(value, decimals) - value) > 1e-12 * np.maximum(1.0, np.abs(value))
    spread = np.where(rounds, half, 0.0)
    offset = np.where(np.isfinite(printed - value), printed - value, 0.0)
    return np.minimum(-spread, offset), np.maximum(spread, offset)


def route_reach(retrace: Retrace, base: Quantities, shown: Quantities, printed: Mapping[str, int],
                wanted: Iterable[str], alternatives: Iterable[Quantities] = ()) -> Reach:  # fmt: skip
    """The interval of each `wanted` quantity over every printed route.

    `base` is the route at full precision (its quantities in the order they are computed), `shown` the
    route the texts print, `printed` each printed
    intermediate with its digits, `alternatives` the route with the prompt's rounded constants.
    """
    targets = {name: v for name in wanted if (v := _floats(base.get(name))) is not None}
    low = {name: np.zeros_like(v) for name, v in targets.items()}
    high = {name: np.zeros_like(v) for name, v in targets.items()}

    def add(effects: list[Quantities], source: str | None) -> None:
        for name, exact in targets.items():
            if name == source:
                continue  # a quantity's own rounding is the tolerance's business
            moved = [_floats(e.get(name)) for e in effects]
            deltas = [m - exact for m in moved if m is not None and m.shape == exact.shape]
            if deltas:
                stacked = np.stack(deltas)
                stacked[~np.isfinite(stacked)] = 0.0  # a masked -inf stays -inf: it moves nothing
                low[name] += np.minimum(0.0, stacked.min(axis=0))
                high[name] += np.maximum(0.0, stacked.max(axis=0))

    # `base` lists quantities in the order they are computed: one after every wanted quantity moves none.
    order = {name: i for i, name in enumerate(base)}
    last = max((order[name] for name in targets), default=-1)
    for source, decimals in printed.items():
        if order.get(source, last + 1) > last:
            continue
        value, seen = _floats(base.get(source)), _floats(shown.get(source))
        if value is None or seen is None or value.shape != seen.shape:
            continue
        lows, highs = source_range(value, np.round(seen, decimals), decimals)
        for index in np.ndindex(value.shape):
            ends = {float(lows[index]), float(highs[index])} - {0.0}
            if ends and np.isfinite(value[index]):
                add([retrace({source: _moved(value, index, end)}) for end in ends], source)
    for alternative in alternatives:
        add([alternative], None)
    return Reach({n: targets[n] + low[n] for n in targets}, {n: targets[n] + high[n] for n in targets})


def _moved(value: np.ndarray, index: tuple[int, ...], by: float) -> Any:
    moved = value.copy()
    moved[index] += by
    return moved if moved.ndim else float(moved)
