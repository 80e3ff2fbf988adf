"""Running submissions in warm slots: results, learner errors, limits and recovery."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from grader.sandbox import Limits, SandboxPool, SandboxUnavailable
from tests.sandbox.conftest import TEST_LIMITS, kill_when_busy, only_value, run_body, slot_processes, zygote_pids

LAYER_NORM = """
import numpy as np

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""
PARAMS = ["x", "gamma", "beta"]


def reference_layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    """The same expression as LAYER_NORM, so results must match bit for bit."""
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    out: np.ndarray = gamma * (x - mu) / np.sqrt(var + 1e-5) + beta
    return out


def layer_norm_cases(count: int = 3) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(7)
    return [{"x": rng.normal(size=(2 + i, 6)), "gamma": rng.normal(size=6),
             "beta": rng.normal(size=6)} for i in range(count)]


def test_layer_norm_matches_numpy(pool: SandboxPool) -> None:
    cases = layer_norm_cases()
    result = pool.run(LAYER_NORM, "layer_norm", PARAMS, cases)
    assert result.status == "completed", result.message
    assert [c.status for c in result.cases] == ["ok"] * 3
    for case, run in zip(cases, result.cases, strict=True):
        assert type(run.value) is np.ndarray and run.value.dtype == np.float64
        np.testing.assert_array_equal(run.value, reference_layer_norm(**case))
        assert run.duration_ms >= 0


def test_syntax_error_reports_its_line(pool: SandboxPool) -> None:
    source = "import numpy as np\n\ndef gelu(x)\n    return x\n"
    result = pool.run(source, "gelu", ["x"], [{"x": 1.0}])
    assert result.status == "syntax_error"
    assert "line 3" in result.message
    assert result.cases == []


def test_missing_function(pool: SandboxPool) -> None:
    result = pool.run("def gelu_tanh(x):\n    return x\n", "gelu", ["x"], [{"x": 1.0}])
    assert result.status == "missing_function"
    assert "gelu" in result.message


def test_wrong_signature(pool: SandboxPool) -> None:
    source = "def layer_norm(x, g, b):\n    return x\n"
    result = pool.run(source, "layer_norm", PARAMS, layer_norm_cases(1))
    assert result.status == "bad_signature"
    assert "layer_norm(x, gamma, beta)" in result.message
    assert "layer_norm(x, g, b)" in result.message


def test_extra_parameters_need_defaults(pool: SandboxPool) -> None:
    result = pool.run("def f(x, scale):\n    return x\n", "f", ["x"], [{"x": 1.0}])
    assert result.status == "bad_signature"
    source = "def f(x, scale=2.0, *args, **kw):\n    return x * scale\n"
    ok = pool.run(source, "f", ["x"], [{"x": 1.5}])
    assert only_value(ok) == 3.0


def test_exception_traceback_shows_only_learner_frames(pool: SandboxPool) -> None:
    source = "import numpy as np\n\ndef helper(x):\n    return np.reshape(x, (7, 7))\n\n" \
             "def f(x):\n    return helper(x)\n"
    result = pool.run(source, "f", ["x"], [{"x": np.zeros(3)}, {"x": np.zeros(49)}])
    assert result.status == "completed"
    failed, passed = result.cases
    assert failed.status == "exception" and passed.status == "ok"
    assert failed.error is not None
    assert 'File "<submission>", line 7, in f' in failed.error
    assert 'File "<submission>", line 4, in helper' in failed.error
    assert "ValueError" in failed.error
    for leak in ("/runtime", "/work", "runner.py", "zygote.py", "numpy/", ".py\""):
        assert leak not in failed.error


def test_error_while_loading_ends_the_run_once(pool: SandboxPool) -> None:
    result = pool.run("raise RuntimeError('boom')\n", "f", [], [{}, {}])
    assert (result.status, result.cases) == ("load_error", [])
    assert result.message.startswith("Traceback") and result.message.endswith("RuntimeError: boom\n")


