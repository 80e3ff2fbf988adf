"""Host uids for a pool's slots, leased for the pool's whole life through host-wide lock files.

Every install on a host (whatever its cache directory) takes its slot uids from the same range,
so the locks live in one host-wide directory: a uid whose slot is down between jobs (killed as
unclean, restarting lazily) stays leased, and no other pool takes it and kills its jobs.
"""

from __future__ import annotations

import contextlib
import fcntl
import grp
import os
import pwd
import signal
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.environment import whole_number

from .results import SandboxUnavailable

UID_BASE = whole_number(os.environ, "GRADER_SANDBOX_UID_BASE", 61000, 1000, 4_294_000_000)
UID_COUNT = 1000
# /run is the host's own (root-only, emptied at boot), not an install's: one place for every pool.
LOCK_DIR = Path("/run/grader-sandbox/uids")


def _uid_unused(uid: int) -> bool:
    for lookup in (pwd.getpwuid, grp.getgrgid):
        try:
            lookup(uid)
            return False
        except KeyError:
            pass
    return True


def running_uids() -> set[int]:
    """The real uids of every process on the host (read from /proc/<pid>/status, which even a
    non-dumpable zygote leaves readable)."""
    uids: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", encoding="ascii", errors="replace") as status:
                line = next((ln for ln in status if ln.startswith("Uid:")), "")
        except OSError:  # the process ended meanwhile
            continue
        fields = line.split()
        if len(fields) > 1 and fields[1].isdigit():
            uids.add(int(fields[1]))
    return uids


def _lock_dir(directory: Path) -> Path:
    """Create the lock directory, refusing one that anyone but us could write to (and so hold locks in)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise SandboxUnavailable(f"{directory} must be a directory owned by uid {os.geteuid()}, "
                                 "writable by it alone")
    return directory


@dataclass
class UidLease:
    """Host uids reserved for this pool's slots, held by flock until release()."""

    uids: list[int]
    handles: list[Any]
    # The process that took the locks: a child forked later shares the open files, not the lease.
    owner: int = field(default_factory=os.getpid)

    @classmethod
    def acquire(cls, count: int, directory: Path = LOCK_DIR) -> UidLease:
        """Lease `count` uids that no account, no other pool and no running process uses.

        The locks keep pools apart for as long as each lives; a process already running as a uid
        (say, of an older install that kept its locks elsewhere) keeps that uid out of the lease too.
        """
        _lock_dir(directory)
        uids: list[int] = []
        handles: list[Any] = []
        busy = running_uids()
        for uid in range(UID_BASE, UID_BASE + UID_COUNT):
            if len(uids) == count:
                break
            if uid in busy or not _uid_unused(uid):
                continue
            # Held open (and so locked) until release(), not closed at the end of a block.
            handle = open(directory / f"{uid}.lock", "a")  # noqa: SIM115
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            uids.append(uid)
            handles.append(handle)
        if len(uids) < count:
            cls(uids, handles).release()
            raise SandboxUnavailable(f"no free sandbox uids in {UID_BASE}..{UID_BASE + UID_COUNT}")
        return cls(uids, handles)

    def holds(self, uid: int) -> bool:
        """Whether this process holds the lease on `uid` now."""
        return os.getpid() == self.owner and uid in self.uids[: len(self.handles)]

    def kill_processes(self, uid: int) -> None:
        """SIGKILL every process of `uid`, if this lease holds it; a uid it does not hold is another pool's."""
        if not self.holds(uid):
            return
        for entry in os.listdir("/proc"):
            with contextlib.suppress(FileNotFoundError, ProcessLookupError, ValueError):
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    os.kill(int(entry), signal.SIGKILL)

    def release(self) -> None:
        """Give the uids back (only the process that took them can)."""
        if os.getpid() == self.owner:
            for handle in self.handles:
                handle.close()
        self.handles = []
