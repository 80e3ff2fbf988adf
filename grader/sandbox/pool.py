"""A pool of warm sandbox slots, each running as its own unprivileged host uid."""

from __future__ import annotations

import atexit
import logging
import os
import queue
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from grader.environment import sandbox_mode, sandbox_slots

from . import codec
from .bwrap import bwrap_command, find_bwrap, local_command
from .collector import JobOutcome
from .lease import UidLease
from .outcome import assemble
from .results import Limits, RunResult, SandboxUnavailable
from .runtime import Runtime, ensure_runtime
from .seccomp import build_filter, build_job_filter
from .slot import Slot, SlotSpec

log = logging.getLogger(__name__)
Command = Callable[[int, int], tuple[list[str], dict[str, str]]]
MAX_SOURCE_BYTES = 1 << 20
DEFAULT_LIMITS = Limits()
# How often a job the busy host starved of CPU is run before it is reported as starved (not counted).
STARVED_TRIES = 3
STARVED_PAUSE_SECONDS = 0.5
UNSAFE_NOTE = "UNSAFE LOCAL MODE, no sandbox (GRADER_SANDBOX=unsafe-local): "


class SandboxPool:
    """Warm sandboxes shared by threads; `run` blocks until a slot is free."""

    def __init__(self, slots: int = 2, limits: Limits = DEFAULT_LIMITS,
                 recycle_after: int = 200) -> None:
        if slots < 1:
            raise ValueError("a pool needs at least one slot")
        self.limits = limits
        self.recycle_after = recycle_after
        self.unsafe = _mode() == "unsafe-local"
        self.note = UNSAFE_NOTE if self.unsafe else ""
        self.runtime: Runtime | None = None
        self._closed = False
        self._owner = os.getpid()
        self._lease: UidLease | None = None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        # bwrap's --die-with-parent fires when the *thread* that spawned it exits, so every
        # slot is spawned from this one long-lived thread, not from a request thread.
        self._launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-launch")
        self._slots: list[Slot] = []
        self._free: queue.Queue[Slot] = queue.Queue()
        try:
            self._slots = [Slot(spec) for spec in self._specs(slots)]
            for slot in self._slots:
                slot.start()
                self._free.put(slot)
        except BaseException:
            self.close()
            raise

    def _specs(self, count: int) -> list[SlotSpec]:
        spawn = self._spawn
        if self.unsafe:
            log.warning("GRADER_SANDBOX=unsafe-local: submissions run WITHOUT any sandbox")
            self._tmp = tempfile.TemporaryDirectory(prefix="grader-unsafe-")
            return [SlotSpec(i, None, self._local_command(i), None, spawn) for i in range(count)]
        if os.geteuid() != 0:
            raise SandboxUnavailable(
                "the sandbox must be started as root: each slot drops to its own unprivileged "
                "uid so that process limits apply per slot. For development only, set "
                "GRADER_SANDBOX=unsafe-local to run submissions without isolation."
            )
        bwrap = find_bwrap()
        self.runtime = ensure_runtime()
        log.info("sandbox runtime: %s", self.runtime.path)
        seccomp, job_filter = build_filter(), build_job_filter()
        self._lease = UidLease.acquire(count)
        runtime, tmpfs = self.runtime, self.limits.tmpfs_bytes

        def command(ctrl: int, seccomp_fd: int) -> tuple[list[str], dict[str, str]]:
            # bwrap itself gets a bare environment too: nothing of ours to inherit.
            argv = bwrap_command(bwrap, runtime, ctrl, seccomp_fd, tmpfs, job_filter)
            return argv, {"PATH": "/usr/bin:/bin"}

        uids = self._lease.uids
        return [SlotSpec(i, uid, command, seccomp, spawn, self._lease) for i, uid in enumerate(uids)]

    def _local_command(self, index: int) -> Command:
        assert self._tmp is not None
        workroot = os.path.join(self._tmp.name, f"slot{index}")
        os.makedirs(workroot, exist_ok=True)
        return lambda ctrl, _seccomp: local_command(ctrl, workroot)

    def _spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        def popen() -> subprocess.Popen[bytes]:
            return subprocess.Popen(argv, **kwargs)

        return self._launcher.submit(popen).result()

    @property
    def uids(self) -> list[int]:
        """The host uids the slots run as (empty in unsafe-local mode)."""
        return list(self._lease.uids) if self._lease else []

    def run(self, source: str, function: str, params: list[str], cases: list[dict[str, Any]],
            changes: Sequence[str] = ()) -> RunResult:
        """Run `function` from `source` on each case (kwargs) in a warm sandbox; for each of the
        arguments named in `changes`, the case's value is {"returned": ..., "after": {name: ...}}."""
        payload = _payload(source, function, params, cases, changes)
        if self._closed:
            raise SandboxUnavailable("the sandbox pool is closed")
        started = time.perf_counter()
        # A job the wall clock stopped while it waited for a CPU (outcome.starved) was the busy
        # host's doing, not the learner's: run it again a few times, then report it as starved.
        for tried in range(1, STARVED_TRIES + 1):
            result = self._run_once(payload, len(cases), started)
            if result.status != "starved":
                return result
            log.warning("sandbox: job starved of CPU by a busy host (try %d of %d): %s",
                        tried, STARVED_TRIES, result.message)
            if tried < STARVED_TRIES:
                time.sleep(STARVED_PAUSE_SECONDS * tried)  # the host may be past its busy moment
        message = f"{result.message}, on each of {STARVED_TRIES} tries"
        return replace(result, message=message, facts={**result.facts, "tries": STARVED_TRIES},
                       duration_ms=_ms(started))

    def _run_once(self, payload: bytes, case_count: int, started: float) -> RunResult:
        slot = self._free.get()
        try:
            outcome: JobOutcome | None = None
            # A zygote that died while idle (say, the OOM killer) is not the learner's
            # fault: restart the slot and try once more before reporting a crash.
            for _attempt in range(2):
                if not slot.healthy or slot.jobs >= self.recycle_after:
                    try:
                        slot.start()
                    except SandboxUnavailable as exc:
                        return RunResult("unavailable", [], str(exc), "", _ms(started))
                outcome = slot.run(payload, self.limits)
                if outcome.failure != "not_started":
                    break
        finally:
            self._free.put(slot)
        assert outcome is not None
        return assemble(outcome, case_count, self.limits, _ms(started), self.note)

    def close(self) -> None:
        """Kill every slot and release the uids; the pool cannot be used afterwards."""
        self._closed = True
        if os.getpid() != self._owner:
            return  # a copy inherited across fork: the slots and uids are the parent's
        for slot in self._slots:
            slot.kill()
        self._launcher.shutdown(wait=False)
        if self._lease:
            self._lease.release()
        if self._tmp:
            self._tmp.cleanup()


