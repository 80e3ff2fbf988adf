"""Hostile submissions that speak the result protocol themselves, or return what it cannot carry.

Learner code runs in the process that holds the result pipe, so it can find the pipe and write
its own frames. Whatever it writes, grading must end in a verdict (never an exception out of
pool.run), forged frames must not pass, and nothing it sends may forge a line in the operator's
log. Each is graded through grade_code for code-layer-norm on a real pool (hostile_support.py).
The decoder and interpreter alone are fuzzed in test_malformed_results.py.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

pytest.register_assert_rewrite("tests.sandbox.hostile_support")  # see test_hostile_resources

from grader.sandbox import outcome  # noqa: E402
from tests.sandbox.hostile_support import (  # noqa: E402
    CASE_COUNT, CORRECT, VISIBLE, Hostile, assert_not_passed, slot_pids, submission,
)

CRASHED = "Your code crashed the process running it."  # what the learner reads; the log says more
pytest_plugins = ["tests.sandbox.hostile_support"]
UNCHECKABLE = "Returned a value that cannot be checked"

# Finds the result pipe (the only FIFO above stderr) and frames objects as the runner would.
FORGER = """
import os, json, struct, stat

def _forged(obj):
    head = json.dumps(obj).encode()
    blob = struct.pack(">I", len(head)) + head
    return struct.pack(">I", len(blob)) + blob

_FD = [d for d in range(3, 64) if os.path.exists(f"/proc/self/fd/{d}")
       and stat.S_ISFIFO(os.fstat(d).st_mode)][0]
