"""Part checks per second: cold (a new seed each time) against warm (a repeated seed).

Cold checks build the variant, which runs the reference for the right answer and every mistake;
warm checks reuse the cached variant and only parse and compare. Prints both rates and their ratio,
over the whole catalogue, then for a formula exercise beside a built-in scenario's (same run).

    .venv/bin/python benchmarks/check.py [--seconds 3] [--formula FILE] [--builtin ID]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.catalog.catalog import Catalog, check_answers  # noqa: E402
from grader.catalog.loader import spec_from_text  # noqa: E402
from grader.catalog.spec import ExerciseSpec  # noqa: E402
from grader.catalog.variants import make_variant  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FORMULA = ROOT / "tests" / "catalog" / "formula_examples" / "block-residual-formula.yaml"  # block-residual, as formulas


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
    parser.add_argument("--formula", type=Path, default=FORMULA, help="a formula exercise file")
    parser.add_argument("--builtin", default="block-residual", help="a built-in scenario's exercise to compare with")
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
    formula, errors = spec_from_text(args.formula.read_text(encoding="utf-8"), str(args.formula))
    if formula is None:
        print("\n".join(map(str, errors)))
        return 1
    _compare(formula, catalog.get(args.builtin), args.seconds)
    return 0


def _one(spec: ExerciseSpec, seconds: float) -> tuple[float, float]:
    """Cold and warm part checks per second of one exercise (cold builds the variant each time)."""
    answers = {p.spec.id: str(p.answer_json()) for p in make_variant(spec, 0).parts}
    warm_variant = make_variant(spec, 0)
    cold, _ = _rate(seconds, lambda i: len(check_answers(make_variant(spec, 2_000_000 + i), answers).parts))
    warm, _ = _rate(seconds, lambda i: len(check_answers(warm_variant, answers).parts))
    return cold, warm


def _compare(formula: ExerciseSpec, builtin: ExerciseSpec, seconds: float) -> None:
    """Print a formula exercise's rates beside a built-in scenario's, and the ratios (the goal: at most 2x slower)."""
    f_cold, f_warm = _one(formula, seconds)
    b_cold, b_warm = _one(builtin, seconds)
    print(f"formula {formula.id}: cold {f_cold:8.0f}/s, warm {f_warm:8.0f}/s")
    print(f"built-in {builtin.id}: cold {b_cold:8.0f}/s, warm {b_warm:8.0f}/s")
    print(f"time per check, formula / built-in: cold {b_cold / f_cold:4.2f}, warm {b_warm / f_warm:4.2f} (goal: at most 2)")


if __name__ == "__main__":
    raise SystemExit(main())
