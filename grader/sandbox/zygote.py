"""The warm process inside a sandbox slot: imports numpy once, then forks a child per job.

Started by bwrap as PID 1 of the slot's PID namespace (--as-pid-1), so learner code can
neither kill it (the kernel drops signals to init that it has no handler for) nor hide a
process from it (every orphan is reparented to it). It never reads job data itself: the
host passes each job's input memfd and output pipes over the control socket and only the
forked child touches them, so nothing of one learner's job stays in the memory the next
job's child inherits. This file is copied into the runtime and run as a script.

Control protocol (SOCK_SEQPACKET, one JSON object per message):
  zygote -> host  {"op": "ready", ...}                      once numpy is imported
  host -> zygote  {"op": "run", "limits": {...}} + fds [job memfd, result pipe, output pipe]
  zygote -> host  {"op": "done", "exit_code", "signal", "timed_out", "cpu_seconds", ...}

A job the wall clock stops also reports, as the clock ran out, the CPU time all its processes had
used and how long its tasks had waited for a CPU: the host tells a busy host from slow code by them.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import resource
import select
import shutil
import signal
import socket
import stat
import sys
import time
from typing import Any

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
REAP_SECONDS = 2.0
# How long a job past its wall-clock deadline has, after SIGXCPU, to report and end before SIGKILL.
STOP_GRACE_SECONDS = 0.25


def _parse_args(argv: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for flag, value in zip(argv[::2], argv[1::2], strict=False):
        options[flag.lstrip("-")] = value
    return options


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def _warm_up() -> dict[str, Any]:
    # Importing here, once, is the point of the zygote: each job's fork starts with it.
    import numpy as np
    import runner  # type: ignore[import-not-found]  # noqa: F401 - each child inherits it

    matrix = np.arange(16.0).reshape(4, 4)
    float(np.tanh(matrix @ matrix.T).sum())
    gc.collect()
    gc.freeze()  # children then share, rather than copy, the pages of these objects
    return {"numpy": np.__version__, "python": sys.version.split()[0]}


def _wipe(directory: str) -> bool:
    """Delete everything under `directory` that a job left; False if something stays."""
    try:
        # A job may chmod its directories to 000; they are ours (same uid), so open them up
        # first. An explicit stack, because a job can nest directories deeper than our
        # recursion limit.
        stack = [directory]
        while stack:
            for entry in os.scandir(stack.pop()):
                if entry.is_dir(follow_symlinks=False):
                    os.chmod(entry.path, stat.S_IRWXU)
                    stack.append(entry.path)
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        return not os.listdir(directory)
    except OSError:
        return False  # the host then replaces the whole slot


def _own_state() -> tuple[Any, ...]:
    """What a job could change about this process that the jobs forked after it would inherit."""
    limits = sorted((name, resource.getrlimit(getattr(resource, name)))
                    for name in dir(resource) if name.startswith("RLIMIT_"))
    return (limits, os.getpriority(os.PRIO_PROCESS, 0), sorted(os.sched_getaffinity(0)),
            os.sched_getscheduler(0), os.sched_getparam(0).sched_priority)


class Zygote:
    """Forks, watches and cleans up after one job at a time."""

    def __init__(self, ctrl: socket.socket, workroot: str, pid_namespace: bool,
                 job_filter: bytes = b"") -> None:
        import cputime  # type: ignore[import-not-found]  # beside this file; main() put it on the path
        import runner  # type: ignore[import-not-found]

        runner.set_job_filter(job_filter)
        self.ctrl = ctrl
        self.cputime = cputime
        me = str(os.getpid())
        self.schedule = cputime.schedule(f"/proc/{me}", me)
        self.workroot = workroot
        self.pid_namespace = pid_namespace
        self.jobs = 0
        self.state = _own_state()

    def serve(self) -> None:
        """Answer run requests until the host closes the control socket."""
        while True:
            message, fds, _flags, _addr = socket.recv_fds(self.ctrl, 65536, 4)
            if not message:
                return
            request = json.loads(message)
            if request.get("op") != "run" or len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                self.ctrl.send(json.dumps({"op": "error", "message": "bad request"}).encode())
                continue
            reply = self.run(request["limits"], fds[0], fds[1], fds[2])
            self.ctrl.send(json.dumps(reply).encode())

    def run(self, limits: dict[str, float], job_fd: int, result_fd: int,
            out_fd: int) -> dict[str, Any]:
        """Run one job in a fresh child and report how it ended."""
        self.jobs += 1
        clean = _wipe(self.workroot)
        workdir = os.path.join(self.workroot, f"job{self.jobs}")
        os.mkdir(workdir, 0o700)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            import runner  # loaded by _warm_up

            self.ctrl.close()
            runner.child_main(job_fd, result_fd, out_fd, workdir, limits)
        for fd in (job_fd, result_fd, out_fd):
            os.close(fd)
        status, usage, spent = self._wait(pid, started + float(limits["wall_seconds"]))
        wall = time.monotonic() - started
        clean = self._reap_all(pid) and _wipe(self.workroot) and clean
        # The seccomp filter keeps jobs from retuning us; should one find a way, the host
        # replaces this slot rather than fork the next job with limits it chose.
        clean = clean and _own_state() == self.state
        return {
            "op": "done",
            "exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "timed_out": spent is not None,
            # As the wall clock ran out: the job's CPU time and its wait for a CPU.
            "job_cpu_seconds": spent[0] if spent else None,
            "waited_seconds": spent[1] if spent else None,
            "cpu_seconds": usage.ru_utime + usage.ru_stime,
            "maxrss_bytes": usage.ru_maxrss * 1024,
            "wall_seconds": wall,
            "clean": clean,
        }

    def _wait(self, pid: int, deadline: float) -> tuple[int, Any, tuple[float, float] | None]:
        """Wait for the job until `deadline`; (status, usage, and if the clock stopped it, its CPU time and
        its wait for a CPU then: cputime.JobClock)."""
        pidfd = os.pidfd_open(pid)
        clock = self.cputime.JobClock(pid, self.schedule)
        spent = None
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or select.select([pidfd], [], [], min(remaining, self.cputime.SAMPLE_SECONDS))[0]:
                    break
                clock.sample()  # keeps count of waits schedstat has not counted yet
            timed_out = remaining <= 0
            if timed_out:
                spent = clock.sample()
                # SIGXCPU first: the runner then reports what the running case printed and dies of it.
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGXCPU)
                select.select([pidfd], [], [], STOP_GRACE_SECONDS)
        finally:
            os.close(pidfd)
        if timed_out:
            self._kill_job(pid)
        _pid, status, usage = os.wait4(pid, 0)
        return status, usage, spent

    def _kill_job(self, pid: int) -> None:
        # The child may not have reached setsid() yet, so kill it by pid as well as by group.
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError):
                kill(pid, signal.SIGKILL)

    def _reap_all(self, pid: int) -> bool:
        """Kill whatever the job left behind (daemons, fork bombs) and reap it all."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        deadline = time.monotonic() + REAP_SECONDS
        while time.monotonic() < deadline:
            if self.pid_namespace:
                # As PID 1 we are the only legitimate process: kill(-1) skips init itself.
                with contextlib.suppress(ProcessLookupError):
                    os.kill(-1, signal.SIGKILL)
            try:
                while os.waitpid(-1, os.WNOHANG)[0] > 0:
                    pass
            except ChildProcessError:
                return True
            time.sleep(0.002)
        return False


def main(argv: list[str]) -> int:
    """Set up the zygote from its command line and serve jobs."""
    options = _parse_args(argv)
    pid_namespace = options.get("pidns") == "1"
    if pid_namespace and os.getpid() != 1:
        # kill(-1) outside a private PID namespace would hit every process of this uid.
        print("zygote: --pidns 1 requires running as PID 1", file=sys.stderr)
        return 2
    _prctl(PR_SET_DUMPABLE, 0)  # same-uid job code must not open our /proc/<pid>/mem or fds
    # Python handles SIGINT; as PID 1 with no handler, signals from jobs are simply dropped.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if not pid_namespace:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
    sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), options["site"]]
    info = _warm_up()
    ctrl = socket.socket(fileno=int(options["ctrl"]))
    ctrl.send(json.dumps({"op": "ready", "pid": os.getpid(), **info}).encode())
    devnull = os.open("/dev/null", os.O_WRONLY)
    os.dup2(devnull, 2)  # once ready, the host learns of failures as EOF on the socket
    os.close(devnull)
    Zygote(ctrl, options["workroot"], pid_namespace, bytes.fromhex(options.get("jobfilter", ""))).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
