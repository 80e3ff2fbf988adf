"""What a job asks of the learner's function beyond its return value, a zygote a job retuned, and the
uids a pool leases."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from grader.sandbox import Limits, SandboxPool
from grader.sandbox.lease import UID_BASE, UID_COUNT, UidLease, _uid_unused, running_uids


def test_a_parameter_some_cases_leave_out_needs_a_default(pool: SandboxPool) -> None:
    cases = [{"x": 1.0}, {"x": 2.0, "eps": 0.5}]
    refused = pool.run("def f(x, eps):\n    return x + eps\n", "f", ["x", "eps"], cases)
    assert refused.status == "bad_signature"
    assert "eps needs a default value, because some calls leave it out" in refused.message
    ran = pool.run("def f(x, eps=1.0):\n    return x + eps\n", "f", ["x", "eps"], cases)
    assert [case.value for case in ran.cases] == [2.0, 2.5]
    always = pool.run("def f(x, eps):\n    return x + eps\n", "f", ["x", "eps"], [{"x": 1.0, "eps": 0.5}])
    assert always.status == "completed"  # every call passes eps: no default needed


def test_arguments_changed_in_place_come_back_with_the_result(pool: SandboxPool) -> None:
    source = "def f(acc, step):\n    acc.append(step)\n    return len(acc)\n"
    result = pool.run(source, "f", ["acc", "step"], [{"acc": [0.5], "step": 2.0}], changes=["acc"])
    assert result.status == "completed"
    assert result.cases[0].value == {"returned": 2, "after": {"acc": [0.5, 2.0]}}


RENICE_PARENT = """
import os

def probe():
    os.setpriority(os.PRIO_PROCESS, os.getppid(), 7)
    return os.getppid()
"""
READ_NICE = """
import os

def probe():
    return [os.getppid(), os.getpriority(os.PRIO_PROCESS, 0)]
"""


def test_a_job_that_retunes_its_zygote_gets_the_slot_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a job change the zygote's priority or limits (unsafe-local mode has no seccomp filter
    to stop it), the next job is forked from a fresh zygote, not one that inherits the change."""
    monkeypatch.setenv("GRADER_SANDBOX", "unsafe-local")
    local = SandboxPool(slots=1, limits=Limits(wall_seconds=3.0))
    try:
        first = local.run(RENICE_PARENT, "probe", [], [{}])
        second = local.run(READ_NICE, "probe", [], [{}])
    finally:
        local.close()
    assert first.status == second.status == "completed", (first, second)
    retuned_zygote = first.cases[0].value
    zygote, nice = second.cases[0].value
    assert zygote != retuned_zygote and nice == os.getpriority(os.PRIO_PROCESS, 0)


def test_a_uid_a_process_runs_as_is_not_leased_even_by_a_pool_with_another_cache(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("starting a process as another uid needs root")
    busy = running_uids()
    # The uid a fresh lease would take first: no account, no process, no lock in a new directory.
    free = next(uid for uid in range(UID_BASE, UID_BASE + UID_COUNT) if uid not in busy and _uid_unused(uid))
    squatter = subprocess.Popen(["sleep", "60"], user=free)  # a slot of another install, say
    try:
        lease = UidLease.acquire(1, tmp_path / "other-cache")
        try:
            assert free not in lease.uids and lease.uids[0] > free
        finally:
            lease.release()
    finally:
        squatter.kill()
        squatter.wait()
