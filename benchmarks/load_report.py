"""Figures for benchmarks/load.py: percentiles, CPU use by process, the access log."""

from __future__ import annotations

import os
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def cpu_busy() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine so far."""
    with open("/proc/stat") as handle:
        fields = [int(x) for x in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def component(pid: int, command: str, uid: int) -> str:
    if pid == os.getpid():
        return "client"
    for name in ("gunicorn", "celery", "redis-server"):
        if name in command:
            return name.removesuffix("-server")
    if "bwrap" in command or uid >= 61000:  # grader.sandbox's slot uids start at 61000
        return "sandbox"
    if command.startswith("postgres"):
        return "postgres"
    return "other"


def cpu_by_process() -> dict[int, tuple[str, float]]:
    """CPU seconds of every process, with the part of the stack it belongs to."""
    ticks = os.sysconf("SC_CLK_TCK")
    found: dict[int, tuple[str, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/status") as handle:
                uid = int(next(line for line in handle if line.startswith("Uid:")).split()[1])
        except (OSError, StopIteration, ValueError):
            continue
        part = component(int(entry), command, uid)
        # Own time; a zygote's reaped children (each sandboxed job is a fork) count for the sandbox.
        used = fields[11:15] if part == "sandbox" else fields[11:13]
        found[int(entry)] = (part, sum(int(x) for x in used) / ticks)
    return found


def cpu_used(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> Counter[str]:
    used: Counter[str] = Counter()
    for pid, (part, seconds) in after.items():
        old = before.get(pid)
        used[part] += seconds - (old[1] if old and old[0] == part else 0.0)
    return used


# ---------------------------------------------------------------- access log


LINE = re.compile(r'"(\w+) (\S+) HTTP/[\d.]+" (\d{3}) \S+ (\d+)ms')


def kind_of(method: str, path: str) -> str | None:
    if path.startswith("/api/v1/submissions/"):
        return "poll"
    if path.endswith("/submissions") and method == "POST":
        return "code"
    if path.endswith("/attempts") and method == "POST":
        return "attempt"
    if path.startswith("/api/v1/exercises/"):
        return "api"
    if path.startswith("/exercises/"):
        return "page"
    return None


def access_log(path: Path, skip: int = 0) -> tuple[dict[str, Counter[int]], dict[str, list[float]]]:
    """201s and durations per kind, from gunicorn's access log (after its first `skip` lines, for the durations)."""
    statuses: dict[str, Counter[int]] = defaultdict(Counter)
    durations: dict[str, list[float]] = defaultdict(list)
    for number, line in enumerate(path.read_text(errors="replace").splitlines()):
        match = LINE.search(line)
        if match and (kind := kind_of(match.group(1), match.group(2).split("?")[0])):
            statuses[kind][int(match.group(3))] += 1
            if number >= skip:
                durations[kind].append(float(match.group(4)))
    return statuses, durations
