"""What the formulas' size and time checks cost: the shipped catalogue's formula exercises' variants made
with the checks as shipped, against the same variants with the checks replaced by no-ops, and against a
baseline commit's code (before the shapes were worked out before each operation and the budget looked
at inside each formula), each in a fresh process, in alternating rounds of one run. Also the processor
time and peak traced memory of refusing the hostile formulas.

    .venv/bin/python benchmarks/formula_limits.py [--seeds 40] [--rounds 5] [--baseline f0079b9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, os.environ.get("FORMULA_LIMITS_ROOT", str(ROOT)))  # a baseline's code, when measuring it

from grader.catalog.catalog import Catalog  # noqa: E402
from grader.catalog.formula_model import FORMULA  # noqa: E402
from grader.catalog.spec import ExerciseSpec  # noqa: E402
from grader.catalog.variants import make_variant  # noqa: E402
from grader.formulas import evaluate, vocabulary  # noqa: E402
from grader.formulas.expression import FormulaError, parse_formula  # noqa: E402

HOSTILE = ["outer(arange(20000), arange(20000))",
           "where(reshape(arange(20000), 20000, 1, 1) > 0, reshape(arange(20000), 1, 20000, 1), "
           "reshape(arange(20000), 1, 1, 20000))",
           "reshape(arange(20000), 20000, 1) @ reshape(arange(20000), 1, 20000)"]  # fmt: skip


@contextmanager
def checks_off() -> Iterator[None]:
    """The shape checks before operations and the budget's look at each node, replaced by no-ops."""
    from grader.formulas import budget

    saved: dict[str, Any] = {"bounded": evaluate.bounded, "broadcast": evaluate.broadcast_shape,
                             "matmul": evaluate.matmul_shape, "check": budget.Deadline.check,
                             "functions": dict(vocabulary.FUNCTIONS)}  # fmt: skip
    evaluate.bounded = lambda shape, what: shape  # type: ignore[assignment]
    evaluate.broadcast_shape = evaluate.matmul_shape = lambda *operands: ()  # type: ignore[assignment]
    budget.Deadline.check = lambda self: None  # type: ignore[method-assign]
    vocabulary.FUNCTIONS.update({name: replace(f, makes=None) for name, f in vocabulary.FUNCTIONS.items()})
    try:
        yield
    finally:
        evaluate.bounded, evaluate.broadcast_shape = saved["bounded"], saved["broadcast"]
        evaluate.matmul_shape, budget.Deadline.check = saved["matmul"], saved["check"]
        vocabulary.FUNCTIONS.update(saved["functions"])


def variants_time(specs: list[ExerciseSpec], seeds: int) -> float:
    """Processor seconds to make every spec's variants at seeds 1 to `seeds` (no cache)."""
    started = time.thread_time()
    for spec in specs:
        for seed in range(1, seeds + 1):
            make_variant(spec, seed)
    return time.thread_time() - started


def hostile() -> None:
    """Each hostile formula's refusal: processor time and the peak memory numpy asked for."""
    for text in HOSTILE:
        formula = parse_formula(text)
        tracemalloc.start()
        started = time.thread_time()
        try:
            evaluate.evaluate(formula, {})
            outcome = "computed (!)"
        except FormulaError as error:
            outcome = f"refused: {str(error)[:60]}…"
        except MemoryError as error:  # the baseline's: numpy's own refusal, which reached the page as a 500
            outcome = f"MemoryError, not caught: {str(error)[:50]}…"
        spent = time.thread_time() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"  {text[:50]:<50} {1000 * spent:7.2f} ms  peak {peak / 1e6:6.2f} MB  {outcome}")


def formula_specs() -> list[ExerciseSpec]:
    """The catalogue's formula exercises (of the code being measured)."""
    catalog, _ = Catalog.from_directory()
    return [spec for spec in catalog if spec.model == FORMULA]


def measure(way: str, seeds: int) -> None:
    """In a fresh process: print the processor seconds of one round, the checks on or (way "off") off."""
    specs = formula_specs()
    variants_time(specs, 3)  # warm imports and caches before timing
    if way == "off":
        with checks_off():
            print(variants_time(specs, seeds))
    else:
        print(variants_time(specs, seeds))


def one_round(way: str, seeds: int, root: Path) -> float:
    """One round in a fresh process with the code under `root`."""
    env = {**os.environ, "FORMULA_LIMITS_ROOT": str(root)}
    done = subprocess.run([sys.executable, __file__, "--measure", way, "--seeds", str(seeds)], env=env, check=True,
                          capture_output=True, text=True, cwd=root)  # fmt: skip
    return float(done.stdout.split()[-1])


def baseline_tree(revision: str, into: Path) -> Path:
    """The grader package and exercises of `revision`, unpacked under `into`."""
    archive = subprocess.run(["git", "archive", revision, "grader", "exercises"], cwd=ROOT, check=True,
                             capture_output=True).stdout  # fmt: skip
    with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> int:
    """Print the variant time with the checks, with them as no-ops and at the baseline, and the refusals."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default="f0079b9", help="a commit before the checks")
    parser.add_argument("--measure", choices=["on", "off", "hostile"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure == "hostile":
        hostile()
        return 0
    if args.measure:
        measure(args.measure, args.seeds)
        return 0
    times: dict[str, list[float]] = {"with the checks": [], "checks as no-ops": [], f"baseline {args.baseline}": []}
    with tempfile.TemporaryDirectory() as folder:
        old = baseline_tree(args.baseline, Path(folder))
        for _ in range(args.rounds):  # alternating, so a change in the machine's load falls on all three
            times["with the checks"].append(one_round("on", args.seeds, ROOT))
            times["checks as no-ops"].append(one_round("off", args.seeds, ROOT))
            times[f"baseline {args.baseline}"].append(one_round("on", args.seeds, old))
        env = {**os.environ, "FORMULA_LIMITS_ROOT": str(old)}
        before = subprocess.run([sys.executable, __file__, "--measure", "hostile"], env=env, check=True,
                                capture_output=True, text=True, cwd=old).stdout  # fmt: skip
    count = len(formula_specs()) * args.seeds
    print(f"{count // args.seeds} formula exercises x {args.seeds} seeds = {count} variants, median of {args.rounds} "
          f"rounds, processor time, each round a fresh process")  # fmt: skip
    medians = {name: statistics.median(found) for name, found in times.items()}
    for name, seconds in medians.items():
        print(f"  {name:<22} {1000 * seconds / count:7.3f} ms a variant")
    shipped = medians["with the checks"]
    print(f"  with the checks / no-ops:   {shipped / medians['checks as no-ops']:6.3f}")
    print(f"  with the checks / baseline: {shipped / medians[f'baseline {args.baseline}']:6.3f}")
    print("hostile formulas, refused:")
    hostile()
    print(f"the same at baseline {args.baseline}:")
    print(before, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
