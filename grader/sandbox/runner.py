"""One job, run in a child forked from the zygote: compile, check, call each case, report.

Everything here runs inside the sandbox next to hostile code, so nothing it sends is
trusted: the host decodes each frame strictly and decides the verdict itself. This module
is copied into the runtime and imported as a top-level module (stdlib + numpy only).
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import inspect
import io
import linecache
import math
import os
import resource
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, cast

try:
    from . import codec
    from . import reasons as why
    from .outgoing import BadResult, Printed, capture, check_value, printed_report, reported_if_stopped
except ImportError:  # inside the sandbox this file is a top-level module beside codec.py
    import codec  # type: ignore[import-not-found, no-redef]
    import reasons as why  # type: ignore[import-not-found, no-redef]
    from outgoing import (BadResult, Printed, capture, check_value,  # type: ignore[import-not-found, no-redef]
                          printed_report, reported_if_stopped)

FILENAME = "<submission>"
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
MAX_TRACEBACK_FRAMES = 20
MAX_ERROR_CHARS = 8000
_LIBC = ctypes.CDLL(None, use_errno=True)
_KEYWORD_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def child_main(job_fd: int, result_fd: int, out_fd: int, workdir: str,
               limits: dict[str, float]) -> NoReturn:
    """Entry point of the forked child; never returns into the zygote's loop."""
    code = 70
    try:
        _isolate(job_fd, result_fd, out_fd, workdir, limits)
        _run_job(_read_all(job_fd), result_fd, limits)
        code = 0
    except BaseException:  # noqa: BLE001 - report our own failure, then exit regardless
        _report_internal_error(result_fd)
    finally:
        # sys.__stdout__ too: a learner who printed to it was writing to the output pipe.
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            # A broken or replaced stream must not stop us reaching _exit.
            with contextlib.suppress(BaseException):
                if stream is not None:
                    stream.flush()
        os._exit(code)


def _report_internal_error(result_fd: int) -> None:
    # Best effort: the host logs this for the operator and shows the learner a crash.
    with contextlib.suppress(BaseException):
        report = {"kind": "internal_error", "error": traceback.format_exc()}
        os.write(result_fd, codec.frame(codec.encode(report))[:65536])


def _isolate(job_fd: int, result_fd: int, out_fd: int, workdir: str,
             limits: dict[str, float]) -> None:
    # Own session and process group, so the zygote can kill the job and all it spawned.
    os.setsid()
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    keep = sorted({0, 1, 2, job_fd, result_fd})
    for low, high in zip(keep, [*keep[1:], 65536], strict=True):
        os.closerange(low + 1, high)
    os.chdir(workdir)
    os.umask(0o077)
    _set_limits(limits)
    if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if _job_filter:
        # Stack the job's seccomp filter (seccomp.build_job_filter: no setsid, no setpgid) on the slot's.
        if _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, _job_filter[1], 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP) failed")
    for name in ("stdout", "stderr"):
        raw = io.FileIO(1 if name == "stdout" else 2, "w", closefd=False)
        stream = io.TextIOWrapper(raw, encoding="utf-8", errors="backslashreplace",
                                  line_buffering=True)
        setattr(sys, name, stream)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_job_filter: tuple[Any, ...] = ()  # (program buffer, pointer to its sock_fprog), built once


def set_job_filter(program: bytes) -> None:
    """Prepare the filter every job forked later adds (the zygote calls this once: each child then
    makes one prctl call, not a quarter of a millisecond of ctypes)."""
    global _job_filter
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(code))
    _job_filter = (code, ctypes.pointer(fprog)) if program else ()


def _set_limits(limits: dict[str, float]) -> None:
    cpu = max(1, math.ceil(limits["cpu_seconds"]))
    pairs = {
        resource.RLIMIT_CORE: (0, 0),
        resource.RLIMIT_FSIZE: (int(limits["file_bytes"]),) * 2,
        resource.RLIMIT_NOFILE: (int(limits["open_files"]),) * 2,
        resource.RLIMIT_NPROC: (int(limits["processes"]),) * 2,
        # SIGXCPU at the soft limit; SIGKILL a second later if the code ignores it.
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (int(limits["memory_bytes"]),) * 2,
    }
    for which, pair in pairs.items():
        resource.setrlimit(which, pair)


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    os.close(fd)
    return b"".join(chunks)


class _Sender:
    """Writes length-prefixed frames to the result pipe within the job's byte budget."""

    def __init__(self, fd: int, budget: int) -> None:
        self.fd = fd
        self.budget = budget
        self.pid = os.getpid()

    def send(self, message: dict[str, Any]) -> None:
        """Encode and send one frame."""
        self.send_blob(codec.encode(message, max_bytes=self.budget))

    def send_blob(self, blob: bytes) -> None:
        """Send one encoded frame, whole."""
        if os.getpid() != self.pid:
            # A child the learner forked and did not end (say its second fork was refused) has
            # come back into this loop: a second copy of the frames would crash the whole job.
            os._exit(0)
        view = memoryview(codec.frame(blob))
        self.budget -= len(view)
        while view:
            view = view[os.write(self.fd, view):]


def _run_job(payload: bytes, result_fd: int, limits: dict[str, float]) -> None:
    frames = codec.split_frames(payload)
    header = codec.decode(frames[0])
    sender = _Sender(result_fd, int(limits["result_bytes"]))
    function = _load(header["source"], header["function"], header["params"], header.get("optional", []),
                     sender)  # fmt: skip
    if function is not None:
        changes = header.get("changes", [])
        for index, blob in enumerate(frames[1:]):
            _run_case(function, index, blob, sender, limits, changes)
    sender.send({"kind": "done"})


