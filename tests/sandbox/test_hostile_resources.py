"""Hostile submissions that abuse resources: CPU, wall time, processes, memory, disk, output.

Each is graded through grade_code for code-layer-norm on a real pool (hostile_support.py);
each test checks what the host saw during the attack and the verdict the learner gets, and
the `hostile` fixture checks afterwards that nothing is left and every slot still grades.
"""

from __future__ import annotations

import errno
import os
import resource
import time
import uuid

import pytest

# Before the import: the helpers' asserts get pytest's introspection, and loading the same
# module as this suite's plugin (pytest_plugins) does not warn that it came too late.
pytest.register_assert_rewrite("tests.sandbox.hostile_support")

from grader.sandbox import Limits  # noqa: E402
from grader.sandbox.outgoing import MAX_PRINTED_CHARS  # noqa: E402
from tests.sandbox.hostile_support import (  # noqa: E402
    HOSTILE_LIMITS, MIB, PROJECT, Hostile, assert_not_passed, slot_pids, submission,
)

pytest_plugins = ["tests.sandbox.hostile_support"]
CPU_MESSAGE = "Your code took too long: it used more than 1 s of CPU time."
WALL_MESSAGE = "Your code took too long: it ran for more than 3 s."
# Which limit stops a job that also blocks (on a full output pipe) or faults in memory (a million frames)
# depends on the box's load: on a busy one the wall clock runs out before the CPU time. Either is a timeout.
TIME_MESSAGES = (CPU_MESSAGE, WALL_MESSAGE)
SEGV_MESSAGE = "Your code's process died of SIGSEGV: most likely it ran out of memory (the limit is 512 MiB)"
# RLIMIT_NPROC counts the tasks (processes and threads) of the slot uid inside the slot's
# user namespace: the zygote and the job's. bwrap's monitor, outside it, is one more.
PROCESS_CAP = HOSTILE_LIMITS.processes + 1


def _free_bytes(path: str) -> int:
    stats = os.statvfs(path)
    return stats.f_bavail * stats.f_frsize


@pytest.mark.slow
def test_infinite_loop_is_stopped_by_the_cpu_limit(hostile: Hostile) -> None:
    graded = hostile.grade(submission("while True:\n    pass"))
    assert_not_passed(graded, "timeout", CPU_MESSAGE)
    # RLIMIT_CPU, not the wall clock, stopped it: well before wall + the host's grace.
    assert graded.seconds < HOSTILE_LIMITS.wall_seconds


@pytest.mark.slow
def test_sleeping_is_stopped_by_the_wall_clock_limit(hostile: Hostile) -> None:
    graded = hostile.grade(submission("import time\ntime.sleep(100)\nreturn x"))
    assert_not_passed(graded, "timeout", WALL_MESSAGE)
    # The zygote's own deadline fired, not the host's (wall + 3 s grace, then a cold slot).
    assert HOSTILE_LIMITS.wall_seconds <= graded.seconds < HOSTILE_LIMITS.wall_seconds + 2.5
    assert [c.status for c in graded.run.cases] == ["timeout"] * len(graded.run.cases)


@pytest.mark.slow
def test_fork_bomb_stays_under_the_process_limit(hostile: Hostile) -> None:
    body = """
    while True:
        try:
            os.fork()
        except OSError:
            pass
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "timeout")
    # It filled the slot to the limit, and not past it (the bomb holds the peak for a second).
    assert PROCESS_CAP - 1 <= graded.watch.processes <= PROCESS_CAP, graded.watch.processes


@pytest.mark.slow
def test_forking_cpu_hog_gets_a_timeout(hostile: Hostile) -> None:
    # RLIMIT_CPU is per process: each child spins on a fresh CPU budget (grader/sandbox/README.md, Known limits).
    body = """
    for _ in range(30):
        try:
            if os.fork() == 0:
                while True:
                    pass
        except OSError:
            break
    while True:
        pass
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "timeout")
    # The run-level sentence, then (since a stop in the first case is listed like any other) where it stopped.
    assert graded.code.message.startswith((CPU_MESSAGE, WALL_MESSAGE)), graded.code.message
    assert graded.watch.processes <= PROCESS_CAP, graded.watch.processes
    # The zygote's own deadline stopped it, not the host's (wall + 3 s grace, then a cold slot).
    assert graded.seconds < HOSTILE_LIMITS.wall_seconds + 2.5
    assert slot_pids(hostile.uids) == hostile.before


