"""Verdicts: per-case checks, hidden cases without values, scoring, run failures, misconceptions."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from grader.codecheck.compare import HIDDEN_MESSAGES, compare
from grader.codecheck.prepare import limit_visible, prepare, sandbox_cases
from grader.codecheck.tasks import get_task
from grader.codecheck.verdict import RUN_FAILURES, STOPPED_HERE, UNAVAILABLE, _exception_message
from tests.code.support import FakeCaseRun, FakeRun, grade_run, grade_values, prepared_for

DIGIT = re.compile(r"\d")


def _replace(values: list, index: int, value: object) -> list:
    return [value if i == index else v for i, v in enumerate(values)]


def _first(prepared, visible: bool) -> int:
    return next(i for i, c in enumerate(prepared.cases) if c.visible == visible)


def _message(spec, prepared, index: int, value: object) -> str:
    result = grade_values(spec, prepared, _replace(prepared.expected, index, value))
    return result.cases[index].message


def test_wrong_shape_names_both_shapes_on_a_visible_case() -> None:
    spec, prepared = prepared_for("layer-norm")
    i = _first(prepared, visible=True)
    wrong = prepared.expected[i].T
    verdict = grade_values(spec, prepared, _replace(prepared.expected, i, wrong)).cases[i]
    assert verdict.status == "failed"
    assert str(prepared.expected[i].shape) in verdict.message
    assert str(wrong.shape) in verdict.message


@pytest.mark.parametrize("kind, make", [
    ("shape", lambda e: e[..., :1]),
    ("nonfinite", lambda e: np.where(np.arange(e.size).reshape(e.shape) == 0, np.nan, e)),
    ("values", lambda e: e + 0.5),
    ("type", lambda e: None),
    ("type", lambda e: "text"),
    ("dtype", lambda e: e.astype(complex)),
])
def test_hidden_cases_say_only_what_kind_of_failure(kind: str, make) -> None:
    spec, prepared = prepared_for("layer-norm")
    i = _first(prepared, visible=False)
    values = _replace(prepared.expected, i, make(prepared.expected[i]))
    verdict = grade_values(spec, prepared, values).cases[i]
    assert verdict.status == "failed" and not verdict.visible
    assert verdict.message == str(HIDDEN_MESSAGES[kind])
    assert not DIGIT.search(verdict.message)


def test_no_hidden_message_contains_a_number() -> None:
    assert not any(DIGIT.search(str(m)) for m in HIDDEN_MESSAGES.values())


def test_nan_on_a_visible_case_says_where() -> None:
    spec, prepared = prepared_for("causal-attention")
    i = _first(prepared, visible=True)
    got = prepared.expected[i].copy()
    got[0, 0, 0] = np.nan
    message = grade_values(spec, prepared, _replace(prepared.expected, i, got)).cases[i].message
    assert "NaN" in message and "index [0, 0, 0]" in message


def test_values_off_on_a_visible_case_give_largest_error_and_both_values() -> None:
    spec, prepared = prepared_for("gelu")
    i = [c.name for c in prepared.cases].index("vector")
    got = prepared.expected[i].copy()
    got[2] += 0.25
    message = grade_values(spec, prepared, _replace(prepared.expected, i, got)).cases[i].message
    assert re.match(r"Off by 0\.25 at index \[2\], where [0-9.e-]+ is allowed: expected ", message), message
    assert "expected [" in message and "got [" in message


def test_the_entry_named_is_the_one_furthest_outside_the_tolerance_not_the_largest_error() -> None:
    expected = np.array([3.0, 0.00031073, -1.5])
    got = np.array([3.00002, 0.00031069, -1.5])  # 2e-5 is within 1e-5 × 3; 4e-8 is far outside 3e-9
    mismatch = compare(expected, got, rtol=1e-5, atol=1e-8)
    assert mismatch is not None
    assert str(mismatch.detail).startswith("Off by 4e-08 at index [1], where 1.31073e-08 is allowed: "
                                           "expected 0.00031073, got 0.00031069;")  # fmt: skip


def test_a_float32_output_that_misses_the_tolerance_is_told_to_use_float64() -> None:
    expected = np.linspace(-3, 3, 50) / 7000
    near = compare(expected, (expected + 1e-7).astype(np.float32), rtol=1e-5, atol=1e-8)
    assert near is not None and "float32" in str(near.detail) and "float64" in str(near.detail)
    off = compare(expected, expected + 1e-7, rtol=1e-5, atol=1e-8)
    assert off is not None and "float32" not in str(off.detail)
    assert compare(expected, expected.astype(np.float32), rtol=1e-5, atol=1e-8) is None  # close enough passes


def test_a_tuple_of_arrays_is_told_to_return_only_the_output() -> None:
    mismatch = compare(np.zeros((2, 3)), (np.zeros((2, 3)), np.ones(2)), rtol=1e-5, atol=1e-8)
    assert mismatch is not None and mismatch.kind == "type"
    assert str(mismatch.detail) == "Expected one numpy array, got a tuple of 2 items: return only the output asked for."


@pytest.mark.parametrize("last_line", ["IndexError: index 5 is out of bounds for axis 0 with size 4",
                                       "ZeroDivisionError: division by zero", "Secret_0_731Error: from the inputs"])
def test_a_hidden_case_says_only_that_it_raised(last_line: str) -> None:
    # Even a built-in type is refused: code could choose which one to raise from the hidden inputs.
    traceback = f'Traceback (most recent call last):\n  File "<submission>", line 3, in f\n{last_line}\n'
    assert str(_exception_message(traceback, visible=False)) == "Raised an exception."


def test_none_says_to_return_and_object_dtype_is_refused() -> None:
    spec, prepared = prepared_for("layer-norm")
    i = _first(prepared, visible=True)
    assert "return" in _message(spec, prepared, i, None)
    assert "ragged" in _message(spec, prepared, i, [[1.0, 2.0], [3.0]])
    assert "object dtype" in _message(spec, prepared, i, np.array([object()] * 3))


def test_lists_and_plain_floats_are_accepted_as_arrays() -> None:
    spec, prepared = prepared_for("gelu")
    values = [float(e) if e.ndim == 0 else e.tolist() for e in prepared.expected]
    assert grade_values(spec, prepared, values).status == "passed"


def test_fraction_scoring_counts_cases_and_all_scoring_needs_every_one() -> None:
    spec, prepared = prepared_for("layer-norm")
    n = len(prepared.cases)
    values = [e + 1.0 if i % 2 else e for i, e in enumerate(prepared.expected)]
    passed = sum(1 for i in range(n) if i % 2 == 0)
    fraction = grade_values(spec, prepared, values)
    assert (fraction.status, fraction.score) == ("failed", round(passed / n, 6))
    assert fraction.message.startswith(f"{passed} of {n} cases passed.")
    strict = grade_values(spec.model_copy(update={"scoring": "all"}), prepared, values)
    assert (strict.status, strict.score) == ("failed", 0.0)
    assert "every case" in strict.message


@pytest.mark.parametrize("status, expected", [
    ("syntax_error", "error"), ("load_error", "error"), ("missing_function", "error"), ("bad_signature", "error"),
    ("crashed", "error"), ("timeout", "timeout"), ("memory_limit", "memory_limit"),
    ("unavailable", "invalid"), ("something-new", "invalid"),
])
def test_run_failures_map_to_result_statuses(status: str, expected: str) -> None:
    spec, prepared = prepared_for("gelu")
    result = grade_run(spec, prepared, FakeRun(status=status, message="SyntaxError at line 3: invalid syntax"))
    assert (result.status, result.score, result.cases) == (expected, 0.0, ())
    assert result.counted == (expected != "invalid" and status != "syntax_error")  # code that never ran is free
    lead = RUN_FAILURES[status][1].render() if status in RUN_FAILURES else UNAVAILABLE.render()
    assert result.message.startswith(lead)
    # Only the reports about the code itself are passed on; the sandbox's other notes are reworded.
    shown = "\nSyntaxError at line 3: invalid syntax" in result.message
    assert shown == (status in ("syntax_error", "load_error", "bad_signature"))


@pytest.mark.parametrize("status, facts, says", [
    ("timeout", {"cause": "cpu", "seconds": 2}, "Your code took too long: it used more than 2 s of CPU time."),
    ("timeout", {"cause": "wall", "seconds": "7.5"}, "Your code took too long: it ran for more than 7.5 s."),
    ("memory_limit", {"cause": "memory", "signal": "SIGBUS", "mib": 768},
     "Your code's process died of SIGBUS: most likely it ran out of memory (the limit is 768 MiB), "
     "or native code crashed."),
    ("memory_limit", {"cause": "memory", "mib": 768}, "Your code used too much memory."),
    ("crashed", {"cause": "exit", "status": 3}, "Your code ended the process running it (exit status 3)."),
    ("crashed", {"cause": "signal", "signal": "SIGILL"}, "The process running your code was killed by signal SIGILL."),
    ("crashed", {"cause": "result_overflow"}, "Your code sent back more result data than allowed."),
    ("crashed", {"cause": "exit"}, "Your code crashed the process running it."),
    ("timeout", {"cause": "cpu"}, "Your code took too long."),
    ("crashed", {"cause": "malformed"}, "Your code's results came back in a form the grader cannot read."),
    ("crashed", {"cause": "killed"}, "Your code crashed the process running it."),
])
def test_run_failures_are_worded_from_the_hosts_facts(status: str, facts: dict[str, Any], says: str) -> None:
    spec, prepared = prepared_for("gelu")
    result = grade_run(spec, prepared, FakeRun(status=status, message="the sandbox's English note", facts=facts))
    assert result.message == says


def _stopped_in(prepared, index: int, status: str, printed: str = "") -> FakeRun:
    """A run that finished the cases before `index` right and stopped in it, as the host assembles one."""
    runs = [FakeCaseRun(value=e) for e in prepared.expected[:index]]
    runs.append(FakeCaseRun(status=status, error="the job used more than 2 s of CPU time", printed=printed))
    runs += [FakeCaseRun(status=status, error="not run") for _ in prepared.expected[index + 1:]]
    run_status = "crashed" if status == "exception" else status
    return FakeRun(status=run_status, cases=runs, facts={"cause": "cpu", "seconds": 2, "case": index})


def test_a_run_that_stopped_judges_the_cases_it_finished_and_shows_what_the_stopped_one_printed() -> None:
    spec, prepared = prepared_for("layer-norm")
    stopped = _first(prepared, visible=True) + 1
    assert prepared.cases[stopped].visible
    result = grade_run(spec, prepared, _stopped_in(prepared, stopped, "timeout", printed="row 0\nrow 1\n"))
    assert (result.status, result.score, result.counted) == ("timeout", 0.0, True)
    assert [case.status for case in result.cases] == ["passed"] * stopped + ["timeout"]
    last = result.cases[-1]
    assert (last.name, last.message, last.printed) == (prepared.cases[stopped].name, "Took too long on this case.",
                                                       "row 0\nrow 1\n")  # fmt: skip
    assert f"It stopped in case {last.name}, after {stopped} of {len(prepared.cases)} cases." in result.message


def test_a_hidden_case_a_run_stopped_in_shows_nothing_it_printed() -> None:
    spec, prepared = prepared_for("layer-norm")
    hidden = _first(prepared, visible=False)
    result = grade_run(spec, prepared, _stopped_in(prepared, hidden, "memory_limit", printed="the hidden x"))
    last = result.cases[-1]
    assert (len(result.cases), last.status, last.visible, last.printed) == (hidden + 1, "error", False, "")
    assert last.message == "Used too much memory on this case."
    assert "the hidden x" not in repr(result.to_json())


def test_a_crash_names_the_case_it_happened_in() -> None:
    spec, prepared = prepared_for("gelu")
    crashed = grade_run(spec, prepared, _stopped_in(prepared, 2, "exception"))
    assert [case.status for case in crashed.cases] == ["passed", "passed", "error"]
    assert crashed.cases[-1].message == STOPPED_HERE.render()


@pytest.mark.parametrize("status", ["timeout", "memory_limit", "exception"])
@pytest.mark.parametrize("printed", ["", "started\n"])
def test_a_stop_in_the_first_case_lists_that_case_like_any_other(status: str, printed: str) -> None:
    spec, prepared = prepared_for("gelu")
    first = prepared.cases[0]
    result = grade_run(spec, prepared, _stopped_in(prepared, 0, status, printed=printed))
    assert [(case.name, case.printed) for case in result.cases] == [(first.name, printed)]
    assert result.cases[0].status == {"timeout": "timeout"}.get(status, "error")
    assert f"It stopped in case {first.name}, after 0 of {len(prepared.cases)} cases." in result.message
    # Without a word printed, the time may have gone on loading the file: the verdict says it counts there.
    assert ("outside the function" in result.message) == (not printed)
    assert "outside the function" not in grade_run(spec, prepared, _stopped_in(prepared, 1, status)).message


def test_where_a_run_stopped_is_said_only_with_every_case_reported() -> None:
    spec, prepared = prepared_for("gelu")
    # A host report that lacks cases cannot be placed: no sentence, no list, rather than one without the other.
    short = _stopped_in(prepared, 1, "timeout")
    short.cases = short.cases[:2]
    result = grade_run(spec, prepared, short)
    assert (result.cases, "It stopped" in result.message) == ((), False)


def test_missing_function_message_gives_the_signature() -> None:
    spec, prepared = prepared_for("layer-norm")
    result = grade_run(spec, prepared, FakeRun(status="missing_function"))
    assert "def layer_norm(x, gamma, beta, eps=1e-5)." in result.message  # as the stub writes it


def test_a_short_run_is_invalid_not_failed() -> None:
    spec, prepared = prepared_for("gelu")
    result = grade_run(spec, prepared, FakeRun(cases=[FakeCaseRun(value=prepared.expected[0])]))
    assert result.status == "invalid" and not result.counted


def test_case_statuses_exception_timeout_memory_and_bad_result() -> None:
    spec, prepared = prepared_for("layer-norm")
    runs = [FakeCaseRun(value=e) for e in prepared.expected]
    shown, hidden = _first(prepared, True), _first(prepared, False)
    error = "Traceback ...\nValueError: operands could not be broadcast with shapes (3,8) (5,)"
    runs[shown] = FakeCaseRun(status="exception", error=error)
    runs[hidden] = FakeCaseRun(status="exception", error=error)
    runs[shown + 1] = FakeCaseRun(status="timeout")
    runs[shown + 2] = FakeCaseRun(status="memory_limit")
    runs[shown + 3] = FakeCaseRun(status="bad_result", error="cannot pickle generator")
    cases = grade_run(spec, prepared, FakeRun(cases=runs)).cases
    assert cases[shown].status == "error" and "(3,8)" in cases[shown].message
    assert (cases[hidden].status, cases[hidden].message) == ("error", "Raised an exception.")
    assert cases[shown + 1].status == "timeout"
    assert cases[shown + 2].status == "error"
    assert cases[shown + 3].status == "failed" and "(cannot pickle generator)" in cases[shown + 3].message


def test_misconception_needs_every_case_to_match_the_mutant() -> None:
    spec, prepared = prepared_for("causal-attention")
    outputs = list(prepared.mutant_outputs["no-causal-mask"])
    assert grade_values(spec, prepared, outputs).misconception == "no-causal-mask"
    last = len(outputs) - 1
    one_off = _replace(outputs, last, outputs[last] + 1.0)
    assert grade_values(spec, prepared, one_off).misconception is None
    runs = [FakeCaseRun(value=o) for o in outputs]
    runs[last] = FakeCaseRun(status="exception", error="RuntimeError")
    assert grade_run(spec, prepared, FakeRun(cases=runs)).misconception is None


def test_misconception_is_only_named_from_the_specs_list() -> None:
    spec, prepared = prepared_for("causal-attention")
    outputs = prepared.mutant_outputs["scale-dh"]
    narrowed = spec.model_copy(update={"mutants": ["no-causal-mask"]})
    assert grade_values(narrowed, prepared, outputs).misconception is None


def test_dict_outputs_missing_keys_non_numbers_and_wrong_counts() -> None:
    spec, prepared = prepared_for("param-count")
    shown, hidden = _first(prepared, True), _first(prepared, False)
    expected = prepared.expected[shown]
    partial = {k: v for k, v in expected.items() if k != "total"}
    assert _message(spec, prepared, shown, partial) == "Missing keys: total."
    assert "'ffn'" in _message(spec, prepared, shown, {**expected, "ffn": "many"})
    off = {**expected, "total": expected["total"] + 4096, "extra": 1}
    total = expected["total"]
    assert f"total: expected {total}, got {total + 4096}" in _message(spec, prepared, shown, off)
    zero = {**prepared.expected[hidden], "total": 0}
    assert _message(spec, prepared, hidden, zero) == str(HIDDEN_MESSAGES["values"])
    assert _message(spec, prepared, hidden, partial) == str(HIDDEN_MESSAGES["keys"])


def test_to_json_has_exactly_the_documented_keys_and_the_hosts_duration() -> None:
    spec, prepared = prepared_for("gelu")
    data = grade_values(spec, prepared, prepared.expected).to_json()
    assert set(data) == {"status", "score", "cases", "message", "misconception", "duration_ms"}
    assert set(data["cases"][0]) == {"name", "status", "message", "printed", "printed_dropped"}
    assert data["duration_ms"] == 42.0  # the host's figure, not the sandbox's per-case clocks


def test_sandbox_cases_are_copies_of_the_kwargs_only() -> None:
    spec, prepared = prepared_for("microgpt")
    sent = sandbox_cases(prepared)
    task = get_task(spec.task)
    assert all(set(kwargs) <= set(task.params) for kwargs in sent)
    sent[0]["keys"][0].append(np.zeros(16))
    assert prepared.cases[0].kwargs["keys"] == [[]]


def test_prepare_leaves_the_cases_unchanged() -> None:
    spec, prepared = prepared_for("microgpt")
    assert all(len(c.kwargs["keys"][0]) == c.kwargs["pos_id"] for c in prepared.cases)


def test_visible_cases_limits_how_many_edge_cases_are_shown() -> None:
    spec, _ = prepared_for("layer-norm")
    prepared = prepare(spec.model_copy(update={"visible_cases": 2}), 0)
    assert [c.visible for c in prepared.cases[:3]] == [True, True, False]
    assert sum(c.visible for c in limit_visible(prepared.cases, 0)) == 0
