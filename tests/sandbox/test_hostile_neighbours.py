"""Hostile submissions against the jobs running beside them: CPU share, and fair verdicts on a busy host.

A job that forks children which each start a session gets a scheduler autogroup per child, and with
it most of the CPU; the seccomp filter each job adds once the runner made its session refuses that.
Whatever the cause, a job the wall clock stopped while the host kept it waiting for a CPU is run
again, then reported as starved, and the learner is not charged for it.

The busy-host pool is pinned to CPU 0 (the zygotes inherit the affinity of the thread that starts
them), so that the host's spinners and its jobs share the same CPU whatever else the machine runs.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

pytest.register_assert_rewrite("tests.sandbox.hostile_support")  # see test_hostile_resources

from grader.code_grading import HOST_BUSY, grade_code  # noqa: E402
from grader.sandbox import Limits, RunResult, SandboxPool  # noqa: E402
from tests.sandbox.hostile_support import (  # noqa: E402
    CASE_COUNT, CORRECT, SEED, SPEC, Hostile, Recorder, assert_not_passed, strays, submission, uid_processes,
)

pytest_plugins = ["tests.sandbox.hostile_support"]
WRONG_SHAPE = "The output has the wrong shape."
# Room for a hog of many processes, so that a share per process would starve the neighbour many
# times over; the production default (8) gives a hog 7 shares.
NEIGHBOUR_LIMITS = Limits(cpu_seconds=2.0, wall_seconds=8.0, processes=64)
HOG_CHILDREN = 60
# CPU the valid neighbour burns, over all its cases. Beside a hog that is one autogroup it gets a CPU
# share of 2 / (2 + the host's other busy autogroups): on this 2-core box, even with 14 of them
# (load 16), it needs 0.5 / (2 / 16) = 4 s of its 8. With a share per hog process it would get
# 2 / 61 at most, and need more than 15 s.
BURN_SECONDS = 0.5
BUSY_LIMITS = Limits(cpu_seconds=1.0, wall_seconds=2.0)


def test_a_job_cannot_start_sessions_or_process_groups(hostile: Hostile) -> None:
    """setsid() would put a child in a scheduler autogroup of its own, setpgid() out of the job's group."""
    body = """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    codes = []
    for call in (libc.setsid, lambda: libc.setpgid(0, 0)):
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # a fresh child, not a group leader: only the filter can refuse either call
            ctypes.set_errno(0)
            os.write(write, bytes([ctypes.get_errno() if call() == -1 else 0]))
            os._exit(0)
        os.close(write)
        codes.append(os.read(read, 1)[0])
        os.waitpid(child, 0)
    return np.array(codes)
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="got (2,)", hidden=WRONG_SHAPE)
    assert all(list(value) == [errno.EPERM, errno.EPERM] for value in graded.values()), graded.values()


@contextlib.contextmanager
def _pinned_to_cpu0() -> Iterator[None]:
    everything = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})
    try:
        yield
    finally:
        os.sched_setaffinity(0, everything)


@pytest.fixture(scope="module")
def neighbour_pool() -> Iterator[SandboxPool]:
    """Two slots, with room for a hog of many processes."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox drops to per-slot uids and so needs root")
    pool = SandboxPool(slots=2, limits=NEIGHBOUR_LIMITS, recycle_after=1000)
    try:
        yield pool
    finally:
        pool.close()


HOG = """
import os, time

def f():
    ready, go = os.pipe()
    for _ in range(%d):
        if os.fork() == 0:
            os.close(go)
            try:
                os.setsid()  # a scheduler autogroup, and so a full CPU share, per child
            except OSError:
                pass
            os.read(ready, 1)  # spin once every child is forked (end of file then)
            while True:
                pass
    os.close(go)
    time.sleep(60)  # until the wall clock stops the job
""" % HOG_CHILDREN
BURNING = CORRECT.replace("def layer_norm(x, gamma, beta, eps=1e-5):\n", """def layer_norm(x, gamma, beta, eps=1e-5):
    import time
    started = time.process_time()
    while time.process_time() - started < BURN:
        pass
""")


