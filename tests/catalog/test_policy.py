"""The attempt policy of an exercise file: limit, penalty per retry, due date and late credit."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from grader.catalog.loader import spec_from_text
from grader.catalog.policy import due_from_text
from grader.catalog.spec import ExerciseSpec
from grader.codecheck.spec import code_spec_from_text

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
RESIDUAL = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
DUE = datetime(2026, 12, 15, 23, 59)  # naive UTC, as the database keeps times


def spec_with(extra: str) -> ExerciseSpec:
    spec, errors = spec_from_text(RESIDUAL + extra, "residual.yaml")
    assert spec is not None, errors
    return spec


def errors_with(extra: str) -> list[str]:
    spec, errors = spec_from_text(RESIDUAL + extra, "residual.yaml")
    assert spec is None
    return [f"{e.field}: {e.message}" for e in errors]


def test_without_a_due_date_nothing_is_late() -> None:
    spec = spec_with("")
    assert (spec.due, spec.due_utc, spec.late_credit) == (None, None, 0.0)
    assert not spec.is_late(datetime(2999, 1, 1))
    assert spec.kept_score(1.0, 1, datetime(2999, 1, 1)) == 1.0


@pytest.mark.parametrize("written", ["2026-12-15T23:59:00Z", "2026-12-16T00:59:00+01:00", "'2026-12-15 23:59:00+00:00'",
                                     '"2026-12-15T20:59-03:00"'])  # fmt: skip
def test_a_due_date_with_any_zone_is_kept_as_utc(written: str) -> None:
    spec = spec_with(f"due: {written}\n")
    assert spec.due is not None and spec.due.tzinfo is not None
    assert spec.due_utc == DUE


@pytest.mark.parametrize(("written", "complaint"), [
    ("2026-12-15", "give the due date a time and a zone too"),
    ("'2026-12-15 23:59'", "give the due date a time zone"),
    ("2026-12-15 23:59:00", "give the due date a time zone"),
    ("next friday", "write the due date as a date, time and zone"),
])  # fmt: skip
def test_a_due_date_without_a_time_or_zone_is_refused_at_its_field(written: str, complaint: str) -> None:
    [error] = errors_with(f"due: {written}\n")
    assert error.startswith("due: ") and complaint in error and "2026-12-15T23:59:00+00:00" in error


@pytest.mark.parametrize("credit", ["-0.1", "1.5", "'half'"])
def test_late_credit_is_a_share_between_0_and_1(credit: str) -> None:
    [error] = errors_with(f"due: 2026-12-15T23:59:00Z\nlate_credit: {credit}\n")
    assert error.startswith("late_credit: ")


def test_on_the_due_minute_is_on_time_and_a_second_later_is_late() -> None:
    spec = spec_with("due: 2026-12-15T23:59:00Z\n")
    assert not spec.is_late(DUE) and spec.is_late(DUE + timedelta(seconds=1))


def test_a_late_attempt_keeps_its_share_after_the_retry_penalty() -> None:
    spec = spec_with("due: 2026-12-15T23:59:00Z\nlate_credit: 0.5\npenalty: 0.25\n")
    early, late = DUE - timedelta(days=1), DUE + timedelta(days=1)
    assert [spec.kept_score(1.0, n, early) for n in (1, 2, 3)] == [1.0, 0.75, 0.5]
    assert [spec.kept_score(1.0, n, late) for n in (1, 2, 3)] == [0.5, 0.375, 0.25]
    assert spec.kept_score(0.6, 1, late) == 0.3


def test_with_no_late_credit_a_late_attempt_keeps_nothing_and_the_solution_opens() -> None:
    spec = spec_with("due: 2026-12-15T23:59:00Z\n")
    late = DUE + timedelta(minutes=1)
    assert spec.kept_score(1.0, 1, late) == 0.0
    assert spec.solution_open(late) and not spec.solution_open(DUE)


def test_with_late_credit_the_solution_stays_closed_after_the_due_date() -> None:
    spec = spec_with("due: 2026-12-15T23:59:00Z\nlate_credit: 0.2\n")
    assert not spec.solution_open(DUE + timedelta(days=30))


def test_code_exercises_take_the_same_policy() -> None:
    source = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
    spec, errors = code_spec_from_text(source + "due: 2026-12-15T23:59:00Z\nlate_credit: 0.5\n", "code-gelu.yaml")
    assert spec is not None, errors
    assert spec.due == datetime(2026, 12, 15, 23, 59, tzinfo=timezone.utc) and spec.late_credit == 0.5
    assert spec.kept_score(1.0, 1, DUE + timedelta(hours=1)) == 0.5
    spec, errors = code_spec_from_text(source + "due: 2026-12-15\n", "code-gelu.yaml")
    assert spec is None and [e.field for e in errors] == ["due"]


def test_a_learners_own_due_date_replaces_the_exercises_only_when_there_is_one() -> None:
    spec = spec_with("due: 2026-12-15T23:59:00Z\nlate_credit: 0.5\n")
    later = datetime(2027, 1, 10, 12, 0)
    extended = spec.with_due(later)
    assert extended.due_utc == later and extended.late_credit == 0.5 and extended.prompt == spec.prompt
    assert not extended.is_late(DUE + timedelta(days=20)) and extended.is_late(later + timedelta(seconds=1))
    assert spec.with_due(None) is spec and spec.due_utc == DUE  # the cached spec is never changed
    undated = spec_with("")
    assert undated.with_due(later) is undated and undated.due is None  # nothing to extend


@pytest.mark.parametrize(("written", "name"), [
    ("due: 0001-01-01T00:00:00+14:00", "the due date"), ("due: 9999-12-31T23:59:59-14:00", "the due date"),
    ("due: '9999-12-31T23:59:59-01:00'", "the due date"), ("opens: 0001-01-01T00:00:00+14:00", "the opening date"),
])  # fmt: skip
def test_a_date_that_has_no_utc_time_is_refused_at_its_field(written: str, name: str) -> None:
    [error] = errors_with(f"{written}\n")
    assert error.startswith(written.split(":")[0] + ": ")
    assert f"{name} falls outside the years 1 to 9999 in UTC" in error and "2026-12-15T23:59:00+00:00" in error


def test_the_first_and_last_utc_instants_are_accepted() -> None:
    spec = spec_with("opens: 0001-01-01T00:00:00Z\ndue: 9999-12-31T23:59:59Z\n")
    assert (spec.opens_utc, spec.due_utc) == (datetime(1, 1, 1), datetime(9999, 12, 31, 23, 59, 59))


@pytest.mark.parametrize("typed", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_an_extension_date_with_no_utc_time_is_a_value_error_with_the_files_message(typed: str) -> None:
    with pytest.raises(ValueError, match="the due date falls outside the years 1 to 9999 in UTC"):
        due_from_text(typed)
    assert due_from_text("9999-12-31T23:59:59+14:00") == datetime(9999, 12, 31, 9, 59, 59)


@pytest.mark.parametrize(("line", "complaint"), [
    ("max_attempts: 1001", "max_attempts: Input should be less than or equal to 1000"),
    ("penalty: .nan", "penalty: Input should be a finite number"),
    ("late_credit: .nan", "late_credit: Input should be a finite number"),
])  # fmt: skip
def test_policy_numbers_are_finite_and_bounded(line: str, complaint: str) -> None:
    assert errors_with(f"{line}\n") == [complaint]
