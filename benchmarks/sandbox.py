"""Sandbox benchmark: cold start, warm grading latency, throughput and memory per slot.

    sudo .venv/bin/python benchmarks/sandbox.py [--cold 10] [--warm 100] [--seconds 10]

Prints, in one run:
  - cold start: median of `cold_run`s (a fresh bwrap + Python + numpy for one job);
  - warm grading of code-layer-norm with 20 cases (5 edge + 15 random) through grade_code on
    a warm 1-slot pool: median and p99, and how much of it the sandbox run itself takes;
  - the same for code that prints 200 lines a case (each case's output travels in its result), and
    its ratio to the quiet code;
  - gradings per second on a 2-slot pool, two threads submitting for --seconds;
  - RSS per warm slot: the sum over the processes of the slot's uid (bwrap + zygote);
  - warm median / cold median.
Targets are printed next to the figures, not asserted: the numbers depend on the machine.
Needs root, like the sandbox itself.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import statistics
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from grader.code_grading import grade_code  # noqa: E402
from grader.codecheck.prepare import prepare, sandbox_cases  # noqa: E402
from grader.codecheck.spec import CodeExerciseSpec, load_code_specs  # noqa: E402
from grader.codecheck.tasks import get_task  # noqa: E402
from grader.sandbox import Limits, SandboxPool, cold_run  # noqa: E402

EXERCISES = Path(__file__).resolve().parents[1] / "exercises"
CASES = 20
LIMITS = Limits()  # the production defaults
SOURCE = """
import numpy as np

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""
# The same function, printing as a learner hunting a bug might: 200 lines a case.
CHATTY = SOURCE.replace("    mu = ", "    for row in range(200):\n        print('row', row, x.shape)\n    mu = ")
# Printed next to the figures.
TARGET_RATIO = 0.15
TARGET_RATE = 100.0
TARGET_SLOT_MB = 80.0


def layer_norm_spec(cases: int) -> CodeExerciseSpec:
    """code-layer-norm with enough random cases to make `cases` in all."""
    spec = {s.id: s for s in load_code_specs(EXERCISES)[0]}["code-layer-norm"]
    edges = len(prepare(spec.model_copy(update={"cases": spec.cases.model_copy(
        update={"random": 0})}), 0).cases)
    more = spec.cases.model_copy(update={"random": cases - edges})
    widened = spec.model_copy(update={"cases": more})
    assert len(prepare(widened, 0).cases) == cases
    return widened


