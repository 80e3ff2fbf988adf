"""How much CPU a job's processes have used, and how long they have waited for one (the zygote's view).

The host tells a busy host from slow code by these figures when the wall clock stops a job. They come
from /proc: a task's schedstat counts a wait for the CPU only once the task gets the CPU, so the zygote
samples the job while it runs and adds the time a task was seen runnable and not run since its last
turn. Copied into the runtime beside zygote.py (stdlib only).
"""

from __future__ import annotations

import contextlib
import os
import time

TICKS = os.sysconf("SC_CLK_TCK")
# How often the zygote looks at a running job; a job shorter than this is never sampled.
SAMPLE_SECONDS = 0.25


def _stat(path: str) -> list[str]:
    """The fields of a /proc stat file after the command name (which may hold spaces and ")")."""
    with open(path, "rb") as handle:
        return handle.read().rsplit(b")", 1)[1].decode().split()


def _read(path: str) -> str:
    with open(path, encoding="ascii", errors="replace") as handle:
        return handle.read()


def schedule(proc: str, task: str) -> tuple[str, ...]:
    """How a task is scheduled (nice, policy, CPUs, its autogroup's nice): what a job could lower to
    make itself wait."""
    fields = _stat(f"{proc}/task/{task}/stat")
    group = _read(f"{proc}/autogroup").split()[-1:] if os.path.exists(f"{proc}/autogroup") else []
    return (fields[16], fields[38], str(sorted(os.sched_getaffinity(int(task)))), *group)


class JobClock:
    """CPU used and waits for a CPU of one job: its session (setsid is refused after the runner's own)."""

    def __init__(self, job: int, mine: tuple[str, ...]) -> None:
        self.job = job
        self.mine = mine  # how the zygote is scheduled: waits count only for tasks scheduled alike
        self.me = str(os.getpid())
        self.last: dict[tuple[str, str], str] = {}  # each task's schedstat at the last sample
        self.pending: dict[tuple[str, str], float] = {}  # seen runnable and not run since its last turn
        self.sampled = time.monotonic()

    def sample(self) -> tuple[float, float]:
        """(CPU seconds every process of the job has used, seconds its tasks have waited for a CPU)."""
        now = time.monotonic()
        interval, self.sampled = now - self.sampled, now
        cpu = waited = 0.0
        for name in os.listdir("/proc"):
            if not name.isdigit() or name == self.me:
                continue
            proc = f"/proc/{name}"
            with contextlib.suppress(OSError, IndexError, ValueError):  # gone meanwhile
                fields = _stat(f"{proc}/stat")
                if int(name) != self.job and fields[3] != str(self.job):
                    continue
                cpu += sum(int(ticks) for ticks in fields[11:15]) / TICKS  # its own and its reaped children's
                for task in os.listdir(f"{proc}/task"):
                    with contextlib.suppress(OSError, IndexError, ValueError):
                        waited += self._waited((name, task), proc, interval)
        return cpu, waited

    def _waited(self, key: tuple[str, str], proc: str, interval: float) -> float:
        """One task's wait for a CPU so far; 0 for a task that lowered its own priority (it chose to wait)."""
        if schedule(proc, key[1]) != self.mine:
            return 0.0
        line = _read(f"{proc}/task/{key[1]}/schedstat")
        if line != self.last.get(key):  # it ran since: its schedstat now counts the wait before
            self.pending[key] = 0.0
        elif _stat(f"{proc}/task/{key[1]}/stat")[0] == "R":
            self.pending[key] = self.pending.get(key, 0.0) + interval
        self.last[key] = line
        return int(line.split()[1]) / 1e9 + self.pending.get(key, 0.0)
