"""Running learners' numpy functions in warm bubblewrap sandboxes.

    pool = default_pool()
    result = pool.run(source, "layer_norm", ["x", "gamma", "beta"], [{"x": ..., ...}, ...])

Each job runs in a fresh fork of a zygote that sits, numpy already imported, in its own
bwrap sandbox (all namespaces private, no network, read-only runtime, size-capped /tmp,
seccomp, a slot-private unprivileged uid) with CPU, memory, file, process and output
limits. Results come back as plain bytes (see codec.py); the verdict is the caller's.

The names below load on first use, so that the verdict can read reasons.py (the runner's
reasons, as templates) without importing the pool and its process machinery.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .pool import SandboxPool, cold_run, default_pool
    from .results import CaseRun, Limits, RunResult, SandboxUnavailable

_HOMES = {"SandboxPool": "pool", "cold_run": "pool", "default_pool": "pool", "CaseRun": "results",
          "Limits": "results", "RunResult": "results", "SandboxUnavailable": "results"}  # fmt: skip

__all__ = [
    "CaseRun", "Limits", "RunResult", "SandboxPool", "SandboxUnavailable",
    "cold_run", "default_pool",
]


def __getattr__(name: str) -> Any:
    """The pool's and results' public names, imported when first asked for."""
    if name in _HOMES:
        return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
