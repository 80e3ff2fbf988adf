"""Benchmark: `python -m grader.sandbox [--copy]` prints cold-start vs warm-slot job times.

Cold is a one-off sandbox (bwrap + Python + import numpy + the job); warm is the same job
on an already running slot. --copy also times building the runtime copy from scratch in a
temporary directory. Nothing is asserted: the numbers depend on the machine.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import Limits, SandboxPool, cold_run
from .runtime import ensure_runtime

LAYER_NORM = """
import numpy as np

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""
PARAMS = ["x", "gamma", "beta"]


def _cases() -> list[dict[str, object]]:
    rng = np.random.default_rng(0)
    return [{"x": rng.normal(size=(4, 8)), "gamma": rng.normal(size=8),
             "beta": rng.normal(size=8)} for _ in range(3)]


def _timed_ms(action: object) -> float:
    started = time.perf_counter()
    result = action()  # type: ignore[operator]
    elapsed = (time.perf_counter() - started) * 1000.0
    if result.status != "completed":
        raise SystemExit(f"benchmark job failed: {result.status}: {result.message}")
    return elapsed


def measure_copy() -> str:
    """Build a runtime from scratch in a temporary directory and report time and size."""
    with tempfile.TemporaryDirectory(prefix="grader-runtime-bench-") as scratch:
        built = ensure_runtime(Path(scratch))
        return f"runtime copy {built.build_seconds:.2f} s, {built.size_bytes / 2**20:.0f} MiB"


def main(argv: list[str]) -> int:
    """Run the benchmark and print the medians."""
    runtime = ensure_runtime()
    print(f"runtime {runtime.path}")
    if "--copy" in argv:
        print(measure_copy())
    cases = _cases()
    cold = [_timed_ms(lambda: cold_run(LAYER_NORM, "layer_norm", PARAMS, cases)) for _ in range(5)]
    pool = SandboxPool(slots=1, limits=Limits())
    try:
        warm = [_timed_ms(lambda: pool.run(LAYER_NORM, "layer_norm", PARAMS, cases))
                for _ in range(50)]
    finally:
        pool.close()
    print(f"cold {statistics.median(cold):.0f} ms, warm {statistics.median(warm):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