def _mode() -> str:
    try:
        return sandbox_mode(os.environ)
    except ValueError as error:  # the app checks it at start; a worker or script may not have
        raise SandboxUnavailable(str(error)) from None


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000.0


def _payload(source: str, function: str, params: list[str], cases: list[dict[str, Any]],
             changes: Sequence[str] = ()) -> bytes:
    """The job as the child reads it: a header frame, then one frame per case."""
    if not isinstance(source, str) or len(source.encode("utf-8", "replace")) > MAX_SOURCE_BYTES:
        raise ValueError(f"source must be a str of at most {MAX_SOURCE_BYTES} bytes")
    names = [function, *params]
    if not all(isinstance(name, str) and name.isidentifier() for name in names):
        raise ValueError("function and parameter names must be identifiers")
    for case in cases:
        if not isinstance(case, dict) or not set(case) <= set(params):
            raise ValueError(f"each case must be a dict whose keys are among {params}")
    if not set(changes) <= set(params):
        raise ValueError(f"the arguments reported after each call must be among {params}")
    # Parameters some case leaves out: the learner's function must give them defaults.
    optional = [name for name in params if any(name not in case for case in cases)]
    header = codec.encode({"source": source, "function": function, "params": list(params),
                           "optional": optional, "changes": list(changes)})  # fmt: skip
    return b"".join(codec.frame(blob) for blob in [header] + [codec.encode(c) for c in cases])


_default: SandboxPool | None = None
_default_pid = 0
_default_lock = threading.Lock()


def default_pool() -> SandboxPool:
    """The process-wide pool, created on first use with $GRADER_SANDBOX_SLOTS slots."""
    global _default, _default_pid
    with _default_lock:
        # A pool inherited across fork (gunicorn's pre-fork) has no live slots here.
        if _default is None or _default_pid != os.getpid():
            _default = SandboxPool(slots=sandbox_slots(os.environ))
            _default_pid = os.getpid()
            atexit.register(_default.close)
        return _default


def cold_run(source: str, function: str, params: list[str], cases: list[dict[str, Any]],
             limits: Limits = DEFAULT_LIMITS) -> RunResult:
    """Start a one-off sandbox, run one job, tear it down (the benchmark's cold baseline)."""
    pool = SandboxPool(slots=1, limits=limits)
    try:
        return pool.run(source, function, params, cases)
    finally:
        pool.close()
