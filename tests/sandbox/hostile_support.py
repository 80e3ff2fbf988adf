"""Shared machinery of the hostile-submission suite (test_hostile_*.py).

Every hostile submission is graded the way the app grades an upload, through
`grade_code(spec, source, seed, runner)` for `code-layer-norm`, with a real warm pool. The
runner is the pool wrapped in a `Recorder`, so a test sees both what the learner is shown
(the CodeResult) and everything the sandbox handed back (the RunResult: stdout, errors,
raw values). A `Watch` samples the slot uids' processes on the host while the attack runs.

After each test the `hostile` fixture checks the aftermath: no process of a slot uid is
left but each slot's bwrap and zygote, every slot still answers with an empty /tmp, and a
correct submission graded on every slot passes with score 1.0.

The test modules load this file as a pytest plugin (`pytest_plugins`), which provides the
fixtures. Tests that run into a time limit carry the `slow` marker (pyproject.toml); they stay
in the default run, and `-m "not slow"` leaves them out.
"""

from __future__ import annotations

import os
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grader.code_grading import HOST_BUSY, grade_code
from grader.codecheck.prepare import prepare
from grader.codecheck.results import CodeResult
from grader.codecheck.spec import CodeExerciseSpec, load_code_specs
from grader.sandbox import Limits, RunResult, SandboxPool
from tests.sandbox.conftest import zygote_pids

PROJECT = Path(__file__).resolve().parents[2]
SPEC: CodeExerciseSpec = {s.id: s for s in load_code_specs(PROJECT / "exercises")[0]}[
    "code-layer-norm"]
# Short limits keep the suite fast: a CPU-bound attack costs 1 s, a sleeping one 3 s.
HOSTILE_LIMITS = Limits(cpu_seconds=1.0, wall_seconds=3.0, memory_bytes=512 * 2**20)
SEED = 7
CASE_COUNT = len(prepare(SPEC, SEED).cases)
VISIBLE = 0  # index of the first (visible) edge case
HIDDEN = CASE_COUNT - 1  # index of a hidden random case
# Set in the environment before the slots start, so a leak from the host would show.
SECRET_ENV = "GRADER_SECRET_CANARY"
SECRET_VALUE = f"host-secret-{uuid.uuid4().hex}"
MIB = 2**20

CORRECT = """
import numpy as np

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""
# Injected into submissions that steal something: it goes out on every channel a learner
# has (what a case prints; the error text of a visible case; the returned value, as bytes).
EXFILTRATE = """
_CALLS = []

def _exfiltrate(found):
    data = found if isinstance(found, bytes) else str(found).encode('utf-8', 'replace')
    print(data.decode('latin-1'))
    _CALLS.append(1)
    if len(_CALLS) % 2:
        raise RuntimeError(data.decode('latin-1'))
    return np.frombuffer(data or b'-', dtype=np.uint8)
"""


def submission(body: str, prelude: str = "") -> str:
    """A learner's module: imports, `prelude` at module level, then layer_norm doing `body`."""
    head = "import os, sys\nimport numpy as np\n" + textwrap.dedent(prelude)
    return (head + "\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n"
            + textwrap.indent(textwrap.dedent(body).strip(), "    ") + "\n")


