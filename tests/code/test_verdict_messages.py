"""What a failed run's verdict says: where it stopped, the signature asked for, a long traceback."""

from __future__ import annotations

import numpy as np
import pytest

from grader.codecheck.verdict import _exception_message
from tests.code.support import FakeCaseRun, FakeRun, grade_run, prepared_for


def test_a_long_traceback_keeps_its_last_whole_lines_and_says_it_was_cut() -> None:
    frames = [f'  File "<submission>", line {i}, in layer_norm\n    return layer_norm(x, gamma, beta, eps)'
              for i in range(2, 40)]
    error = "\n".join(["Traceback (most recent call last):", *frames, "RecursionError: maximum recursion depth"])
    shown = str(_exception_message(error, visible=True)).splitlines()
    assert shown[:2] == ["Raised an exception:", "…"] and shown[-1] == "RecursionError: maximum recursion depth"
    assert all(line in error.splitlines() for line in shown[2:])  # whole lines only
    assert len("\n".join(shown[2:])) <= 500
    short = "Traceback (most recent call last):\nValueError: bad"
    assert str(_exception_message(short, visible=True)) == "Raised an exception:\n" + short


def test_a_bad_signature_is_answered_with_the_stubs_own_signature_defaults_included() -> None:
    spec, prepared = prepared_for("layer-norm")
    result = grade_run(spec, prepared, FakeRun(status="bad_signature", message="found layer_norm(x, g, b)"))
    assert "Expected: def layer_norm(x, gamma, beta, eps=1e-5)." in result.message


@pytest.mark.parametrize("stopped_at", [0, 1, 4, 6, 99])
def test_a_timeout_names_the_case_it_stopped_in(stopped_at: int) -> None:
    spec, prepared = prepared_for("layer-norm")
    total = len(prepared.cases)
    facts = {"cause": "cpu", "seconds": 2, "case": stopped_at}
    # As the host reports one: a result for each case, those from the stopped one on timed out.
    runs = [FakeCaseRun(value=e) if i < stopped_at else FakeCaseRun(status="timeout")
            for i, e in enumerate(prepared.expected)]  # fmt: skip
    result = grade_run(spec, prepared, FakeRun(status="timeout", cases=runs, facts=facts))
    if stopped_at == 99:  # a number the host cannot place
        assert "It stopped" not in result.message and result.cases == ()
        return
    case = prepared.cases[stopped_at]
    where = case.name if case.visible else "a hidden case"
    said = f"It stopped in {'case ' if case.visible else ''}{where}, after {stopped_at} of {total} cases."
    assert said in result.message
    assert [c.name for c in result.cases] == [c.name for c in prepared.cases[: stopped_at + 1]]


def test_what_a_visible_case_printed_is_kept_and_a_hidden_cases_is_not() -> None:
    spec, prepared = prepared_for("layer-norm")
    runs = [FakeCaseRun(value=e, printed=f"mu for {c.name}\n", printed_dropped=7)
            for c, e in zip(prepared.cases, prepared.expected, strict=True)]
    result = grade_run(spec, prepared, FakeRun(cases=runs))
    assert result.status == "passed"
    for case, verdict in zip(prepared.cases, result.to_json()["cases"], strict=True):
        shown = (f"mu for {case.name}\n", 7) if case.visible else ("", 0)
        assert (verdict["printed"], verdict["printed_dropped"]) == shown
    assert {c.visible for c in prepared.cases} == {True, False}  # both kinds were checked


@pytest.mark.parametrize("task, name, edge", [("layer-norm", "constant-row", 1), ("layer-norm", "row-times-10", 1),
                                              ("rms-norm", "zero-row", 0)])
def test_a_case_named_for_a_row_says_which_row_that_was(task: str, name: str, edge: int) -> None:
    spec, prepared = prepared_for(task, seed=3)
    index = [c.name for c in prepared.cases].index(name)
    for wrong_row in (edge, 1 - edge):
        outputs = [np.array(e, dtype=float) for e in prepared.expected]
        outputs[index][wrong_row, 2] += 1.0
        verdict = grade_run(spec, prepared, FakeRun(cases=[FakeCaseRun(value=v) for v in outputs])).cases[index]
        assert verdict.status == "failed" and f"at index [{wrong_row}, 2]" in verdict.message
        if wrong_row == edge:
            assert f"Row {edge} is the edge this case is named for: " in verdict.message
        else:
            assert (f"The largest error is in row {wrong_row}, not in the edge this case is named for: row {edge}, "
                    "where ") in verdict.message


def test_a_case_named_for_no_row_and_a_hidden_case_say_nothing_of_rows() -> None:
    spec, prepared = prepared_for("layer-norm", seed=3)
    outputs = [np.array(e, dtype=float) + 1.0 for e in prepared.expected]
    result = grade_run(spec, prepared, FakeRun(cases=[FakeCaseRun(value=v) for v in outputs]))
    named = {c.name: c.message for c in result.cases}
    assert "edge this case is named for" in named["constant-row"]
    assert not any("named for" in named[c.name] for c in prepared.cases if c.name != "constant-row"
                   and c.name != "row-times-10")


def test_nan_in_the_row_a_case_is_named_for_is_placed_in_that_row() -> None:
    spec, prepared = prepared_for("layer-norm", seed=3)
    index = [c.name for c in prepared.cases].index("constant-row")
    outputs = [np.array(e, dtype=float) for e in prepared.expected]
    outputs[index][1] = np.nan  # no eps: 0 / 0 on the constant row
    verdict = grade_run(spec, prepared, FakeRun(cases=[FakeCaseRun(value=v) for v in outputs])).cases[index]
    assert "first at index [1, 0]" in verdict.message
    assert verdict.message.endswith("Row 1 is the edge this case is named for: every entry is 3.0, so its "
                                    "variance is 0.")
