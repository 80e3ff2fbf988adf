"""Turning what came out of a sandbox into a RunResult, trusting none of it.

The frames were written by a process that ran learner code, so each is decoded with the
strict codec and checked field by field; anything unexpected makes the job "crashed".
"""

from __future__ import annotations

import logging
import math
import signal
import traceback
from collections.abc import Iterator
from typing import Any, cast, get_args

from . import codec
from .collector import JobOutcome
from .outgoing import MAX_PRINTED_CHARS
from .results import CaseRun, CaseStatus, Facts, Limits, RunResult, RunStatus

log = logging.getLogger(__name__)
CASE_STATUSES = frozenset(get_args(CaseStatus))
# Frames that end a job once it compiled, before any case runs; the message is the error, for the
# learner. A syntax_error frame ends it before that (see _interpret).
LOAD_STATUS: dict[str, RunStatus] = {
    "missing_function": "missing_function", "bad_signature": "bad_signature", "load_error": "load_error",
}
MAX_TEXT = 16_000
# Sandbox text that reaches the operator's log: cut to this, and escaped, so a submission can
# neither flood the log nor forge lines in it.
MAX_LOGGED = 2000
MALFORMED = "the sandbox returned malformed data"
RUNNER_FAILED = "the sandbox's runner failed while running the job"
# Under RLIMIT_AS, native code whose allocation fails often dies of one of these instead of
# raising MemoryError. SIGKILL is only read as memory when the process was large (the OOM
# killer); a small process killed that way killed itself.
MEMORY_SIGNALS = frozenset({signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT})


class BadFrame(Exception):
    """A frame from the sandbox that does not follow the protocol."""


def _loggable(text: str) -> str:
    """`text` from the sandbox as one escaped log field: its repr, cut to the last MAX_LOGGED."""
    # The end is kept: a traceback's last lines say what went wrong.
    shown = repr(text[-MAX_LOGGED:])
    cut = len(text) > MAX_LOGGED or len(shown) > MAX_LOGGED
    return "[cut] " + shown[-MAX_LOGGED:] if cut else shown


def _text(value: Any, allow_none: bool = False) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str):
        raise BadFrame("expected a string")
    return _encodable(value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "\n... (cut)")


def _encodable(text: str) -> str:
    """`text` with any lone surrogate (print(chr(0xD800)) sends one) written as its escape: a page or a
    terminal encoding it as UTF-8 would fail."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _frames(outcome: JobOutcome, limits: Limits) -> Iterator[dict[str, Any]]:
    """The job's frames, decoded only as they are read: the interpreter stops at the first it cannot
    use, so learner code that floods the result pipe costs the host at most case_count + 2 frames."""
    for blob in codec.iter_frames(outcome.results, partial_ok=True):
        frame = codec.decode(blob, max_bytes=limits.result_bytes)
        if not isinstance(frame, dict) or not isinstance(frame.get("kind"), str):
            raise BadFrame("a frame is not a tagged object")
        yield frame


MAX_CASE_MS = 60_000.0


def _case(frame: dict[str, Any], expected_index: int) -> CaseRun:
    status, duration, index = frame.get("status"), frame.get("duration_ms"), frame.get("index")
    # Type checks first: an unhashable status would make the set lookup raise TypeError.
    if type(index) is not int or index != expected_index:
        raise BadFrame("case frames out of order")
    if not isinstance(status, str) or status not in CASE_STATUSES:
        raise BadFrame("a case frame with an unknown status")
    if not isinstance(duration, (int, float)) or not 0 <= duration < math.inf:
        raise BadFrame("bad case duration")
    value = frame.get("value") if status == "ok" else None
    error = _text(frame.get("error"), allow_none=True)
    printed, dropped = _printed(frame)
    # The learner can replace time.perf_counter inside the sandbox: never trust the figure beyond
    # the wall-clock budget, or a sum of durations could overflow to infinity.
    return CaseRun(cast(CaseStatus, status), value, error, min(float(duration), MAX_CASE_MS), printed, dropped)


def _printed(frame: dict[str, Any]) -> tuple[str, int]:
    """What the case printed, held to the runner's own limit, and how many characters were not kept."""
    printed, dropped = frame.get("printed", ""), frame.get("printed_dropped", 0)
    if not isinstance(printed, str) or type(dropped) is not int or not 0 <= dropped <= codec.INT64_MAX:
        raise BadFrame("bad printed output")
    return _encodable(printed[:MAX_PRINTED_CHARS]), dropped + max(0, len(printed) - MAX_PRINTED_CHARS)