def _load(source: str, name: str, params: list[str], optional: list[str],
          sender: _Sender) -> Callable[..., Any] | None:  # fmt: skip
    try:
        code = compile(source, FILENAME, "exec", dont_inherit=True)
    except SyntaxError as exc:
        sender.send({"kind": "syntax_error", "line": exc.lineno, "message": _syntax_message(exc)})
        return None
    except (ValueError, MemoryError, RecursionError) as exc:
        sender.send({"kind": "syntax_error", "line": None, "message": f"cannot compile: {exc}"})
        return None
    # Sent before any learner code runs, so the host knows the code compiled: a syntax_error frame
    # after it was forged by code that ran (and would otherwise cost its author no attempt).
    sender.send({"kind": "compiled"})
    # Register the source so tracebacks can quote the learner's own lines.
    linecache.cache[FILENAME] = (len(source), None, source.splitlines(True), FILENAME)
    namespace: dict[str, Any] = {"__name__": "submission", "__builtins__": dict(vars(builtins))}
    try:
        exec(code, namespace)  # noqa: S102 - running the learner's code is the point
    except BaseException as exc:  # noqa: BLE001 - learner code may raise anything
        sender.send({"kind": "load_error", "error": learner_traceback(exc)})
        return None
    function = namespace.get(name)
    if not callable(function):
        sender.send({"kind": "missing_function",
                     "message": f"the submission defines no function named {name!r}"})
        return None
    problem = signature_problem(function, name, params, optional)
    if problem:
        sender.send({"kind": "bad_signature", "message": problem})
        return None
    return cast(Callable[..., Any], function)


def _syntax_message(exc: SyntaxError) -> str:
    where = f"line {exc.lineno}" if exc.lineno else "unknown line"
    text = (exc.text or "").rstrip("\n")
    pointer = ""
    if text and exc.offset and 0 < exc.offset <= len(text) + 1:
        pointer = "\n    " + text + "\n    " + " " * (exc.offset - 1) + "^"
    return f"{type(exc).__name__} at {where}: {exc.msg}{pointer}"


def signature_problem(function: Callable[..., Any], name: str, params: list[str],
                      optional: Sequence[str] = ()) -> str | None:
    """Why `function` cannot be called as name(*params) by keyword, leaving out any of `optional`,
    or None if it can."""
    try:
        found = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return why.UNREADABLE_SIGNATURE % {"name": repr(name)}
    expected = f"{name}({', '.join(params)})"
    shown = f"{name}({', '.join(str(p) for p in found)})"
    head, rest = found[: len(params)], found[len(params):]
    if [p.name for p in head] != params or any(p.kind not in _KEYWORD_KINDS for p in head):
        return why.WRONG_SIGNATURE % {"expected": expected, "found": shown}
    undefaulted = [p.name for p in head if p.name in optional and p.default is inspect.Parameter.empty]
    if undefaulted:
        return why.NEEDS_DEFAULT % {"found": shown, "names": ", ".join(undefaulted)}
    variadic = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    if any(p.default is inspect.Parameter.empty and p.kind not in variadic for p in rest):
        return why.EXTRA_WITHOUT_DEFAULTS % {"expected": expected, "found": shown}
    return None


def learner_traceback(exc: BaseException) -> str:
    """A traceback listing only the learner's own frames, capped in length."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == FILENAME]
    lines = ["Traceback (most recent call last):\n"]
    if len(frames) > MAX_TRACEBACK_FRAMES:
        lines.append(f"  ... {len(frames) - MAX_TRACEBACK_FRAMES} earlier frames omitted\n")
    lines += traceback.format_list(frames[-MAX_TRACEBACK_FRAMES:])
    try:
        lines += traceback.format_exception_only(type(exc), exc)
    except BaseException:  # noqa: BLE001 - a learner's __str__ may itself raise
        lines.append(f"{type(exc).__name__}: <message could not be shown>\n")
    text = "".join(lines)
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 15] + "\n... (cut)\n"


def _run_case(function: Callable[..., Any], index: int, blob: memoryview,
              sender: _Sender, limits: dict[str, float], changes: Sequence[str] = ()) -> None:
    # Each case decodes its own fresh arrays, so mutating inputs cannot leak across cases.
    started = time.perf_counter()
    status, value, error = "ok", None, None
    printed = Printed()
    try:
        kwargs = codec.decode(blob)  # inside the try: memory held by an earlier case can fail it
        with capture(printed), reported_if_stopped(printed, index, sender.send):
            returned = function(**kwargs)
        if changes:  # arguments changed in place travel with the result, as they were left
            returned = {"returned": returned, "after": {name: kwargs.get(name) for name in changes}}
        value = check_value(returned, max_bytes=sender.budget)
    except BadResult as exc:
        status, error = "bad_result", str(exc)
    except MemoryError:
        status = "memory_limit"
        mib = int(limits["memory_bytes"]) >> 20
        error = f"MemoryError: the function needed more than {mib} MiB"
    except BaseException as exc:  # noqa: BLE001 - learner code may raise anything
        status, error = "exception", learner_traceback(exc)
    report = {"kind": "case", "index": index, "status": status, "value": value, "error": error,
              "duration_ms": (time.perf_counter() - started) * 1000.0, **printed_report(printed)}
    try:
        blob_out = codec.encode(report, max_bytes=sender.budget)
    except (codec.CodecError, MemoryError) as exc:
        report.update(status="bad_result", value=None, error=why.RESULT_TOO_LARGE % {"why": exc}, printed="",
                      printed_dropped=0)  # fmt: skip
        blob_out = codec.encode(report)
    sender.send_blob(blob_out)

