"""What the route interval (grader/catalog/reach.py) changes, per exercise, over seeds 0 .. N-1.

For every numeric exercise with real-valued parts it prints:
- refused: draws the well-posedness rules refuse in all (redrawn until one is well posed), and how
  many of them only because the route interval made a named mistake's answer acceptable (the draws
  refused with the interval minus those refused without it);
- widening: per part entry, the accepted band's width with the route interval over its width with
  the routes and the tolerance alone (1.0 = unchanged), median and maximum.

    .venv/bin/python benchmarks/route_interval.py [--seeds 200]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.answers.kinds import KINDS, NumericKind  # noqa: E402
from grader.answers.tolerance import bands  # noqa: E402
from grader.catalog import variants  # noqa: E402
from grader.catalog.catalog import Catalog  # noqa: E402
from grader.catalog.reach import Reach  # noqa: E402
from grader.catalog.spec import ExerciseSpec  # noqa: E402


def _refused(spec: ExerciseSpec, seed: int) -> int:
    """Draws refused before the one make_variant keeps (as make_variant draws them)."""
    if seed == 0 and variants._page_params(spec) is not None:
        return 0
    for draw in range(variants.MAX_DRAWS):
        params = variants._draw_params(spec, seed, draw)
        if not isinstance(spec.scenario.suits_story(params) or variants._build(spec, seed, params), str):
            return draw
    return variants.MAX_DRAWS


def _without_reach(spec: ExerciseSpec, seeds: range) -> int:
    """Refused draws with the route interval switched off (the tolerance rule as it was)."""
    kept = variants.route_reach
    variants.route_reach = lambda *args, **kwargs: Reach({}, {})  # type: ignore[assignment]
    try:
        return sum(_refused(spec, seed) for seed in seeds)
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
    seeds = range(parser.parse_args().seeds)
    catalog, _ = Catalog.from_directory()
    print(f"{'exercise':22} {'refused':>8} {'by reach':>9} {'widening median':>16} {'max':>7}")
    for spec in catalog:
        if spec.kind != "numeric":
            continue
        ratios = _widening(catalog, spec, seeds)
        if not ratios:
            continue
        refused = sum(_refused(spec, seed) for seed in seeds)
        by_reach = refused - _without_reach(spec, seeds)
        print(f"{spec.id:22} {refused:8d} {by_reach:9d} {np.median(ratios):16.2f} {max(ratios):7.2f}")


if __name__ == "__main__":
    main()