def _abort_reason(outcome: JobOutcome, limits: Limits) -> tuple[RunStatus, str, Facts]:
    """Why the job stopped before its "done" frame, from the zygote's and the host's view."""
    done = outcome.done or {}
    if done.get("timed_out") and starved(done, limits):
        cpu, waited = done["job_cpu_seconds"], done["waited_seconds"]
        return "starved", (f"the host was too busy: the job was stopped by its {limits.wall_seconds:g} s wall-clock "
                           f"limit having used {cpu:.2f} s of CPU, after waiting {waited:.2f} s for one"), {
            "cause": "starved", "seconds": f"{limits.wall_seconds:g}"}
    if outcome.failure == "host_timeout" or done.get("timed_out"):
        seconds = f"{limits.wall_seconds:g}"
        return "timeout", f"the job ran longer than its {seconds} s wall-clock limit", {"cause": "wall",
                                                                                        "seconds": seconds}
    if outcome.failure == "result_overflow":
        return "crashed", "the submission wrote more result data than allowed", {"cause": "result_overflow"}
    if outcome.failure or not done:
        return "crashed", "the sandbox process was killed while running the job", {"cause": "killed"}
    return _death_reason(done, limits)


def starved(done: dict[str, Any], limits: Limits) -> bool:
    """Whether a job the wall clock stopped was the busy host's victim rather than slow or sleeping code:
    short of its own CPU limit, it spent at least half the wall-clock limit waiting for a CPU."""
    cpu, waited = done.get("job_cpu_seconds"), done.get("waited_seconds")
    if not isinstance(cpu, (int, float)) or not isinstance(waited, (int, float)):
        return False
    return bool(cpu < limits.cpu_seconds and waited >= limits.wall_seconds / 2)


def _death_reason(done: dict[str, Any], limits: Limits) -> tuple[RunStatus, str, Facts]:
    """Classify how the job's process ended, from its exit status and resource usage."""
    sig = done.get("signal")
    if not isinstance(sig, int):
        code = done.get("exit_code")
        facts: Facts = {"cause": "exit", "status": code} if type(code) is int else {"cause": "exit"}
        return "crashed", f"the submission's process exited (status {code}) early", facts
    cpu, rss = done.get("cpu_seconds"), done.get("maxrss_bytes")
    cpu_limit = math.ceil(limits.cpu_seconds)
    cpu_spent = isinstance(cpu, (int, float)) and cpu >= cpu_limit - 0.05
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_spent):
        return "timeout", f"the job used more than {cpu_limit} s of CPU time", {"cause": "cpu", "seconds": cpu_limit}
    large = isinstance(rss, int) and rss >= limits.memory_bytes // 2
    mib, name = limits.memory_bytes >> 20, _signal_name(sig)
    if sig in MEMORY_SIGNALS or (sig == signal.SIGKILL and large):
        return "memory_limit", (f"the process died of {name}: most likely out of memory (limit {mib} MiB), "
                                "or a crash in native code"), {"cause": "memory", "signal": name, "mib": mib}
    return "crashed", f"the process was killed by signal {name}", {"cause": "signal", "signal": name}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _not_run(status: RunStatus, reason: str, index: int, count: int, printed: str = "",
             dropped: int = 0) -> list[CaseRun]:
    """The cases from `index` on, which sent no result; the first, where the job stopped, keeps what it
    had printed by then."""
    case_status: CaseStatus = "exception"
    if status in ("timeout", "memory_limit", "starved"):
        case_status = "memory_limit" if status == "memory_limit" else "timeout"
    runs = []
    for i in range(index, count):
        if i == index:
            runs.append(CaseRun(case_status, None, reason, 0.0, printed, dropped))
        else:
            runs.append(CaseRun(case_status, None, f"not run: the job stopped at case {index} ({reason})", 0.0))
    return runs


def _stdout(outcome: JobOutcome) -> str:
    text = outcome.output.decode("utf-8", "replace")
    if outcome.output_dropped:
        text += f"\n[... {outcome.output_dropped} more bytes of output dropped]\n"
    return text