def reference_output(case: dict[str, Any]) -> np.ndarray:
    """LayerNorm written here, independently of the grader, to cross-check verdicts."""
    x = np.asarray(case["x"], dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    return case["gamma"] * (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + 1e-5) + case["beta"]


# --- host-side views of the slots -----------------------------------------------------

@dataclass(frozen=True)
class Proc:
    """One host process, as /proc shows it."""

    pid: int
    ppid: int
    uid: int
    state: str
    threads: int
    rss: int
    command: str


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def process(pid: int) -> Proc | None:
    """The process `pid`, or None if it is gone."""
    status = _read(f"/proc/{pid}/status").decode(errors="replace")
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    try:
        return Proc(pid, int(fields["PPid"]), int(fields["Uid"].split()[0]),
                    fields["State"].split()[0], int(fields["Threads"]),
                    int(fields.get("VmRSS", "0 kB").split()[0]) * 1024,
                    _read(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode(errors="replace"))
    except (KeyError, ValueError, IndexError):
        return None


def uid_processes(uids: list[int]) -> dict[int, list[Proc]]:
    """Every host process of each uid in `uids`."""
    found: dict[int, list[Proc]] = {uid: [] for uid in uids}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid not in found:
                continue
        except OSError:
            continue
        proc = process(int(entry))
        if proc is not None and proc.uid in found:
            found[proc.uid].append(proc)
    return found


def slot_pids(uids: list[int]) -> dict[int, tuple[int, ...]]:
    """(bwrap, zygote) host pids of each slot, as far as they exist."""
    pids: dict[int, tuple[int, ...]] = {}
    for uid, procs in uid_processes(uids).items():
        bwraps = [p.pid for p in procs if _is_bwrap(p)]
        pids[uid] = tuple(sorted(bwraps)) + tuple(sorted(zygote_pids(uid)))
    return pids


def _is_bwrap(proc: Proc) -> bool:
    return proc.ppid == os.getpid() and "bwrap" in proc.command.split(" ", 1)[0]


def strays(uids: list[int]) -> list[Proc]:
    """Processes of the slot uids that are neither a slot's bwrap nor its zygote."""
    bad = []
    for uid, procs in uid_processes(uids).items():
        zygotes = set(zygote_pids(uid))
        bwraps = [p for p in procs if _is_bwrap(p) and p.state != "Z"]
        for proc in procs:
            legit = proc.state != "Z" and (proc in bwraps or proc.pid in zygotes)
            if not legit or len(bwraps) > 1 or len(zygotes) > 1:
                bad.append(proc)
    return bad


class Watch:
    """Samples the slot uids' processes while an attack runs: peak count, threads, RSS."""

    def __init__(self, uids: list[int], interval: float = 0.004) -> None:
        self.uids = uids
        self.interval = interval
        self.processes = 0
        self.threads = 0
        self.rss = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            for procs in uid_processes(self.uids).values():
                self.processes = max(self.processes, len(procs))
                self.threads = max(self.threads, sum(p.threads for p in procs))
                self.rss = max(self.rss, sum(p.rss for p in procs))
            if self._stop.wait(self.interval):
                return


# --- grading --------------------------------------------------------------------------

class Recorder:
    """A grade_code runner that forwards to the pool and keeps what went in and out."""

    def __init__(self, pool: SandboxPool) -> None:
        self.pool = pool
        self.calls: list[list[dict[str, Any]]] = []
        self.runs: list[RunResult] = []

    def run(self, source: str, function: str, params: list[str],
            cases: list[dict[str, Any]], changes: Sequence[str] = ()) -> RunResult:
        self.calls.append(cases)
        result = self.pool.run(source, function, params, cases, changes)
        self.runs.append(result)
        return result


@dataclass
class Graded:
    """A hostile submission's grading: the verdict, the raw run, and what the host saw."""

    code: CodeResult
    run: RunResult
    sent: list[dict[str, Any]]
    seed: int
    watch: Watch
    seconds: float

    def values(self) -> list[Any]:
        return [case.value for case in self.run.cases]

    def case_message(self, index: int) -> str:
        return self.code.cases[index].message if self.code.cases else ""

    def haystack(self) -> str:
        """Everything the learner or the operator could read, as one text (arrays as bytes)."""
        parts = [self.code.message, self.run.message, self.run.stdout, repr(self.code.to_json())]
        parts += [case.message for case in self.code.cases]
        for case in self.run.cases:
            parts += [case.error or "", case.printed, _as_text(case.value)]
        return "\n".join(parts)


def _as_text(value: Any) -> str:
    """A returned value as text, decoding integer arrays as the bytes they may smuggle."""
    if isinstance(value, dict):
        return "\n".join(_as_text(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return "\n".join(_as_text(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size:
        if value.min() >= 0 and value.max() < 256:
            return value.astype(np.uint8).tobytes().decode("latin-1")
    return repr(value)


def assert_absent(secret: str, graded: Graded, label: str) -> None:
    """Fail without echoing `secret` (a real file's content must not reach the CI log)."""
    assert secret, f"empty {label}: the test itself is broken"
    assert secret not in graded.haystack(), f"{label} leaked to the learner or the log"


def assert_not_passed(graded: Graded, status: str, message: str | None = None,
                      visible: str | None = None, hidden: str | None = None,
                      score: float = 0.0) -> None:
    """The verdict: its status and score, and what the run-level / case-level messages say."""
    code = graded.code
    summary = (code.status, code.score, code.message, [c.message[:120] for c in code.cases[:2]])
    if status == "timeout" and graded.run.status == "starved":
        # On a machine so loaded that the job waited for a CPU most of its wall-clock time on every
        # try (the zygote measures it), a job meant to time out gets no verdict
        # (grader/sandbox/README.md, fair time limits): that, exactly, is what the learner must get then.
        assert (code.status, code.score, code.counted) == ("invalid", 0.0, False), summary
        assert code.text.template == HOST_BUSY and graded.run.facts.get("tries") == 3, summary
        return
    assert code.status == status, summary
    assert code.status != "passed" and code.score == score, summary
    if message is not None:
        assert message in code.message, summary
    if visible is not None:
        assert visible in graded.case_message(VISIBLE), graded.case_message(VISIBLE)
    if hidden is not None:
        assert graded.case_message(HIDDEN) == hidden, graded.case_message(HIDDEN)
    if status in ("error", "timeout", "memory_limit"):
        # A run that stopped judges the cases it finished and the one it stopped in, no later one.
        stopped = graded.run.facts.get("case")
        assert len(code.cases) <= (stopped + 1 if isinstance(stopped, int) else 0), summary


class Hostile:
    """Grades hostile submissions on the module's pool and checks the aftermath."""

    def __init__(self, pool: SandboxPool, tmp_path: Path) -> None:
        self.pool = pool
        self.tmp_path = tmp_path
        self.recorder = Recorder(pool)
        self.before = slot_pids(pool.uids)

    @property
    def uids(self) -> list[int]:
        return self.pool.uids

    def grade(self, source: str, seed: int = SEED) -> Graded:
        """Grade `source` as an upload for code-layer-norm, watching the slots meanwhile."""
        count = len(self.recorder.runs)
        started = time.monotonic()
        with Watch(self.uids) as watch:
            code = grade_code(SPEC, source, seed, self.recorder)
        seconds = time.monotonic() - started
        assert len(self.recorder.runs) == count + 1, "grade_code must run the sandbox once"
        assert isinstance(code, CodeResult)
        return Graded(code, self.recorder.runs[-1], self.recorder.calls[-1], seed, watch, seconds)

    def check_aftermath(self) -> None:
        """No leftovers, every slot answers with a clean /tmp, a correct submission passes."""
        deadline = time.monotonic() + 3.0
        while strays(self.uids) and time.monotonic() < deadline:
            time.sleep(0.02)
        left = strays(self.uids)
        assert not left, f"processes left behind by the attack: {left}"
        seen = {}
        for _ in self.uids:  # the pool hands out slots in turn, so this visits every slot
            result = self.pool.run(PROBE_SLOT, "probe", [], [{}])
            assert result.status == "completed" and result.cases[0].status == "ok", result
            uid, leftovers = result.cases[0].value
            seen[uid] = leftovers
        assert set(seen) == set(self.uids), seen
        assert all(count == 0 for count in seen.values()), f"/tmp not emptied: {seen}"
        for _ in self.uids:
            verdict = grade_code(SPEC, CORRECT, SEED + 1, self.pool)
            assert (verdict.status, verdict.score) == ("passed", 1.0), verdict
        for uid, pids in slot_pids(self.uids).items():
            assert len(pids) == 2, f"slot uid {uid} should run one bwrap and one zygote: {pids}"


PROBE_SLOT = """
import os

def probe():
    mine = os.path.basename(os.getcwd())
    return [os.getuid(), len([n for n in os.listdir('/tmp') if n != mine])]
"""


@pytest.fixture(scope="module")
def hostile_pool() -> Iterator[SandboxPool]:
    """A warm 2-slot pool with short limits, started with a secret in our environment."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox drops to per-slot uids and so needs root")
    os.environ[SECRET_ENV] = SECRET_VALUE
    try:
        pool = SandboxPool(slots=2, limits=HOSTILE_LIMITS, recycle_after=1000)
        try:
            yield pool
        finally:
            pool.close()
    finally:
        os.environ.pop(SECRET_ENV, None)


@pytest.fixture
def hostile(hostile_pool: SandboxPool, tmp_path: Path) -> Iterator[Hostile]:
    """The harness for one attack; afterwards the pool must be clean and still grade right."""
    harness = Hostile(hostile_pool, tmp_path)
    yield harness
    harness.check_aftermath()