def percentile(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def timed_ms(action: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = action()
    return (time.perf_counter() - started) * 1000.0, result


def check_passed(result: Any) -> None:
    if result.status != "passed" or result.score != 1.0:
        raise SystemExit(f"benchmark grading did not pass: {result.status}: {result.message}")


def slot_rss(pool: SandboxPool) -> dict[int, dict[str, float]]:
    """MB of resident memory per slot uid, in all and per process (bwrap, zygote, ...)."""
    found: dict[int, dict[str, float]] = {uid: {} for uid in pool.uids}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
            if uid not in found:
                continue
            with open(f"/proc/{entry}/status", encoding="utf-8") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:
            continue
        name = fields["Name"].strip()
        name = "zygote" if name.startswith("python") else name  # or a job it forked
        rss_mb = int(fields.get("VmRSS", "0 kB").split()[0]) / 1024
        found[uid][name] = found[uid].get(name, 0.0) + rss_mb
    return found


def measure_cold(spec: CodeExerciseSpec, runs: int) -> list[float]:
    task = get_task(spec.task)
    cases = sandbox_cases(prepare(spec, 0))
    samples = []
    for _ in range(runs):
        ms, result = timed_ms(lambda: cold_run(SOURCE, task.function, list(task.params),
                                               cases, LIMITS))
        if result.status != "completed":
            raise SystemExit(f"cold run failed: {result.status}: {result.message}")
        samples.append(ms)
    return samples


class SandboxTime:
    """A runner that forwards to the pool and keeps how long each sandbox run took."""

    def __init__(self, pool: SandboxPool) -> None:
        self.pool = pool
        self.ms: list[float] = []

    def run(self, source: str, function: str, params: list[str], cases: list[dict[str, Any]],
            changes: Sequence[str] = ()) -> Any:
        ms, result = timed_ms(lambda: self.pool.run(source, function, params, cases, changes))
        self.ms.append(ms)
        return result


def measure_warm(spec: CodeExerciseSpec, runs: int, source: str = SOURCE
                 ) -> tuple[list[float], list[float], dict[int, dict[str, float]]]:
    pool = SandboxPool(slots=1, limits=LIMITS, recycle_after=10**6)
    try:
        for seed in range(5):  # warm-up: caches, lazy imports, first fork
            check_passed(grade_code(spec, source, 10**6 + seed, pool))
        runner = SandboxTime(pool)
        samples = []
        for seed in range(runs):  # a fresh seed each time, as each real submission gets
            ms, result = timed_ms(lambda: grade_code(spec, source, seed + 1, runner))
            check_passed(result)
            samples.append(ms)
        return samples, runner.ms, slot_rss(pool)
    finally:
        pool.close()


def measure_rate(spec: CodeExerciseSpec, seconds: float, threads: int = 2
                 ) -> tuple[float, int, dict[int, dict[str, float]]]:
    pool = SandboxPool(slots=threads, limits=LIMITS, recycle_after=10**6)
    try:
        for seed in range(2 * threads):
            check_passed(grade_code(spec, SOURCE, 10**6 + seed, pool))
        seeds = itertools.count(1)
        lock = threading.Lock()
        done = [0] * threads
        failed: list[str] = []
        end = time.perf_counter() + seconds

        def submitter(index: int) -> None:
            while time.perf_counter() < end:
                with lock:
                    seed = next(seeds)
                result = grade_code(spec, SOURCE, seed, pool)
                if result.status != "passed":
                    failed.append(result.status)
                done[index] += 1

        started = time.perf_counter()
        workers = [threading.Thread(target=submitter, args=(i,)) for i in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.perf_counter() - started
        if failed:
            raise SystemExit(f"{len(failed)} gradings did not pass: {sorted(set(failed))}")
        return sum(done) / elapsed, sum(done), slot_rss(pool)
    finally:
        pool.close()


def verdict(ok: bool) -> str:
    return "meets target" if ok else "MISSES target"


def main() -> int:
    """Run the benchmark and print the figures with their targets."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cold", type=int, default=10, help="cold runs (default 10)")
    parser.add_argument("--warm", type=int, default=100, help="warm gradings (default 100)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="throughput run length (default 10)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("the sandbox needs root (each slot runs as its own uid)", file=sys.stderr)
        return 2
    spec = layer_norm_spec(CASES)
    print(f"host: {os.cpu_count()} CPUs, Linux {platform.release()}, Python "
          f"{platform.python_version()}, numpy {np.__version__}")
    print(f"job: code-layer-norm, {CASES} cases (5 edge + {CASES - 5} random), "
          f"limits: {LIMITS.cpu_seconds:g} s CPU, {LIMITS.memory_bytes >> 20} MiB")
    print()

    cold = measure_cold(spec, args.cold)
    cold_median = statistics.median(cold)
    print(f"cold start (bwrap + Python + numpy + job, {len(cold)} cold_runs): "
          f"median {cold_median:.0f} ms (min {min(cold):.0f}, max {max(cold):.0f})")

    warm, inside, warm_rss = measure_warm(spec, args.warm)
    warm_median = statistics.median(warm)
    print(f"warm grading via grade_code, 1 slot ({len(warm)} gradings): "
          f"median {warm_median:.1f} ms, p99 {percentile(warm, 99):.1f} ms "
          f"(sandbox run: median {statistics.median(inside):.1f} ms; the rest is the "
          "reference, mutants and verdict on the host)")

    chatty = statistics.median(measure_warm(spec, args.warm, CHATTY)[0])
    print(f"warm grading of code printing 200 lines a case: median {chatty:.1f} ms "
          f"({chatty / warm_median:.2f} x the quiet code)")

    rate, count, rate_rss = measure_rate(spec, args.seconds)
    print(f"throughput, 2 slots, 2 submitting threads for {args.seconds:g} s: "
          f"{rate:.0f} gradings/s ({count} gradings)   target >= {TARGET_RATE:.0f}/s on 2 "
          f"cores: {verdict(rate >= TARGET_RATE)}")

    print("RSS per warm slot (sum over the slot uid's processes):")
    worst = 0.0
    for label, table in (("1-slot pool", warm_rss), ("2-slot pool", rate_rss)):
        for uid, parts in table.items():
            total = sum(parts.values())
            worst = max(worst, total)
            detail = ", ".join(f"{name} {mb:.1f}" for name, mb in sorted(parts.items()))
            print(f"  {label} uid {uid}: {total:.1f} MB ({detail})")
    print(f"  largest {worst:.1f} MB   target <= {TARGET_SLOT_MB:.0f} MB: "
          f"{verdict(worst <= TARGET_SLOT_MB)}")

    ratio = warm_median / cold_median
    print(f"warm median / cold median: {ratio:.3f}   target <= {TARGET_RATIO}: "
          f"{verdict(ratio <= TARGET_RATIO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
