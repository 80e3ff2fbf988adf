"""Real processes for the queue and fault tests: redis-server, Celery workers, gunicorn, the CLI.

Every process is started in its own session (so its whole process group can be killed) and is
stopped by the fixture that started it; `stop` kills the group with SIGKILL as a last resort, so
no stray worker, pool child or sandbox is left behind.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
SECRET = "q" * 64
T = TypeVar("T")
# Correct, but the first call of each run sleeps: a job that is surely still running when killed.
SLOW = """import time
import numpy as np

_calls = []

def layer_norm(x, gamma, beta, eps=1e-5):
    if not _calls:
        time.sleep(2.5)
    _calls.append(1)
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""


def free_port() -> int:
    """An unused loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(check: Callable[[], T], timeout: float, what: str, every: float = 0.05) -> T:
    """Call `check` until it returns something truthy; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


def accepts(port: int) -> bool:
    """True when something listens on the loopback port."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def children(pid: int) -> list[int]:
    """The direct children of a process (`ps --ppid`)."""
    out = subprocess.run(["ps", "--ppid", str(pid), "-o", "pid="], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class Started:
    """A subprocess in its own process group, with its output in a log file."""

    def __init__(self, argv: list[str], env: Mapping[str, str], log: Path, cwd: Path = ROOT) -> None:
        self.argv, self.log = argv, log
        self._handle = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdout=self._handle,
                                        stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        self.pid = self.process.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL the whole process group at once (no graceful anything)."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)

    def stop(self, grace: float = 5.0) -> None:
        """SIGTERM, then SIGKILL the group after `grace` seconds; always reaps the process."""
        if self.process.poll() is None:
            try:
                os.killpg(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        try:  # anything left in the group (pool children, sandboxes) goes too
            os.killpg(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)
        self._handle.close()


class Redis:
    """A throw-away redis-server on a loopback port, no persistence; can be stopped and restarted."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.server: Started | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        self.directory.mkdir(parents=True, exist_ok=True)
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(self.directory)]  # fmt: skip
        self.server = Started(argv, os.environ, self.directory / "redis.log")
        wait_for(lambda: self.ping(), 10, "redis-server to answer PING")
        return self

    def ping(self) -> bool:
        try:
            return self.command("PING") == "+PONG"
        except OSError:
            return False

    def command(self, *words: str, db: int = 0) -> str:
        """One inline command on a fresh connection; returns the first reply line."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as s:
            if db:
                s.sendall(f"SELECT {db}\r\n".encode())
                s.recv(64)
            s.sendall((" ".join(words) + "\r\n").encode())
            return s.recv(65536).decode(errors="replace").split("\r\n")[0]

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop(grace=5)
            self.server = None
        wait_for(lambda: not accepts(self.port), 5, "redis to stop listening")


class Worker:
    """`celery -A grader.tasks worker` with one prefork child, logging at INFO to a file."""

    def __init__(self, env: Mapping[str, str], log: Path, name: str) -> None:
        argv = [PYTHON, "-m", "celery", "-A", "grader.tasks", "worker", "--concurrency", "1", "--pool", "prefork",
                "-Q", "grading", "--without-heartbeat", "--without-mingle", "--without-gossip",
                "--loglevel", "INFO", "-n", f"{name}@%h"]  # fmt: skip
        self.started = Started(argv, env, log)
        self.pid = self.started.pid
        self._seen: set[int] = {self.pid}
        wait_for(lambda: " ready." in self.output() or self._died(), 60, "the Celery worker to be ready", 0.1)
        assert self.started.process.poll() is None, self.output()

    def _died(self) -> bool:
        return self.started.process.poll() is not None

    def output(self) -> str:
        return self.started.output()

    def child(self) -> int:
        """The pid of the prefork pool child (waits for one to exist)."""
        found = wait_for(lambda: [p for p in children(self.pid) if alive(p)], 15, "the worker's pool child")
        assert len(found) == 1, found
        return found[0]

    def received(self) -> list[str]:
        """Task ids the worker has received, in order."""
        return re.findall(r"Task grader\.grade_submission\[([0-9a-f-]+)\] received", self.output())

    def succeeded(self) -> list[str]:
        return re.findall(r"Task grader\.grade_submission\[([0-9a-f-]+)\] succeeded", self.output())

    def seen(self) -> list[int]:
        """Every process seen below the worker so far (pool children, sandboxes), and itself."""
        if alive(self.pid):
            self._seen.update(descendants(self.pid))
        return sorted(self._seen)

    def kill_child(self) -> int:
        """SIGKILL the pool child (the process running the task); returns its pid."""
        pid = self.child()
        self.seen()
        os.kill(pid, signal.SIGKILL)
        return pid

    def kill(self) -> None:
        """SIGKILL the worker and its pool child together: nothing gets to ack or reject."""
        self.seen()
        self.started.kill()

    def stop(self) -> None:
        self.seen()
        self.started.stop(grace=0.5)


def flask_cli(env: Mapping[str, str], *args: str, timeout: float = 60) -> str:
    """Run `flask --app wsgi <args>` and return its standard output (fails the test on error)."""
    done = subprocess.run([PYTHON, "-m", "flask", "--app", "wsgi", *args], cwd=ROOT, env=dict(env),
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip
    assert done.returncode == 0, f"flask {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


class Gunicorn:
    """gunicorn with the project's gunicorn.conf.py on a loopback port, access log to a file."""

    def __init__(self, env: Mapping[str, str], directory: Path, workers: int, name: str = "gunicorn") -> None:
        self.port = free_port()
        self.access_log = directory / f"{name}-access.log"
        full = {**env, "GRADER_BIND": f"127.0.0.1:{self.port}", "GRADER_WORKERS": str(workers),
                "GRADER_ACCESS_LOG": str(self.access_log), "GRADER_LOG_LEVEL": "info"}  # fmt: skip
        argv = [PYTHON, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "wsgi:app"]
        self.started = Started(argv, full, directory / f"{name}.log")
        self.pid = self.started.pid
        self.workers = workers

    def wait_ready(self) -> Gunicorn:
        wait_for(lambda: accepts(self.port) or self.started.process.poll() is not None, 30, "gunicorn to listen")
        assert self.started.process.poll() is None, self.started.output()
        wait_for(lambda: len(self.worker_pids()) == self.workers, 30, "every gunicorn worker to boot")
        return self

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def worker_pids(self) -> list[int]:
        return [p for p in children(self.pid) if alive(p)]

    def output(self) -> str:
        return self.started.output()

    def stop(self) -> None:
        self.started.stop(grace=10)