def test_infinite_loop_times_out_and_slot_still_works(pool: SandboxPool) -> None:
    started = time.monotonic()
    result = run_body(pool, "while True:\n    pass", cases=2)
    assert result.status == "timeout"
    assert [c.status for c in result.cases] == ["timeout", "timeout"]
    assert result.facts["case"] == 0
    assert time.monotonic() - started < TEST_LIMITS.wall_seconds + 2
    assert only_value(run_body(pool, "return 41 + 1")) == 42


def test_sleeping_job_hits_the_wall_clock_limit(pool: SandboxPool) -> None:
    source = "import time\n\ndef f(i):\n    time.sleep(10 if i == 1 else 0)\n    return i\n"
    result = pool.run(source, "f", ["i"], [{"i": 0}, {"i": 1}, {"i": 2}])
    assert result.status == "timeout"
    assert [c.status for c in result.cases] == ["ok", "timeout", "timeout"]
    assert result.cases[0].value == 0 and result.facts["case"] == 1  # the case it stopped in


def test_memory_bomb_hits_the_memory_limit(pool: SandboxPool) -> None:
    result = run_body(pool, "return np.ones((10**5, 10**4)).sum()")
    assert result.cases[0].status == "memory_limit"
    # Many 80 MB blocks rather than one huge one; untouched, so quick even on a slow CI box.
    grow = run_body(pool, "chunks = []\nwhile True:\n    chunks.append(np.empty(10**7))")
    assert grow.cases[0].status == "memory_limit"
    assert only_value(run_body(pool, "return 1")) == 1


def test_mutating_an_input_does_not_affect_the_next_case(pool: SandboxPool) -> None:
    source = "def f(x):\n    total = float(x.sum())\n    x[:] = 1000.0\n    return total\n"
    x = np.arange(4.0)
    result = pool.run(source, "f", ["x"], [{"x": x}, {"x": x}])
    assert [c.value for c in result.cases] == [6.0, 6.0]
    np.testing.assert_array_equal(x, np.arange(4.0))


def test_return_values_are_checked(pool: SandboxPool) -> None:
    bodies = {
        "return None": "returned None",
        "return 'text'": "returned a str",
        "return np.array([1, 'a'], dtype=object)": "object arrays",
        "return np.asmatrix(np.eye(2))": "ndarray subclass",
        "return np.ones(2, dtype=complex)": "complex",
        "return {1: 2.0}": "keys",
    }
    for body, expected in bodies.items():
        case = run_body(pool, body).cases[0]
        assert case.status == "bad_result" and expected in (case.error or ""), (body, case)


def test_numbers_and_containers_come_back_as_plain_values(pool: SandboxPool) -> None:
    body = ("return {'mean': np.float32(0.5), 'n': np.int64(3), 'ok': np.bool_(True), "
            "'pair': (np.arange(3, dtype=np.int32), float('nan')), 'inf': -np.inf, "
            "'h': np.ones(2, dtype=np.float16), 'long': np.longdouble(0.25), "
            "'u': np.arange(2, dtype=np.uint16)}")
    value = only_value(run_body(pool, body))
    assert value["mean"] == 0.5 and value["n"] == 3 and value["ok"] is True
    assert value["pair"][0].dtype == np.int32 and np.isnan(value["pair"][1])
    assert value["inf"] == -np.inf and value["h"].dtype == np.float64
    assert value["long"] == 0.25 and value["u"].dtype == np.int64


def test_print_flood_is_capped_and_does_not_block(pool: SandboxPool) -> None:
    result = run_body(pool, "for i in range(200_000):\n    print('x' * 100, file=sys.__stdout__)\nreturn 1")
    assert result.cases[0].status in ("ok", "timeout")
    assert len(result.stdout) < TEST_LIMITS.output_bytes + 200
    assert "more bytes of output dropped" in result.stdout


def test_output_at_load_time_is_the_runs_and_in_a_case_that_cases(pool: SandboxPool) -> None:
    source = "print('loading')\n\ndef f():\n    print('hello from the learner')\n    return 1\n"
    result = pool.run(source, "f", [], [{}])
    assert result.stdout == "loading\n"
    assert result.cases[0].printed == "hello from the learner\n"


