"""What a learner's function prints, kept per case: in a real sandbox, and as the host reads a frame."""

from __future__ import annotations

from grader.sandbox import SandboxPool, outcome
from grader.sandbox.collector import JobOutcome
from grader.sandbox.outgoing import MAX_PRINTED_CHARS
from tests.sandbox.test_malformed_results import (CASES, CLEAN_EXIT, COMPILED, DONE, LIMITS, _case_header, _good_cases,
                                                  _raw_frame)

HEAD = "import os, sys\nimport numpy as np\n\n"


def test_each_case_keeps_what_it_printed_to_stdout_and_stderr(pool: SandboxPool) -> None:
    source = HEAD + "def f(x):\n    print('x is', x)\n    print('note', file=sys.stderr)\n    return x\n"
    result = pool.run(source, "f", ["x"], [{"x": 1.0}, {"x": 2.0}])
    assert [case.printed for case in result.cases] == ["x is 1.0\nnote\n", "x is 2.0\nnote\n"]
    assert [case.printed_dropped for case in result.cases] == [0, 0]
    assert result.stdout == ""


def test_a_numpy_warning_is_printed_in_every_case_that_raises_it(pool: SandboxPool) -> None:
    source = HEAD + "def f(x):\n    return np.exp(np.array([x]))\n"
    result = pool.run(source, "f", ["x"], [{"x": 1000.0}, {"x": 1.0}, {"x": 2000.0}])
    warned = ["RuntimeWarning: overflow encountered in exp" in case.printed for case in result.cases]
    assert warned == [True, False, True]
    assert "return np.exp(np.array([x]))" in result.cases[0].printed  # the learner's own line


def test_warnings_the_learner_silenced_stay_silent(pool: SandboxPool) -> None:
    source = HEAD + "import warnings\nwarnings.simplefilter('ignore')\n\ndef f(x):\n    return np.exp(np.array([x]))\n"
    result = pool.run(source, "f", ["x"], [{"x": 1000.0}, {"x": 2000.0}])
    assert [case.printed for case in result.cases] == ["", ""]


