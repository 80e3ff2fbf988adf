"""Fixtures: a real warm sandbox pool (bubblewrap, seccomp, slot uids); no mocks."""

from __future__ import annotations

import json
import os
import signal
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import pytest

from grader.sandbox import Limits, RunResult, SandboxPool

# Short enough to keep the timeout tests quick, long enough for a loaded CI machine.
TEST_LIMITS = Limits(cpu_seconds=1.0, wall_seconds=3.0)
CANARY = "GRADER_SANDBOX_TEST_CANARY"


def slot_processes(uid: int) -> list[str]:
    """Command lines of every host process running as `uid`."""
    return [_cmdline(pid) for pid in os.listdir("/proc") if pid.isdigit() and _owner(pid) == uid]


def zygote_pids(uid: int) -> list[int]:
    """Host pids of the slot's zygote: the python process whose parent is bwrap."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or _owner(pid) != uid:
            continue
        if _cmdline(pid).startswith("/runtime/bin/python") and "bwrap" in _cmdline(_parent(pid)):
            found.append(int(pid))
    return found


def kill_when_busy(zygote: int, wait: float = 10.0) -> None:
    """SIGKILL the zygote once it has forked a job; a fixed delay would race a slow, loaded machine."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if any(_parent(pid) == str(zygote) for pid in os.listdir("/proc") if pid.isdigit()):
            break
        time.sleep(0.01)
    os.kill(zygote, signal.SIGKILL)


def _owner(pid: str) -> int:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return -1


def _parent(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[1].decode()
    except (OSError, IndexError):
        return "0"


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.fixture(scope="session")
def pool() -> Iterator[SandboxPool]:
    if os.geteuid() != 0:
        pytest.skip("the sandbox drops to per-slot uids and so needs root")
    # Set before the slots start, so a leak from the host environment would be visible.
    os.environ[CANARY] = "host-secret-canary"
    try:
        created = SandboxPool(slots=2, limits=TEST_LIMITS, recycle_after=500)
        yield created
        created.close()
    finally:
        os.environ.pop(CANARY, None)


def run_body(pool: SandboxPool, body: str, cases: int = 1) -> RunResult:
    """Run `def f(): <body>` (numpy as np, os and sys imported) once per case."""
    source = "import os, sys\nimport numpy as np\n\ndef f():\n" + textwrap.indent(
        textwrap.dedent(body).strip(), "    ") + "\n"
    return pool.run(source, "f", [], [{} for _ in range(cases)])


PROBE_MARK = "PROBE-RESULT:"


def probe(pool: SandboxPool, body: str) -> Any:
    """Run `body` as a function in the sandbox and return its JSON-able result via what it printed.

    Results must be numbers or arrays, so probes that report strings print them instead.
    """
    source = (
        "import json, os, sys\nimport numpy as np\n\ndef probe():\n"
        + textwrap.indent(textwrap.dedent(body).strip(), "    ")
        + f"\n\ndef f():\n    print({PROBE_MARK!r} + json.dumps(probe()))\n    return 0\n"
    )
    result = pool.run(source, "f", [], [{}])
    assert only_value(result) == 0
    line = [ln for ln in result.cases[0].printed.splitlines() if ln.startswith(PROBE_MARK)][-1]
    return json.loads(line[len(PROBE_MARK):])


def only_value(result: RunResult) -> Any:
    """The value of a single successful case, failing the test with details otherwise."""
    assert result.status == "completed", (result.status, result.message, result.stdout)
    assert result.cases[0].status == "ok", result.cases[0]
    return result.cases[0].value
