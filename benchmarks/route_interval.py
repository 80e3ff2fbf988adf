"""What the route interval (grader/catalog/reach.py) changes, per exercise, over seeds 0 .. N-1.

For every numeric exercise with real-valued parts it prints:
- refused: draws the well-posedness rules refuse in all (redrawn until one is well posed); of them,
  those refused as a skipped step (grader/catalog/skipped.py) or an optional mistake without a reason
  gives an accepted answer; and how many more are refused with the route interval than without it;
- widening: per part entry, the accepted band's width with the route interval over its width with
  the routes and the tolerance alone (1.0 = unchanged), median and maximum.

    .venv/bin/python benchmarks/route_interval.py [--seeds 200] [--exercise ID ...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.answers.kinds import KINDS, NumericKind  # noqa: E402
from grader.answers.tolerance import bands  # noqa: E402
from grader.catalog import draws, variants  # noqa: E402
from grader.catalog.catalog import Catalog  # noqa: E402
from grader.catalog.reach import Reach  # noqa: E402
from grader.catalog.spec import ExerciseSpec  # noqa: E402


def _refused(spec: ExerciseSpec, seed: int) -> Counter[str]:
    """Draws refused before the one make_variant keeps (as make_variant draws them), by rule."""
    found: Counter[str] = Counter()
    if seed == 0 and variants._page_params(spec) is not None:
        return found
    for draw in range(variants.MAX_DRAWS):
        params = draws.draw_params(spec, seed, draw)
        built = spec.scenario.suits_story(params) or variants._build(spec, seed, params)
        if not isinstance(built, str):
            break
        found["all"] += 1
        found["skipped"] += "leaving out a step" in built
        found["optional"] += "an optional mistake may" in built
    return found


def _refusals(spec: ExerciseSpec, seeds: range) -> Counter[str]:
    return sum((_refused(spec, seed) for seed in seeds), Counter())


def _without_reach(spec: ExerciseSpec, seeds: range) -> int:
    """Refused draws with the route interval switched off (the tolerance rule as it was)."""
    kept = variants.route_reach
    variants.route_reach = lambda *args, **kwargs: Reach({}, {})  # type: ignore[assignment]
    try:
        return _refusals(spec, seeds)["all"]
    finally:
        variants.route_reach = kept


def _width(routes: list[Any], part: Any) -> np.ndarray:
    accepted = bands(np.stack([np.asarray(r, dtype=float) for r in routes]), part.tolerance)
    return np.asarray(accepted.high - accepted.low, dtype=float)


def _widening(catalog: Catalog, spec: ExerciseSpec, seeds: range) -> list[float]:
    ratios: list[float] = []
    for seed in seeds:
        for part in catalog.variant(spec.id, seed).parts:
            if part.target.reach is None or not isinstance(KINDS[part.spec.type], NumericKind):
                continue
            old, new = _width(list(part.target.routes), part), _width(list(part.target.accepted), part)
            ratios += [float(r) for r in np.ravel(new / np.where(old > 0, old, np.nan)) if np.isfinite(r)]
    return ratios


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--exercise", action="append", help="only these exercises (repeatable); default all")
    args = parser.parse_args()
    seeds = range(args.seeds)
    catalog, _ = Catalog.from_directory()
    print(f"{'exercise':22} {'refused':>8} {'skipped step':>13} {'optional':>9} {'by reach':>9} "
          f"{'widening median':>16} {'max':>7}")  # fmt: skip
    for spec in catalog:
        if spec.kind != "numeric" or (args.exercise and spec.id not in args.exercise):
            continue
        ratios = _widening(catalog, spec, seeds) or [1.0]
        refused = _refusals(spec, seeds)
        by_reach = refused["all"] - _without_reach(spec, seeds)
        print(f"{spec.id:22} {refused['all']:8d} {refused['skipped']:13d} {refused['optional']:9d} {by_reach:9d} "
              f"{np.median(ratios):16.2f} {max(ratios):7.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
