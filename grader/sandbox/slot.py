"""One warm sandbox: starting its zygote, handing it a job, collecting what comes back."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from .collector import Collector, JobOutcome
from .lease import UidLease
from .results import Limits, SandboxUnavailable

STARTUP_SECONDS = 30.0
# Host-side slack over the zygote's own wall limit: it still has to let the job report (0.25 s,
# zygote.STOP_GRACE_SECONDS), kill, reap and reply.
GRACE_SECONDS = 3.25
Spawner = Callable[..., "subprocess.Popen[bytes]"]


@dataclass(frozen=True)
class SlotSpec:
    """How to start a slot's zygote: argv builder, host uid, and the launcher to use."""

    index: int
    uid: int | None  # None in unsafe-local mode: run as ourselves
    command: Callable[[int, int], tuple[list[str], dict[str, str]]]  # (ctrl_fd, seccomp_fd)
    seccomp: bytes | None
    spawn: Spawner
    lease: UidLease | None = None  # holds `uid`; only a uid it holds has its processes killed


def _sealed_memfd(data: bytes, name: str) -> int:
    """A memory file holding `data` that nobody, the sandbox included, can modify."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    seals = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _children(pid: int) -> list[int]:
    """Host pids whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                # The command name may contain spaces; the ppid follows its closing ")".
                fields = handle.read().rsplit(b")", 1)[1].split()
            if entry.isdigit() and int(fields[1]) == pid:
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        if pid < 0:
            os.killpg(-pid, sig)
        else:
            os.kill(pid, sig)


class Slot:
    """A zygote in its own sandbox, used by one job at a time."""

    def __init__(self, spec: SlotSpec) -> None:
        self.spec = spec
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None
        self.jobs = 0
        self.healthy = False
        self.ready_info: dict[str, Any] = {}

    def start(self) -> None:
        """Start the zygote and wait until numpy is imported; SandboxUnavailable on failure."""
        self.kill()
        self._kill_uid()  # leftovers of a crashed earlier slot of ours
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        seccomp = self.spec.seccomp
        seccomp_fd = _sealed_memfd(seccomp, "grader-seccomp") if seccomp else -1
        passed = [child.fileno()] + ([seccomp_fd] if seccomp_fd >= 0 else [])
        try:
            argv, env = self.spec.command(child.fileno(), seccomp_fd)
            self.proc = self._launch(argv, env, passed)
        except OSError as exc:
            parent.close()
            raise SandboxUnavailable(f"cannot start the sandbox: {exc}") from None
        finally:
            child.close()
            if seccomp_fd >= 0:
                os.close(seccomp_fd)
        self.sock = parent
        self.jobs = 0
        self._await_ready()

    def _launch(self, argv: list[str], env: dict[str, str],
                fds: list[int]) -> subprocess.Popen[bytes]:
        uid = self.spec.uid
        identity: dict[str, Any] = {}
        if uid is not None:
            # A uid of its own per slot, so RLIMIT_NPROC counts this slot's processes only.
            identity = {"user": uid, "group": uid, "extra_groups": []}
        return self.spec.spawn(
            argv, env=env, cwd="/", stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, close_fds=True, pass_fds=tuple(fds), process_group=0,
            **identity,
        )

    def _await_ready(self) -> None:
        assert self.sock is not None and self.proc is not None
        self.sock.settimeout(STARTUP_SECONDS)
        try:
            message = self.sock.recv(65536)
        except OSError:  # includes the timeout
            message = b""
        self.sock.settimeout(None)
        try:
            self.ready_info = json.loads(message) if message else {}
        except ValueError:
            self.ready_info = {}
        if self.ready_info.get("op") != "ready":
            detail = self._failure_detail()
            raise SandboxUnavailable(f"the sandbox did not start: {detail}")
        if self.proc.stderr is not None:
            self.proc.stderr.close()  # the zygote moved its stderr to /dev/null once ready
        self.healthy = True

    def _failure_detail(self) -> str:
        proc = self.proc
        self.kill()
        if proc is None or proc.stderr is None:
            return "no error output"
        text = proc.stderr.read().decode("utf-8", "replace").strip()
        return text[-2000:] or f"exit status {proc.returncode}"

    def run(self, payload: bytes, limits: Limits) -> JobOutcome:
        """Hand one job to the zygote and collect results, output and its report."""
        if self.sock is None or self.proc is None or self.proc.poll() is not None:
            self.kill()
            return JobOutcome(failure="not_started")
        self.jobs += 1
        memfd = _sealed_memfd(payload, "grader-job")
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        request = json.dumps({"op": "run", "limits": asdict(limits)}).encode()
        started = time.monotonic()
        try:
            socket.send_fds(self.sock, [request], [memfd, res_w, out_w])
        except OSError:
            os.close(res_r)
            os.close(out_r)
            self.kill()
            return JobOutcome(failure="not_started")
        finally:
            for fd in (memfd, res_w, out_w):
                os.close(fd)
        outcome = Collector(self.sock, res_r, out_r, limits).collect(
            started + limits.wall_seconds + GRACE_SECONDS)
        outcome.wall_seconds = time.monotonic() - started
        clean = bool((outcome.done or {}).get("clean"))
        if outcome.failure in ("zygote_died", "host_timeout") or not clean:
            self.kill()  # a fresh slot is cheaper than trusting a half-cleaned one
        return outcome

    def kill(self) -> None:
        """Kill the sandbox: its zygote first, so bwrap reaps it, then bwrap's group."""
        self.healthy = False
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        proc, self.proc = self.proc, None
        if proc is None:
            return
        # Killed first, bwrap would leave the zygote to the host's init to reap; a zombie
        # left unreaped there still counts against this uid's RLIMIT_NPROC.
        for child in _children(proc.pid):
            _signal(child, signal.SIGKILL)
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _signal(-proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
        self._kill_uid()

    def _kill_uid(self) -> None:
        if self.spec.uid is not None and self.spec.lease is not None:
            self.spec.lease.kill_processes(self.spec.uid)