def test_kill_minus_one_and_kill_parent_cannot_take_the_slot_down(pool: SandboxPool) -> None:
    body = """
    import signal
    for target in (-1, os.getppid(), 1):
        for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGSTOP):
            try:
                os.kill(target, sig)
            except OSError:
                pass
    return os.getppid()
    """
    # The zygote is PID 1 of the slot's namespace, which ignores signals from inside it.
    assert only_value(run_body(pool, body)) == 1
    assert only_value(run_body(pool, "return 2")) == 2


def test_a_killed_zygote_reports_crashed_and_the_slot_restarts() -> None:
    single = SandboxPool(slots=1, limits=TEST_LIMITS)
    try:
        uid = single.uids[0]
        (zygote,) = zygote_pids(uid)
        # Learner code cannot kill the zygote (see above), so the host plays the crash.
        killer = threading.Thread(target=kill_when_busy, args=(zygote,))
        killer.start()
        sleeper = "import time\n\ndef f():\n    time.sleep(2)\n    return 1\n"
        crashed = single.run(sleeper, "f", [], [{}])
        killer.join()
        assert crashed.status == "crashed", crashed
        assert crashed.cases[0].status == "exception"
        assert only_value(single.run("def f():\n    return 5\n", "f", [], [{}])) == 5
        (restarted,) = zygote_pids(uid)
        assert restarted != zygote
        # A zygote that dies while idle is restarted before the next job, which then passes.
        os.kill(restarted, signal.SIGKILL)
        time.sleep(0.2)
        assert only_value(single.run("def f():\n    return 6\n", "f", [], [{}])) == 6
    finally:
        single.close()
    assert slot_processes(uid) == []


def test_slots_are_recycled_after_k_jobs() -> None:
    single = SandboxPool(slots=1, limits=TEST_LIMITS, recycle_after=2)
    try:
        # The zygote numbers its jobs' work directories; a fresh zygote starts again at 1.
        source = "import os\n\ndef f():\n    return int(os.getcwd().rsplit('job', 1)[1])\n"
        numbers = [single.run(source, "f", [], [{}]).cases[0].value for _ in range(5)]
        assert numbers == [1, 2, 1, 2, 1]
    finally:
        single.close()


def test_threads_work_inside_the_sandbox(pool: SandboxPool) -> None:
    body = """
    import threading
    out = []
    workers = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return sorted(out)
    """
    assert only_value(run_body(pool, body)) == [0, 1, 2, 3]


def test_concurrent_runs_share_the_slots(pool: SandboxPool) -> None:
    results: list[object] = []

    def worker(n: int) -> None:
        result = pool.run("def f(n):\n    return n * 2\n", "f", ["n"], [{"n": n}])
        results.append(result.cases[0].value)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [0, 2, 4, 6, 8, 10]  # type: ignore[type-var]


def test_missing_bwrap_is_reported_not_bypassed(monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root")
    monkeypatch.setenv("GRADER_BWRAP", "/nonexistent/bwrap")
    with pytest.raises(SandboxUnavailable, match="bubblewrap"):
        SandboxPool(slots=1)
    monkeypatch.setenv("GRADER_BWRAP", "/bin/false")  # present but unusable
    with pytest.raises(SandboxUnavailable, match="did not start"):
        SandboxPool(slots=1)


def test_unsafe_local_mode_is_explicit_and_labelled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADER_SANDBOX", "unsafe-local")
    local = SandboxPool(slots=1, limits=Limits(wall_seconds=3.0))
    try:
        result = local.run(LAYER_NORM, "layer_norm", PARAMS, layer_norm_cases(1))
    finally:
        local.close()
    assert result.status == "completed"
    assert result.message.startswith("UNSAFE LOCAL MODE")
    monkeypatch.setenv("GRADER_SANDBOX", "something-else")
    with pytest.raises(SandboxUnavailable):
        SandboxPool(slots=1)