def test_forking_past_the_process_limit_is_refused_cleanly(hostile: Hostile) -> None:
    # The default leaves a job seven tasks (the idle zygote is the eighth): itself and six more,
    # threads included. Children live on until the job ends, so later cases get none.
    assert HOSTILE_LIMITS.processes == Limits().processes == 8
    body = """
    import time
    children, refusal = 0, 0
    for _ in range(100):
        try:
            pid = os.fork()
        except OSError as error:
            refusal = error.errno
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
    return np.full_like(x, children * 1000 + refusal)
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of")
    assert graded.run.status == "completed" and graded.watch.processes <= PROCESS_CAP
    first, *rest = [int(value.flat[0]) for value in graded.values()]
    assert first == (HOSTILE_LIMITS.processes - 2) * 1000 + errno.EAGAIN
    assert rest and set(rest) == {errno.EAGAIN}


@pytest.mark.slow
def test_thread_bomb_stays_under_the_task_limit(hostile: Hostile) -> None:
    body = """
    import threading
    threading.stack_size(64 * 1024)  # small stacks: the task limit, not RLIMIT_AS, binds
    while True:
        try:
            threading.Thread(target=time.sleep, args=(100,), daemon=True).start()
        except RuntimeError:
            pass
    """
    graded = hostile.grade(submission(body, prelude="import time"))
    # Threads count against RLIMIT_NPROC too; then the retry loop burns the CPU limit.
    assert_not_passed(graded, "timeout", CPU_MESSAGE)
    assert PROCESS_CAP - 1 <= graded.watch.threads <= PROCESS_CAP, graded.watch.threads


@pytest.mark.slow
def test_daemon_cannot_outlive_the_job_to_write_later(hostile: Hostile) -> None:
    token = f"hostile-daemon-{uuid.uuid4().hex}"
    targets = [hostile.tmp_path / token, f"/tmp/{token}", str(PROJECT / token)]
    body = f"""
    import time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(0.3)
            for _ in range(50):
                for path in {[str(t) for t in targets]!r}:
                    try:
                        with open(path, 'a') as handle:
                            handle.write('the daemon survived')
                    except OSError:
                        pass
                time.sleep(0.05)
        os._exit(0)
    return x
    """
    graded = hostile.grade(submission(body))
    # Each case starts a daemon, and they live until the job ends, so the process limit refuses
    # the forks of the later cases (with 32 processes all 15 fitted): those raise, none crashes.
    assert_not_passed(graded, "failed", "0 of", visible="Off by ", hidden="Raised an exception.")
    refused = [case.error or "" for case in graded.run.cases if case.status != "ok"]
    assert graded.run.status == "completed" and graded.run.cases[0].status == "ok"
    assert refused and all("Resource temporarily unavailable" in error for error in refused)
    time.sleep(1.0)  # past the daemon's first write, had it survived
    assert all(not os.path.exists(path) for path in targets)
    # The in-sandbox /tmp copy is checked by the fixture: every slot's /tmp must be empty.


@pytest.mark.slow
def test_memory_bomb_is_capped_per_process(hostile: Hostile) -> None:
    graded = hostile.grade(submission("hoard = []\nwhile True:\n    hoard.append(' ' * 10**6)"))
    assert graded.run.cases[0].status == "memory_limit"
    assert "512 MiB" in (graded.run.cases[0].error or "")
    # Every case fills 512 MiB again, which costs CPU: how many fit into 1 s depends on
    # the machine, so the job ends either with the CPU limit or with all cases refused.
    if graded.code.status == "timeout":
        assert_not_passed(graded, "timeout")
        assert graded.code.message.startswith(TIME_MESSAGES), graded.code.message
    else:
        assert_not_passed(graded, "failed", "0 of", hidden="Used too much memory on this case.")
        assert {c.status for c in graded.run.cases} == {"memory_limit"}
    # It really filled memory, and no more than its limit (plus the idle zygote and bwrap).
    assert 256 * MIB < graded.watch.rss <= HOSTILE_LIMITS.memory_bytes + 128 * MIB


def test_ten_gigabyte_numpy_allocation_fails_at_once(hostile: Hostile) -> None:
    graded = hostile.grade(submission("return np.zeros((10**10,))"))
    assert_not_passed(graded, "failed", "0 of", visible="Used too much memory on this case.",
                      hidden="Used too much memory on this case.")
    assert graded.watch.rss < 256 * MIB  # refused by RLIMIT_AS, nothing was committed
    assert graded.seconds < 2


def test_filling_tmp_stops_at_the_tmpfs_size(hostile: Hostile) -> None:
    token = uuid.uuid4().hex
    host_free = _free_bytes("/tmp")
    body = f"""
    for i in range(10**6):  # a terabyte, were it not for the cap
        with open(f'/tmp/fill-{token}-{{i}}', 'wb') as handle:
            handle.write(b'x' * (1 << 20))
    return x
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="No space left on device",
                      hidden="Raised an exception.")
    # The sandbox's /tmp is its own tmpfs, capped: the host's /tmp did not fill up.
    assert not any(token in name for name in os.listdir("/tmp"))
    assert _free_bytes("/tmp") > host_free - 256 * MIB  # room for whatever else runs here


