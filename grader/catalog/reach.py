"""What a learner following a worked solution with the printed numbers can reach: the route interval.

A worked solution (and the hints, its first steps) prints intermediate numbers rounded to their
digits, and a prompt may round a constant (sqrt(2/pi) ~ 0.798). A learner may carry any printed
number on as printed, or their own to any precision: each printed entry is a source of error, from
its own rounding (half a unit of its printed digits) to the printed value itself (which may come
from another route, as the toy block's page does). Its effect on each graded quantity is found by
running the route again with that entry moved to each end of its range (the route evaluated at the
corners). Two bounds hold every result the printed route leads to, and the interval is where they meet:
- summed: each entry's effect through the whole route, added up. Along a chain (mu, then u', then the
  GELU values, then m) it counts an early rounding again at every later printed step, where a learner
  who carries that step as printed has left it behind;
- stepped: step by step, a learner's copy of a printed step is the printed number or the step worked
  out from their copies of the earlier ones, so its range is the wider of the two, and an earlier step
  reaches a later one only through what is not printed in between. On the toy block this halves the band;
  it needs every rounded constant of the prompt declared (Scenario.constants), as the toy block does.

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
                wanted: Iterable[str], alternatives: Iterable[Quantities] = (), stepped: bool = False) -> Reach:  # fmt: skip
    """The interval of each `wanted` quantity over every printed route.

    `base` is the route at full precision (its quantities in the order they are computed), `shown` the
    route the texts print, `printed` each printed
    intermediate with its digits, `alternatives` the route with the prompt's rounded constants.
    Two bounds hold every printed route, and the interval is where they meet: each source's effect
    added up (`_summed`), and, when `stepped`, each step's interval carried on (`_stepped`). The second
    holds only where `alternatives` has every constant a prompt rounds (the toy block's 0.798 and
    0.0447): the first also has room for a constant the prompt rounds and no route declares.
    """
    targets = {name: v for name in wanted if (v := _floats(base.get(name))) is not None}
    sources = _sources(base, shown, printed, targets)
    reads: dict[str, set[str]] = {}
    summed = _summed(retrace, base, sources, targets, reads)
    tighter = _stepped(retrace, base, sources, targets, reads) if stepped else summed
    low = {n: np.maximum(summed[n][0], tighter[n][0]) for n in targets}
    high = {n: np.minimum(summed[n][1], tighter[n][1]) for n in targets}
    for alternative in alternatives:
        for name, exact in targets.items():
            moved = _floats(alternative.get(name))
            if moved is not None and moved.shape == exact.shape:
                delta = np.where(np.isfinite(moved - exact), moved - exact, 0.0)
                low[name], high[name] = low[name] + np.minimum(0.0, delta), high[name] + np.maximum(0.0, delta)
    return Reach({n: targets[n] + low[n] for n in targets}, {n: targets[n] + high[n] for n in targets})


# A printed step: its name, value, the lowest and highest offset of a learner's copy, its printed digits.
Source = tuple[str, np.ndarray, np.ndarray, np.ndarray, int]


def _sources(base: Quantities, shown: Quantities, printed: Mapping[str, int],
             targets: Mapping[str, np.ndarray]) -> list[Source]:  # fmt: skip
    """The printed intermediates a wanted quantity may depend on, in the order they are computed."""
    # `base` lists quantities in the order they are computed: one after every wanted quantity moves none.
    order = {name: i for i, name in enumerate(base)}
    last = max((order[name] for name in targets), default=-1)
    found = []
    for source, decimals in sorted(printed.items(), key=lambda item: order.get(item[0], last + 1)):
        if order.get(source, last + 1) > last:
            continue
        value, seen = _floats(base.get(source)), _floats(shown.get(source))
        if value is None or seen is None or value.shape != seen.shape:
            continue
        found.append((source, value, *source_range(value, np.round(seen, decimals), decimals), decimals))
    return found


Offsets = dict[str, tuple[np.ndarray, np.ndarray]]


def _effects(retrace: Retrace, value: np.ndarray, lows: np.ndarray, highs: np.ndarray, name: str,
             held: Mapping[str, Any], into: Mapping[str, np.ndarray], offsets: Offsets, base: Quantities,
             touched: set[str] | None = None) -> None:  # fmt: skip
    """Move each entry of `name` to each end of its range (the others `held`), adding what it does to each of
    `into`; the names in `touched` it moves stay there (the others are taken out)."""
    moves: set[str] = set()
    for index in np.ndindex(value.shape):
        ends = {float(lows[index]), float(highs[index])} - {0.0}
        if not ends or not np.isfinite(value[index]):
            continue
        runs = [retrace({**held, name: _moved(value, index, end)}) for end in ends]
        moves |= {n for n in touched or () if any(_changes(run.get(n), base.get(n)) for run in runs)}
        for target, exact in into.items():
            moved = [_floats(run.get(target)) for run in runs]
            deltas = [m - exact for m in moved if m is not None and m.shape == exact.shape]
            if deltas:
                stacked = np.stack(deltas)
                stacked[~np.isfinite(stacked)] = 0.0  # a masked -inf stays -inf: it moves nothing
                low, high = offsets[target]
                low, high = low + np.minimum(0.0, stacked.min(axis=0)), high + np.maximum(0.0, stacked.max(axis=0))
                offsets[target] = (low, high)
    if touched is not None:
        touched &= moves


def _changes(moved: Any, exact: Any) -> bool:
    """Whether a rerun moved a quantity (a quantity that is no real number counts as moved)."""
    one, other = _floats(moved), _floats(exact)
    if one is None or other is None or one.shape != other.shape:
        return True
    return bool(np.any(np.where(np.isfinite(one - other), one != other, False)))


def _summed(retrace: Retrace, base: Quantities, sources: list[Source], targets: Mapping[str, np.ndarray],
            reads: dict[str, set[str]]) -> Offsets:  # fmt: skip
    """Each printed entry moved alone through the whole route, the effects added (a worst case: an effect
    through a later printed step counts even where a learner carries that step as printed). `reads` gets,
    per printed step, the later printed steps and the wanted quantities it moves."""
    offsets = {n: (np.zeros_like(v), np.zeros_like(v)) for n, v in targets.items()}
    names = [name for name, *_ in sources]
    for position, (name, value, lows, highs, _digits) in enumerate(sources):
        into = {n: v for n, v in targets.items() if n != name}  # a quantity's own rounding is the tolerance's business
        reads[name] = set(names[position + 1 :]) | set(into)
        _effects(retrace, value, lows, highs, name, {}, into, offsets, base, reads[name])
    return offsets


def _stepped(retrace: Retrace, base: Quantities, sources: list[Source], targets: Mapping[str, np.ndarray],
             reads: Mapping[str, set[str]]) -> Offsets:  # fmt: skip
    """Step by step: a learner's copy of a printed step is the printed number, or the step worked out from
    their copies of the earlier ones (and maybe rounded), so its range is the larger of the two. Each
    earlier step reaches it only through what is not printed in between (those are held at their values)."""
    names = [name for name, *_ in sources]
    ranges: Offsets = {}
    offsets = {n: (np.zeros_like(v), np.zeros_like(v)) for n, v in targets.items()}
    for position, (name, value, lows, highs, digits) in enumerate(sources):
        found = {name: (np.zeros_like(value), np.zeros_like(value))}
        for earlier in range(position):
            source, source_value = sources[earlier][0], sources[earlier][1]
            if name not in reads[source]:
                continue  # moving it alone leaves this step as it is: held in between, all the more
            held = {n: base[n] for n in names[earlier + 1 : position]}
            _effects(retrace, source_value, *ranges[source], source, held, {name: value}, found, base)
        # Worked out from copies that are off, and then rounded the learner's own way: to the printed digits.
        low, high = found[name]
        rounded = (np.round(value + low, digits) - value, np.round(value + high, digits) - value)
        ranges[name] = (np.minimum.reduce([lows, low, rounded[0]]), np.maximum.reduce([highs, high, rounded[1]]))
    for target, exact in targets.items():
        for position, (name, value, *_ends) in enumerate(sources):
            if name == target:
                continue
            if target not in reads[name]:
                continue
            later = [n for n in names[position + 1 :] if n != target]
            _effects(retrace, value, *ranges[name], name, {n: base[n] for n in later}, {target: exact}, offsets, base)
    return offsets


def _moved(value: np.ndarray, index: tuple[int, ...], by: float) -> Any:
    moved = value.copy()
    moved[index] += by
    return moved if moved.ndim else float(moved)
