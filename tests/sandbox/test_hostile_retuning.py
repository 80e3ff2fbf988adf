"""Hostile submissions that retune the slot's zygote, whose limits and priority every later job
of the slot inherits: the seccomp filter refuses each call aimed at another process."""

from __future__ import annotations

import errno

import pytest

pytest.register_assert_rewrite("tests.sandbox.hostile_support")  # see test_hostile_resources

from tests.sandbox.hostile_support import Hostile, assert_not_passed, submission  # noqa: E402

pytest_plugins = ["tests.sandbox.hostile_support"]
WRONG_SHAPE = "The output has the wrong shape."

ZYGOTE_TUNING = {
    "prlimit": "resource.prlimit(1, resource.RLIMIT_NOFILE, (16, 16))",
    "affinity": "os.sched_setaffinity(1, {0})",
    "scheduler": "os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0))",
    "sched-param": "os.sched_setparam(1, os.sched_param(0))",
    "nice-process": "os.setpriority(os.PRIO_PROCESS, 1, 19)",
    "nice-group": "os.setpriority(os.PRIO_PGRP, 1, 19)",
    "nice-user": "os.setpriority(os.PRIO_USER, 0, 15)",
    # ioprio_set(IOPRIO_WHO_USER, 0, idle class): every process of the slot's uid
    "ioprio-user": "_syscall(251, 3, 0, 3 << 13)",  # 251 is ioprio_set on x86_64, the one platform tested
}


@pytest.mark.parametrize("name", ZYGOTE_TUNING)
def test_jobs_cannot_retune_the_zygote(hostile: Hostile, name: str) -> None:
    """The aftermath check then grades correct code on every slot: a lowered limit or priority
    would be inherited by that job (and, unrefused, fail it)."""
    body = f"""
    import ctypes, resource
    libc = ctypes.CDLL(None, use_errno=True)

    def _syscall(*args):
        if libc.syscall(*args) != 0:
            raise OSError(ctypes.get_errno(), 'refused')

    try:
        {ZYGOTE_TUNING[name]}
        refused = 0
    except OSError as exc:
        refused = exc.errno
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the job's own limits stay its own
    os.setpriority(os.PRIO_PROCESS, 0, 1)
    return np.array([refused])
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="got (1,)", hidden=WRONG_SHAPE)
    assert all(list(value) == [errno.EPERM] for value in graded.values()), graded.values()