def test_huge_file_is_stopped_by_the_file_size_limit(hostile: Hostile) -> None:
    host_free = {path: _free_bytes(path) for path in ("/", "/var/cache")}
    body = f"""
    for path in ('huge', {str(hostile.tmp_path / 'huge')!r}):
        try:
            with open(path, 'wb') as handle:
                for _ in range(512):
                    handle.write(b'x' * (1 << 20))
        except FileNotFoundError:
            pass
    return x
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="File too large",
                      hidden="Raised an exception.")
    assert not (hostile.tmp_path / "huge").exists()
    for path, free in host_free.items():  # 512 MiB tried; others may write meanwhile
        assert _free_bytes(path) > free - 256 * MIB, path


@pytest.mark.slow
def test_stdout_flood_is_capped(hostile: Hostile) -> None:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    graded = hostile.grade(submission("while True:\n    os.write(1, b'flood ' * 100 + b'\\n')"))
    assert_not_passed(graded, "timeout")
    assert graded.code.message.startswith(TIME_MESSAGES) or graded.run.status == "starved", graded.code.message
    assert "flood flood" in graded.run.stdout  # it did flood...
    assert "more bytes of output dropped" in graded.run.stdout  # ...and only a cap was kept
    assert len(graded.run.stdout) < HOSTILE_LIMITS.output_bytes + 200
    assert "flood" not in graded.haystack().replace(graded.run.stdout, "")
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (rss_after - rss_before) * 1024 < 64 * MIB


@pytest.mark.slow
def test_a_print_flood_in_a_case_stays_in_the_sandbox(hostile: Hostile) -> None:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    graded = hostile.grade(submission("while True:\n    print('flood ' * 100)"))
    assert_not_passed(graded, "timeout", CPU_MESSAGE)
    # The case never ended: what it printed before the limit left with it, held to what a case keeps.
    [stopped, *_] = graded.run.cases
    assert stopped.printed == ("flood " * 100 + "\n") * (MAX_PRINTED_CHARS // 601) + ("flood " * 100)[:MAX_PRINTED_CHARS % 601]
    assert [case.printed for case in graded.code.cases] == [stopped.printed]  # the first case is visible
    shown = graded.haystack().replace(stopped.printed, "").replace(repr(stopped.printed)[1:-1], "")
    assert "flood" not in shown
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (rss_after - rss_before) * 1024 < 64 * MIB


@pytest.mark.slow
def test_deep_python_recursion_runs_out_of_time_or_depth(hostile: Hostile) -> None:
    body = """
    sys.setrecursionlimit(10**6)

    def down(n):
        return down(n + 1) + 1

    return down(0)
    """
    graded = hostile.grade(submission(body))
    # 10**6 Python frames take about 2 s of CPU here; a much faster machine would reach
    # the depth and report RecursionError instead. Neither may crash the slot.
    if graded.code.status == "timeout":
        assert_not_passed(graded, "timeout")
        assert graded.code.message.startswith(TIME_MESSAGES), graded.code.message
    else:
        assert_not_passed(graded, "failed", visible="RecursionError",
                          hidden="Raised an exception.")


def test_deep_native_recursion_segfaults_only_the_job(hostile: Hostile) -> None:
    # Each level goes through map(), a C call, so the C stack overflows: SIGSEGV.
    body = ("sys.setrecursionlimit(10**6)\n\ndef down(n):\n    return list(map(down, [n + 1]))"
            "\n\nreturn down(0)")
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "memory_limit", SEGV_MESSAGE)
    assert slot_pids(hostile.uids) == hostile.before  # the zygotes lived on: no cold restart


def test_ctypes_segfault_kills_only_the_job(hostile: Hostile) -> None:
    graded = hostile.grade(submission("import ctypes\nctypes.string_at(0)\nreturn x"))
    assert_not_passed(graded, "memory_limit", SEGV_MESSAGE)
    assert "or native code crashed." in graded.code.message
    assert slot_pids(hostile.uids) == hostile.before


def test_exhausting_file_descriptors_is_capped(hostile: Hostile) -> None:
    host_fds = len(os.listdir("/proc/self/fd"))
    body = """
    held = []
    while True:
        held.append(os.open('/dev/null', os.O_RDONLY))
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="Too many open files",
                      hidden="Raised an exception.")
    assert len(os.listdir("/proc/self/fd")) <= host_fds + 2


def test_memory_held_at_the_limit_between_cases_gets_a_memory_verdict(
        hostile: Hostile) -> None:
    body = """
    size = 1 << 30
    while size:  # take every last byte the limit allows, and keep it
        try:
            HOARD.append(bytearray(size))
        except MemoryError:
            size //= 2
    return x
    """
    graded = hostile.grade(submission(body, prelude="HOARD = []"))
    assert graded.watch.rss <= HOSTILE_LIMITS.memory_bytes + 128 * MIB
    assert graded.run.status != "crashed", graded.run.message
    assert_not_passed(graded, "failed", "0 of", hidden="Used too much memory on this case.")