def _hog_running(pool: SandboxPool) -> bool:
    return any(len(procs) > HOG_CHILDREN for procs in uid_processes(pool.uids).values())


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(3))
def test_a_valid_job_beside_a_forking_hog_passes(neighbour_pool: SandboxPool, trial: int) -> None:
    source = f"BURN = {BURN_SECONDS / CASE_COUNT!r}\n" + BURNING
    hog: list[RunResult] = []
    attacker = threading.Thread(target=lambda: hog.append(neighbour_pool.run(HOG, "f", [], [{}])))
    attacker.start()
    try:
        deadline = time.monotonic() + NEIGHBOUR_LIMITS.wall_seconds
        while not _hog_running(neighbour_pool) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _hog_running(neighbour_pool), "the hog never got its children going"
        verdict = grade_code(SPEC, source, SEED + trial, neighbour_pool)
        hog_still_running = _hog_running(neighbour_pool)
    finally:
        attacker.join()
    assert (verdict.status, verdict.score, verdict.counted) == ("passed", 1.0, True), verdict
    assert hog_still_running  # it ran beside the valid job all along
    # The wall clock stopped the hog (on a machine loaded enough it is itself starved, and run again).
    assert hog[0].status in ("timeout", "starved"), hog[0]
    left = time.monotonic() + 3.0
    while strays(neighbour_pool.uids) and time.monotonic() < left:
        time.sleep(0.02)
    assert not strays(neighbour_pool.uids)


# A busy host: spinning processes on CPU 0, each in an autogroup of its own (as separate logins or
# services are), so a job's autogroup gets about 1/15 of CPU 0. The zygote's autogroup gets as much
# when it wakes at the deadline, enough to stop the job and report within the host's grace.
BUSY_PROCESSES = 14
COMPETITOR = f"""
import ctypes, os, signal, sys
os.sched_setaffinity(0, {{0}})
children = []
for _ in range({BUSY_PROCESSES}):
    child = os.fork()
    if child == 0:
        os.setsid()
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: end with the parent
        while True:
            pass
    children.append(child)
print('spinning', flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def _busy_cpu0() -> Iterator[None]:
    """CPU 0 kept busy by BUSY_PROCESSES host processes while the block runs."""
    busy = subprocess.Popen([sys.executable, "-c", COMPETITOR], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert busy.stdout is not None and busy.stdout.readline() == b"spinning\n"
        yield
    finally:
        busy.kill()  # its children die with it
        busy.wait()


@pytest.fixture(scope="module")
def busy_pool() -> Iterator[SandboxPool]:
    """One slot on CPU 0 with a short wall-clock limit."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox drops to per-slot uids and so needs root")
    with _pinned_to_cpu0():
        pool = SandboxPool(slots=1, limits=BUSY_LIMITS, recycle_after=1000)
    try:
        yield pool
    finally:
        pool.close()


@pytest.mark.slow
def test_a_job_the_busy_host_starves_is_run_again_then_not_counted(busy_pool: SandboxPool) -> None:
    source = f"BURN = {0.3 / CASE_COUNT!r}\n" + BURNING  # well within 1 s of CPU and 2 s of wall time alone
    recorder = Recorder(busy_pool)
    with _busy_cpu0():
        verdict = grade_code(SPEC, source, SEED, recorder)
    run = recorder.runs[0]
    assert (run.status, run.facts.get("cause"), run.facts.get("tries")) == ("starved", "starved", 3), run
    assert (verdict.status, verdict.score, verdict.counted) == ("invalid", 0.0, False), verdict
    assert verdict.text.template == HOST_BUSY and verdict.message.startswith("Not graded: the server was too busy")
    assert "2 s time limit on each of 3 tries" in verdict.message
    again = grade_code(SPEC, CORRECT, SEED, busy_pool)  # the slot still grades once the spinners are gone
    assert (again.status, again.score) == ("passed", 1.0), again


BUSY_BUT_OWN_FAULT = {
    # Sleeping is the job's own choice: it does not wait for a CPU.
    "sleeping": "time.sleep(60)",
    # A job that lowers its own priority waits for a CPU by choice too.
    "niced": "os.setpriority(os.PRIO_PROCESS, 0, 19)\nwhile True:\n    pass",
    "idle-class": "os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))\nwhile True:\n    pass",
    # Or its whole autogroup's (once dumpable, the job owns /proc/self/autogroup); the kernel lets one
    # such change through every 0.1 s, host-wide.
    "autogroup": """import ctypes
ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)
while True:
    try:
        with open('/proc/self/autogroup', 'w') as own:
            own.write('19')
        break
    except BlockingIOError:
        time.sleep(0.01)
while True:
    pass""",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", BUSY_BUT_OWN_FAULT)
def test_a_job_that_waits_by_its_own_choice_is_charged_on_a_busy_host(busy_pool: SandboxPool, name: str) -> None:
    source = submission("import time\n" + BUSY_BUT_OWN_FAULT[name])
    with _busy_cpu0():
        verdict = grade_code(SPEC, source, SEED, busy_pool)
    assert (verdict.status, verdict.counted) == ("timeout", True), verdict
    assert verdict.message.startswith("Your code took too long: it ran for more than 2 s."), verdict.message