def strays(pids: list[int]) -> list[int]:
    """Those of `pids` still running (not zombies)."""
    return [p for p in pids if alive(p)]


def descendants(pid: int) -> list[int]:
    """Every process below `pid`."""
    found: list[int] = []
    todo = [pid]
    while todo:
        kids = children(todo.pop())
        found += kids
        todo += kids
    return found


# Settings of the caller's shell that would change what these processes talk to.
INHERITED_NOT = {"GRADER_DATABASE_URL", "GRADER_BROKER_URL", "GRADER_RATELIMIT_STORAGE", "GRADER_RATELIMIT_ENABLED",
                 "GRADER_VISIBILITY_TIMEOUT", "GRADER_REAP_AFTER_SECONDS", "GRADER_GRADING_DEADLINE_SECONDS",
                 "GRADER_SECRET_KEY", "GRADER_BIND", "GRADER_WORKERS", "GRADER_ACCESS_LOG"}  # fmt: skip


def env_for(database_url: str, **extra: Any) -> dict[str, str]:
    """The environment of a web process, worker or CLI run on this database."""
    env = {k: v for k, v in os.environ.items() if k not in INHERITED_NOT}
    env.update({"GRADER_DATABASE_URL": database_url, "GRADER_SECRET_KEY": SECRET, "GRADER_SANDBOX_SLOTS": "1",
                "PYTHONPATH": str(ROOT)})  # fmt: skip
    env.update({k: str(v) for k, v in extra.items()})
    return env