def test_printed_output_is_cut_and_what_was_cut_is_counted(pool: SandboxPool) -> None:
    source = HEAD + "def f():\n    for _ in range(50):\n        print('y' * 999)\n    return 1\n"
    [case] = pool.run(source, "f", [], [{}]).cases
    assert case.printed == ("y" * 999 + "\n") * (MAX_PRINTED_CHARS // 1000)
    assert case.printed_dropped == 50 * 1000 - MAX_PRINTED_CHARS


def test_what_a_case_printed_before_it_raised_is_kept(pool: SandboxPool) -> None:
    source = HEAD + "def f():\n    print('got this far')\n    raise ValueError('then this')\n"
    [case] = pool.run(source, "f", [], [{}]).cases
    assert case.status == "exception" and "ValueError: then this" in (case.error or "")
    assert case.printed == "got this far\n"


def test_a_stream_the_function_replaces_is_put_back_for_the_next_case(pool: SandboxPool) -> None:
    source = HEAD + ("def f(x):\n    print('before', x)\n    sys.stdout = sys.__stdout__\n"
                     "    print('after', x)\n    return x\n")
    result = pool.run(source, "f", ["x"], [{"x": 1.0}, {"x": 2.0}])
    assert [case.printed for case in result.cases] == ["before 1.0\n", "before 2.0\n"]
    assert result.stdout == "after 1.0\nafter 2.0\n"


def test_writes_to_the_file_descriptors_are_the_runs_output_not_a_cases(pool: SandboxPool) -> None:
    source = HEAD + "def f():\n    os.write(1, b'raw\\n')\n    return 1\n"
    result = pool.run(source, "f", [], [{}])
    assert result.cases[0].printed == "" and result.stdout == "raw\n"


def _assemble(results: bytes) -> list[tuple[str, int]]:
    job = JobOutcome(results=COMPILED + results, done=dict(CLEAN_EXIT))
    run = outcome.assemble(job, CASES, LIMITS, 5.0)
    assert run.status == "completed", run.message
    return [(case.printed, case.printed_dropped) for case in run.cases]


def test_the_host_holds_a_forged_frame_to_the_runners_limit() -> None:
    forged = _raw_frame(_case_header(0, printed="z" * (MAX_PRINTED_CHARS + 10), printed_dropped=5))
    printed = _assemble(forged + _good_cases(1, CASES) + DONE)
    assert printed[0] == ("z" * MAX_PRINTED_CHARS, 15)
    assert printed[1:] == [("", 0)] * (CASES - 1)  # frames without the fields printed nothing


def test_a_lone_surrogate_printed_or_raised_comes_back_as_its_escape(pool: SandboxPool) -> None:
    source = HEAD + "def f():\n    print(chr(0xD800))\n    raise ValueError(chr(0xDFFF))\n"
    [case] = pool.run(source, "f", [], [{}]).cases
    assert case.printed == "\\ud800\n" and "ValueError: \\udfff" in (case.error or "")
    (case.printed + (case.error or "")).encode("utf-8")  # a page can write it


def test_a_function_that_breaks_what_it_prints_to_still_gets_its_verdict(pool: SandboxPool) -> None:
    source = HEAD + "def f(x):\n    print('hi')\n    sys.stdout.parts = None\n    return x\n"
    result = pool.run(source, "f", ["x"], [{"x": 1.0}, {"x": 2.0}])
    assert result.status == "completed", result.message
    assert [(case.status, case.value, case.printed) for case in result.cases] == [("ok", 1.0, ""), ("ok", 2.0, "")]


def test_what_a_case_printed_before_it_ran_out_of_cpu_time_is_kept(pool: SandboxPool) -> None:
    source = HEAD + ("def f(x):\n    print('working on', x)\n    while x > 1:\n        pass\n"
                     "    return x\n")
    result = pool.run(source, "f", ["x"], [{"x": 1.0}, {"x": 2.0}, {"x": 3.0}])
    assert result.status == "timeout" and result.facts["cause"] == "cpu" and result.facts["case"] == 1
    assert [(case.status, case.printed) for case in result.cases] == [
        ("ok", "working on 1.0\n"), ("timeout", "working on 2.0\n"), ("timeout", "")]


def test_what_a_case_printed_before_its_wall_time_ran_out_is_kept(pool: SandboxPool) -> None:
    source = HEAD + "import time\n\ndef f():\n    for step in range(3):\n        print('step', step)\n    time.sleep(60)\n"
    result = pool.run(source, "f", [], [{}])
    assert result.status == "timeout" and result.facts["cause"] == "wall"
    assert result.cases[0].printed == "step 0\nstep 1\nstep 2\n"


def test_a_stopped_case_keeps_only_what_the_runner_keeps_of_a_flood(pool: SandboxPool) -> None:
    source = HEAD + "def f():\n    while True:\n        print('z' * 999)\n"
    [case] = pool.run(source, "f", [], [{}]).cases
    assert case.status == "timeout"
    assert case.printed == ("z" * 999 + "\n") * (MAX_PRINTED_CHARS // 1000)


def _stopped(results: bytes) -> list[tuple[str, str, int]]:
    """The cases of a job whose process died of SIGXCPU after sending `results`."""
    died = {**CLEAN_EXIT, "exit_code": None, "signal": 24, "cpu_seconds": LIMITS.cpu_seconds}
    run = outcome.assemble(JobOutcome(results=COMPILED + results, done=died), CASES, LIMITS, 5.0)
    assert run.status == "timeout", run.message
    return [(case.status, case.printed, case.printed_dropped) for case in run.cases]


def _stopped_frame(index: int, printed: object, dropped: object = 0) -> bytes:
    return _raw_frame({"__dict__": {"kind": "stopped", "index": index, "printed": printed, "printed_dropped": dropped}})


def test_the_host_gives_the_stopped_case_what_its_stopped_frame_says_it_printed() -> None:
    cases = _stopped(_raw_frame(_case_header(0, printed="done\n")) + _stopped_frame(1, "half way", 7))
    assert cases == [("ok", "done\n", 0), ("timeout", "half way", 7), ("timeout", "", 0)]


def test_the_host_holds_a_stopped_frame_to_the_runners_limit_and_reads_nothing_after_it() -> None:
    flood = _stopped_frame(0, "w" * (MAX_PRINTED_CHARS + 5)) + _raw_frame(_case_header(0)) + DONE
    assert _stopped(flood)[0] == ("timeout", "w" * MAX_PRINTED_CHARS, 5)


def test_code_that_ignores_the_deadlines_sigxcpu_and_finishes_in_the_grace_still_timed_out(pool: SandboxPool) -> None:
    # The zygote asks with SIGXCPU at the wall-clock deadline and kills 0.25 s later: finishing in
    # between, every case answered and "done" sent, must not pass.
    source = HEAD + ("import signal, time\n\ndef f():\n    signal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
                     "    time.sleep(3.1)\n    return 1.0\n")
    result = pool.run(source, "f", [], [{}])
    assert (result.status, result.facts.get("cause")) == ("timeout", "wall")

