"""Running learners' numpy functions in warm bubblewrap sandboxes.

    pool = default_pool()
    result = pool.run(source, "layer_norm", ["x", "gamma", "beta"], [{"x": ..., ...}, ...])

Each job runs in a fresh fork of a zygote that sits, numpy already imported, in its own
bwrap sandbox (all namespaces private, no network, read-only runtime, size-capped /tmp,
seccomp, a slot-private unprivileged uid) with CPU, memory, file, process and output
limits. Results come back as plain bytes (see codec.py); the verdict is the caller's.
"""

from __future__ import annotations

from .pool import SandboxPool, cold_run, default_pool
from .results import CaseRun, Limits, RunResult, SandboxUnavailable

__all__ = [
    "CaseRun", "Limits", "RunResult", "SandboxPool", "SandboxUnavailable",
    "cold_run", "default_pool",
]
