"""Slot uids: two installs on one host never share one, and a pool kills only the uids it holds."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.sandbox import SandboxPool
from grader.sandbox.lease import UidLease
from grader.sandbox.runtime import cache_root
from tests.sandbox.conftest import TEST_LIMITS, only_value, run_body, slot_processes

# The zygote cannot empty a /tmp the job made unreadable: the host kills the slot as unclean and
# starts it again only for the next job, so in between no process runs as its uid.
UNCLEAN = "os.chmod('/tmp', 0)\nreturn 1"


@pytest.fixture
def first_pool() -> Iterator[SandboxPool]:
    if os.geteuid() != 0:
        pytest.skip("the sandbox drops to per-slot uids and so needs root")
    pool = SandboxPool(slots=1, limits=TEST_LIMITS)
    yield pool
    pool.close()


@pytest.fixture
def other_cache(first_pool: SandboxPool) -> Iterator[Path]:
    """Another install's cache directory, where a slot uid can reach it (pytest's tmp_path is root's
    alone); it links to the same runtime rather than copying 140 MB."""
    assert first_pool.runtime is not None
    other = Path(tempfile.mkdtemp(prefix="grader-sandbox-other-install-", dir="/var/tmp"))
    try:
        other.chmod(0o755)
        (other / first_pool.runtime.path.name).symlink_to(first_pool.runtime.path)
        yield other
    finally:
        shutil.rmtree(other)


def _down_between_jobs(pool: SandboxPool) -> int:
    """Leave the pool's only slot killed as unclean, as learner code can; returns its uid."""
    uid = pool.uids[0]
    assert only_value(run_body(pool, UNCLEAN)) == 1
    deadline = time.monotonic() + 5
    while slot_processes(uid) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not slot_processes(uid), "the unclean slot should be down until its next job"
    return uid


def test_a_pool_of_another_install_does_not_take_a_uid_whose_slot_is_down(
        first_pool: SandboxPool, other_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    uid = _down_between_jobs(first_pool)
    monkeypatch.setenv("GRADER_SANDBOX_CACHE", str(other_cache))
    second = SandboxPool(slots=1, limits=TEST_LIMITS)
    try:
        assert second.runtime is not None and second.runtime.path.parent == cache_root() == other_cache
        assert uid not in second.uids, "two pools leased the same slot uid"
        # Each restarts and grades on its own uid; neither kills the other's slot meanwhile.
        assert only_value(run_body(first_pool, "return os.getuid()")) == uid
        assert only_value(run_body(second, "return os.getuid()")) == second.uids[0]
        assert only_value(run_body(first_pool, "return os.getuid()")) == uid
        assert len(slot_processes(uid)) == 2 and len(slot_processes(second.uids[0])) == 2
    finally:
        second.close()


def test_a_copy_of_a_pool_inherited_across_fork_kills_nothing_when_closed(first_pool: SandboxPool) -> None:
    uid = first_pool.uids[0]
    assert only_value(run_body(first_pool, "return 7")) == 7
    before = slot_processes(uid)
    child = os.fork()
    if child == 0:  # say, a gunicorn worker whose atexit closes the pool the master made
        try:
            first_pool.close()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert slot_processes(uid) == before
    assert only_value(run_body(first_pool, "return 8")) == 8


def test_a_lease_kills_only_processes_of_uids_it_holds(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("starting a process as another uid needs root")
    lease = UidLease.acquire(1, tmp_path / "locks")
    held = lease.uids[0]
    other = held + 1  # not leased here: another pool's, as far as this lease knows
    squatter = subprocess.Popen(["sleep", "60"], user=other)
    try:
        lease.kill_processes(other)
        with pytest.raises(subprocess.TimeoutExpired):  # still running: not this lease's to kill
            squatter.wait(timeout=0.5)
        lease.kill_processes(held)  # its own uid: nothing runs as it, and nothing else is touched
        assert squatter.poll() is None
    finally:
        squatter.kill()
        squatter.wait()
        lease.release()
    assert not lease.holds(held)