def assemble(outcome: JobOutcome, case_count: int, limits: Limits, duration_ms: float,
             note: str = "") -> RunResult:
    """Build the RunResult for one job from the raw outcome."""
    stdout = _stdout(outcome)

    def result(status: RunStatus, cases: list[CaseRun], message: str, facts: Facts | None = None) -> RunResult:
        return RunResult(status, cases, note + message, stdout, duration_ms, facts or {})

    stopped = _Stopped()
    try:
        frames = _frames(outcome, limits)
        status, cases, message = _interpret(frames, case_count, stopped)
    except Exception as exc:  # noqa: BLE001 - any failure on these bytes is the sandbox's doing
        _log_malformed(exc)
        return result("crashed", _not_run("crashed", MALFORMED, 0, case_count), MALFORMED, {"cause": "malformed"})
    if status is not None and not (status == "completed" and (outcome.done or {}).get("timed_out")):
        return result(status, cases, message)
    # Past the wall-clock deadline nothing completes, even when the code ignored the zygote's SIGXCPU
    # and sent every case and "done" in the grace before SIGKILL.
    reason_status, reason, facts = _abort_reason(outcome, limits)
    # Which case it stopped in: the first one that sent no result.
    not_run = _not_run(reason_status, reason, len(cases), case_count, stopped.printed, stopped.dropped)
    return result(reason_status, cases + not_run, reason, {**facts, "case": len(cases)})


def _log_malformed(exc: Exception) -> None:
    """Log why the sandbox's bytes were refused; an exception other than ours is a bug here."""
    if isinstance(exc, (BadFrame, codec.CodecError)):
        log.warning("sandbox sent malformed results: %s", _loggable(str(exc)))
        return
    # The message may quote sandbox data, so it is escaped; where it was raised is our code.
    where = traceback.extract_tb(exc.__traceback__)[-1:]
    place = f"{where[0].filename}:{where[0].lineno}" if where else "?"
    log.error("unexpected %s while reading sandbox results at %s (treated as malformed): %s",
              type(exc).__name__, place, _loggable(str(exc)))


class _Stopped:
    """What the case the job stopped in had printed, from its `stopped` frame, if it sent one."""

    def __init__(self) -> None:
        self.printed = ""
        self.dropped = 0

    def read(self, frame: dict[str, Any], running: int) -> None:
        """Keep the frame's printed output; a frame for another case than the running one is malformed."""
        index = frame.get("index")
        if type(index) is not int or index != running:
            raise BadFrame("a stopped frame for a case that is not running")
        self.printed, self.dropped = _printed(frame)


def _interpret(frames: Iterator[dict[str, Any]], case_count: int, stopped: _Stopped
               ) -> tuple[RunStatus | None, list[CaseRun], str]:
    """(status, cases, message); status None means the job stopped before "done".

    The runner's first frame says whether the code compiled. Nothing of the learner's has run before
    it, so only there is a syntax_error the runner's own; every frame after it may be forged.
    """
    first = next(frames, None)
    if first is None:
        return None, [], ""
    if first["kind"] == "syntax_error":
        return "syntax_error", [], _setup_message(first)
    if first["kind"] == "internal_error":
        return _runner_failed(first, [], case_count)
    if first["kind"] != "compiled":
        raise BadFrame(f"the job began with {first['kind']!r}, not the runner's compile report")
    return _after_compiling(frames, case_count, stopped)


def _after_compiling(frames: Iterator[dict[str, Any]], case_count: int, stopped: _Stopped
                     ) -> tuple[RunStatus | None, list[CaseRun], str]:
    cases: list[CaseRun] = []
    for position, frame in enumerate(frames):
        kind = frame["kind"]
        if kind in LOAD_STATUS:
            if position:  # the runner sends these before any case; later, learner code forged one
                raise BadFrame(f"a {kind} frame after the job started")
            return LOAD_STATUS[kind], [], _setup_message(frame)
        if kind == "stopped" and len(cases) < case_count:
            stopped.read(frame, len(cases))
            break  # the runner sends it as the job dies: nothing after it is the runner's
        if kind == "case" and len(cases) < case_count:
            cases.append(_case(frame, len(cases)))
        elif kind == "done" and len(cases) == case_count:
            return "completed", cases, f"ran {case_count} case(s)"
        elif kind == "internal_error":
            return _runner_failed(frame, cases, case_count)
        else:
            raise BadFrame(f"unexpected frame {kind!r}")
    return None, cases, ""


def _runner_failed(frame: dict[str, Any], cases: list[CaseRun], case_count: int
                   ) -> tuple[RunStatus, list[CaseRun], str]:
    """End the run as a crash: learner code can forge this frame, so it never lets grading on."""
    error = frame.get("error")
    log.error("sandbox runner failed: %s", _loggable(error) if isinstance(error, str) else "-")
    runs = cases + _not_run("crashed", RUNNER_FAILED, len(cases), case_count)
    return "crashed", runs, RUNNER_FAILED


def _setup_message(frame: dict[str, Any]) -> str:
    message = _text(frame.get("error" if frame["kind"] == "load_error" else "message")) or ""
    line = frame.get("line")
    if line is not None and type(line) is not int:
        raise BadFrame("bad line number")
    return message
