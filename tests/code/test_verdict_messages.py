"""What a failed run's verdict says: where it stopped, the signature asked for, a long traceback."""

from __future__ import annotations

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
    facts = {"cause": "cpu", "seconds": 2, "case": stopped_at}
    message = grade_run(spec, prepared, FakeRun(status="timeout", facts=facts)).message
    total = len(prepared.cases)
    if stopped_at in (0, 99):  # still loading the module, or a number the host cannot place
        assert "It stopped" not in message
        return
    case = prepared.cases[stopped_at]
    where = case.name if case.visible else "a hidden case"
    assert message.endswith(f"It stopped in {'case ' if case.visible else ''}{where}, after {stopped_at} of "
                            f"{total} cases.")


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
