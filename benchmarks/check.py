"""Part checks per second: cold (a new seed each time) against warm (a repeated seed).

Cold checks build the variant, which runs the reference for the right answer and every mistake;
warm checks reuse the cached variant and only parse and compare. Prints both rates and their ratio.

    .venv/bin/python benchmarks/check.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.catalog.catalog import Catalog  # noqa: E402


def _answers(catalog: Catalog, exercise_id: str) -> dict[str, str]:
    variant = catalog.variant(exercise_id, 0)
    return {p.spec.id: str(p.answer_json()) for p in variant.parts}


def _rate(seconds: float, step: Callable[[int], int]) -> tuple[float, int]:
    done, i, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += step(i)
        i += 1
    return done / (time.perf_counter() - start), done


def main() -> int:
    """Measure and print cold and warm check rates over the whole catalogue."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    catalog, errors = Catalog.from_directory()
    if errors:
        print("\n".join(map(str, errors)))
        return 1
    ids = [spec.id for spec in catalog]
    answers = {i: _answers(catalog, i) for i in ids}

    def cold(i: int) -> int:
        exercise = ids[i % len(ids)]
        return len(catalog.check(exercise, 1_000_000 + i, answers[exercise]).parts)

    def warm(i: int) -> int:
        exercise = ids[i % len(ids)]
        return len(catalog.check(exercise, 0, answers[exercise]).parts)

    cold_rate, cold_n = _rate(args.seconds, cold)
    warm_rate, warm_n = _rate(args.seconds, warm)
    print(f"exercises: {len(ids)}")
    print(f"cold (new seed each check): {cold_rate:10.0f} part checks/s  ({cold_n} checks)")
    print(f"warm (repeated seed):       {warm_rate:10.0f} part checks/s  ({warm_n} checks)")
    print(f"warm / cold:                {warm_rate / cold_rate:10.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
