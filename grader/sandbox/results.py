"""The sandbox's public value types: limits in, results out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

CaseStatus = Literal["ok", "exception", "timeout", "memory_limit", "bad_result"]
RunStatus = Literal[
    "completed", "syntax_error", "load_error", "missing_function", "bad_signature",
    "timeout", "memory_limit", "crashed", "unavailable",
    # Stopped by the wall clock while it waited for a CPU the busy host did not give it, on every try:
    # the run says nothing about the code (outcome.starved).
    "starved",
]
# What the host knows about a run that stopped early, for a caller that words it itself:
# "cause" (wall, cpu, starved, memory, signal, exit, result_overflow, killed, malformed) and its figures,
# and "case", the index of the first case that sent no result (the case count if all did).
Facts = Mapping[str, int | str]


@dataclass(frozen=True)
class Limits:
    """Resource limits for one job (one submission run over all its cases)."""

    cpu_seconds: float = 2.0
    wall_seconds: float = 5.0
    memory_bytes: int = 768 * 2**20
    file_bytes: int = 4 * 2**20
    open_files: int = 64
    # Tasks (processes and threads) of the slot's uid, the idle zygote included; BLAS runs one
    # thread. RLIMIT_CPU is per process, so this also bounds the CPU one job can use
    # (grader/sandbox/README.md).
    processes: int = 8
    output_bytes: int = 64 * 1024
    result_bytes: int = 64 * 2**20
    tmpfs_bytes: int = 16 * 2**20


@dataclass(frozen=True)
class CaseRun:
    """What one case produced: a checked return value, or why there is none."""

    status: CaseStatus
    value: Any
    error: str | None
    duration_ms: float
    # What the function wrote to sys.stdout and sys.stderr in this case (warnings too), cut to
    # MAX_PRINTED_CHARS; printed_dropped counts the characters cut.
    printed: str = ""
    printed_dropped: int = 0


@dataclass(frozen=True)
class RunResult:
    """The outcome of running a submission over all cases; the verdict is the caller's job."""

    status: RunStatus
    cases: list[CaseRun]
    message: str
    stdout: str
    duration_ms: float
    facts: Facts = field(default_factory=dict)


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here; the message tells the operator what to fix."""