"""


def _forging(frames: list[Any], leave: bool = True) -> str:
    """A submission that writes `frames` at import and, if `leave`, exits before the runner
    writes anything (so the host sees only the forged frames); its layer_norm is correct."""
    writes = f"for _frame in {frames!r}:\n    os.write(_FD, _forged(_frame))\n"
    return CORRECT + FORGER + writes + ("os._exit(0)\n" if leave else "")


def _array_tag(shape: list[int]) -> dict[str, Any]:
    return {"__array__": 0, "dtype": "<f8", "shape": shape, "offset": 0, "nbytes": 0}


def _case(**fields: Any) -> dict[str, Any]:
    body = {"kind": "case", "index": 0, "status": "ok", "duration_ms": 1.0, "value": 1.0,
            "error": None}
    body.update(fields)
    return {"__dict__": body}


FORGED = {
    # The audit's submission: an unhashable status made pool.run raise TypeError.
    "status-as-list": _case(status=["ok"]),
    "float-tag-as-list": {"__float__": ["nan"]},
    "shape-2**70-by-0": _case(value=_array_tag([2**70, 0])),
    "shape-2**40-by-2**40-by-0": _case(value=_array_tag([2**40, 2**40, 0])),
    "status-as-dict": _case(status={"__dict__": {}}),
    # Code that compiled and ran, claiming it did not compile: a syntax error would cost no attempt.
    "syntax-error-after-compiling": {"__dict__": {"kind": "syntax_error", "line": 1, "message": "free try"}},
}


@pytest.mark.parametrize("name", FORGED)
def test_forged_malformed_frames_end_in_the_malformed_verdict(hostile: Hostile, name: str,
                                                              caplog: pytest.LogCaptureFixture
                                                              ) -> None:
    with caplog.at_level(logging.WARNING, logger=outcome.__name__):
        graded = hostile.grade(_forging([FORGED[name]]))
    assert_not_passed(graded, "error", "Your code's results came back in a form the grader cannot read.")
    assert graded.run.message == outcome.MALFORMED
    assert graded.code.counted  # the learner's doing: it costs the attempt
    assert graded.run.status == "crashed"
    assert len(graded.run.cases) == CASE_COUNT
    _assert_one_line_records(caplog)


def test_a_forged_internal_error_ends_the_run_and_cannot_forge_log_lines(
        hostile: Hostile, caplog: pytest.LogCaptureFixture) -> None:
    forged = "x\n2030-01-01 00:00:00 CRITICAL grader.security: admin password reset"
    frame = {"__dict__": {"kind": "internal_error", "error": forged}}
    # It does not leave, and its layer_norm is correct: before, the run went on and passed.
    with caplog.at_level(logging.WARNING, logger=outcome.__name__):
        graded = hostile.grade(_forging([frame], leave=False))
    assert_not_passed(graded, "error", CRASHED)
    assert (graded.run.status, graded.run.message) == ("crashed", outcome.RUNNER_FAILED)
    errors = [r for r in caplog.records if r.name == outcome.__name__]
    assert [r.levelno for r in errors] == [logging.ERROR]
    assert repr(forged) in errors[0].getMessage()
    _assert_one_line_records(caplog)


def test_a_megabyte_internal_error_is_logged_cut(hostile: Hostile,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    # Built inside the sandbox: a megabyte of source would be refused before running.
    write = ("os.write(_FD, _forged({'__dict__': {'kind': 'internal_error',"
             " 'error': '\\n' * 2**20 + 'end'}}))\nos._exit(0)\n")
    with caplog.at_level(logging.WARNING, logger=outcome.__name__):
        graded = hostile.grade(CORRECT + FORGER + write)
    assert_not_passed(graded, "error", CRASHED)
    assert graded.run.message == outcome.RUNNER_FAILED
    (record,) = [r for r in caplog.records if r.name == outcome.__name__]
    assert record.getMessage().endswith("end'")
    _assert_one_line_records(caplog)


def test_a_forged_passing_run_still_has_to_compute_the_answers(hostile: Hostile) -> None:
    # Well-formed frames claiming success: the host judges the values, which are wrong.
    frames = [_case(index=i, value=0.0) for i in range(CASE_COUNT)]
    graded = hostile.grade(_forging([*frames, {"__dict__": {"kind": "done"}}]))
    assert_not_passed(graded, "failed", f"0 of {CASE_COUNT}")
    assert slot_pids(hostile.uids) == hostile.before  # the slot lived on


# --- values the wire cannot carry: one case's bad_result, not a crashed job --------------

UNCARRIABLE = {
    "33-dimensions": ("return np.zeros((1,) * 33)", "an array with 33 dimensions"),
    "64-dimensions": ("return [np.zeros((1,) * 64)]", "an array with 64 dimensions"),
    "zero-size-with-a-2**41-dimension": ("return np.zeros((2**41, 0))",
                                         "spans more than"),
}


@pytest.mark.parametrize("name", UNCARRIABLE)
def test_values_the_host_would_refuse_are_a_bad_result_per_case(hostile: Hostile,
                                                                 name: str) -> None:
    body, why = UNCARRIABLE[name]
    graded = hostile.grade(submission(body))
    assert graded.run.status == "completed", graded.run.message
    assert {case.status for case in graded.run.cases} == {"bad_result"}
    assert why in (graded.run.cases[0].error or "")
    assert_not_passed(graded, "failed", f"0 of {CASE_COUNT}", visible=UNCHECKABLE)
    assert why in graded.case_message(VISIBLE)


def test_thirty_two_dimensions_still_cross(hostile: Hostile) -> None:
    graded = hostile.grade(submission("return np.zeros((1,) * 32)"))
    assert {case.status for case in graded.run.cases} == {"ok"}
    assert graded.run.cases[0].value.shape == (1,) * 32
    assert_not_passed(graded, "failed", f"0 of {CASE_COUNT}")


def _assert_one_line_records(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        if record.name == outcome.__name__:
            line = record.getMessage()
            assert "\n" not in line and len(line) < outcome.MAX_LOGGED + 300, line[:300]


def test_a_forked_child_returning_into_the_runner_sends_nothing(hostile: Hostile) -> None:
    # Both processes return from layer_norm; only the runner's own process may report. Before,
    # the child's copy of every frame made the whole job "malformed data".
    body = "os.fork()\nmu = x.mean(axis=-1, keepdims=True)\n" \
           "return gamma * (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) + beta"
    graded = hostile.grade(submission(body))
    assert graded.run.status == "completed", graded.run.message
    # Each case leaves one more child until the process limit refuses the fork.
    statuses = [case.status for case in graded.run.cases]
    assert statuses[0] == "ok" and set(statuses) <= {"ok", "exception"}
