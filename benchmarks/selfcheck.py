"""What the editor's self-check costs per exercise, against reading (validating) the same file.

Saving or previewing an exercise on the web validates its YAML, then self-checks it: a numeric
exercise on 20 variants, a code exercise on the cases of 5 seeds (the task's reference and each
listed mistake, graded as learners are). Prints, for every shipped exercise, the time to validate
the file and the time of the self-check, with their ratio; then the largest code exercise a file
may ask for (100 random cases, every mistake of its task), the worst case an instructor can post.

    .venv/bin/python benchmarks/selfcheck.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.catalog.catalog import DEFAULT_EXERCISES  # noqa: E402
from grader.catalog.loader import read_sources  # noqa: E402
from grader.catalog.selfcheck import check_spec  # noqa: E402
from grader.codecheck.selfcheck import CODE_SELF_CHECK_SEEDS, check_code_spec  # noqa: E402
from grader.codecheck.spec import CodeExerciseSpec, any_spec_from_text  # noqa: E402
from grader.codecheck.tasks import get_task  # noqa: E402
from grader.services.exercises import SELF_CHECK_SEEDS  # noqa: E402


def best_ms(repeat: int, run: Callable[[], Any]) -> float:
    """The fastest of `repeat` runs, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def self_check(spec: Any) -> list[str]:
    """The editor's self-check of one spec (without the service's cache)."""
    if isinstance(spec, CodeExerciseSpec):
        return check_code_spec(spec, range(CODE_SELF_CHECK_SEEDS)).failures
    return check_spec(spec, range(SELF_CHECK_SEEDS)).failures


def largest(spec: CodeExerciseSpec) -> CodeExerciseSpec:
    """The spec with the most cases and mistakes a file may ask for."""
    cases = spec.cases.model_copy(update={"random": 100})
    return spec.model_copy(update={"cases": cases, "mutants": list(get_task(spec.task).mutants)})


def main() -> int:
    """Time validation and self-check of every shipped exercise and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sources, errors = read_sources(DEFAULT_EXERCISES)
    print(f"{'exercise':<24} {'kind':<8} {'validate ms':>11} {'self-check ms':>14} {'ratio':>7}")
    worst: list[tuple[float, str]] = []
    for name, text in sorted(sources):
        spec, problems = any_spec_from_text(text, name)
        if spec is None:
            print(f"{name}: {problems}")
            return 1
        validate = best_ms(args.repeat, lambda: any_spec_from_text(text, name))
        checked = best_ms(args.repeat, lambda: self_check(spec))
        print(f"{spec.id:<24} {spec.kind:<8} {validate:11.1f} {checked:14.1f} {checked / validate:7.0f}")
        if isinstance(spec, CodeExerciseSpec):
            worst.append((best_ms(1, lambda: self_check(largest(spec))), spec.id))
    print("largest code exercises (100 random cases, every mistake):")
    for ms, exercise in sorted(worst, reverse=True)[:3]:
        print(f"  {exercise:<22} {ms:8.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
