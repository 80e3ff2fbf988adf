"""Hostile or careless exercise YAML: every number finite and in range, and text the loader cannot read
reported as a YAML error at its line, never raised as a crash."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import pytest
import yaml

from grader.catalog.loader import is_code_source, parse_yaml, spec_from_text

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
GOOD = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
PART = "    partial_credit: true\n"
LAUGHS = "l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9))  # 10**9 values once expanded


def errors_for(text: str) -> list[str]:
    spec, errors = spec_from_text(text, "ex.yaml")
    assert spec is None
    return [f"{e.field}: {e.message}" for e in errors]


def with_part_line(line: str) -> str:
    return GOOD.replace(PART, PART + f"    {line}\n", 1)


@pytest.mark.parametrize(("text", "field", "phrase"), [
    (with_part_line("weight: .inf"), "parts.0.weight", "finite number"),
    (with_part_line("weight: .nan"), "parts.0.weight", "finite number"),
    (with_part_line("weight: 1e9"), "parts.0.weight", "less than or equal to 1000"),
    (with_part_line("entry: -1"), "parts.0.entry", "greater than or equal to 0"),
    (with_part_line("entry: 1000000000000"), "parts.0.entry", "less than or equal to"),
    (GOOD.replace("{abs: 0.0005}", "{abs: .inf}"), "parts.0.tolerance.abs", "finite number"),
    (GOOD.replace("{abs: 0.0005}", "{rel: .nan}"), "parts.0.tolerance.rel", "finite number"),
    (GOOD.replace("{abs: 0.0005}", "{rel: 5}"), "parts.0.tolerance.rel", "less than or equal to 1"),
    (GOOD.replace("low: -2.0", "low: -.inf"), "params.x.random.low", "give a finite number between"),
    (GOOD.replace("high: 2.0", "high: 1e300"), "params.x.random.high", "give a finite number between"),
    (GOOD.replace("high: 2.0", "high: " + "9" * 30), "params.x.random.high", "give a finite number between"),
    (GOOD.replace("{low: -2.0, high: 2.0, decimals: 1}", "{choices: [1, .nan]}"), "params.x.random.choices.1",
     "give a finite number between"),
    (GOOD.replace("{low: -2.0, high: 2.0, decimals: 1}", "{choices: []}"), "params.x.random.choices", "at least 1"),
    (GOOD.replace("page: [-0.5, -0.5, -0.5, 1.5]", "page: [-0.5, -0.5, .inf, 1.5]"), "params.x.page",
     "give a finite number between"),
    (GOOD.replace("shape: [4]", "shape: [0]", 1), "params.x.shape.0", "greater than or equal to 1"),
    (GOOD.replace("shape: [4]", "shape: [1000000000]", 1), "params.x.shape.0", "less than or equal to 100"),
    (GOOD.replace("shape: [4]", "shape: [4, 1, 1]", 1), "params.x.shape", "at most 2 items"),
    (GOOD.replace("position: 1", "position: 9999999999999999999999999"), "position", "2147483647"),
])  # fmt: skip
def test_a_number_that_is_not_finite_or_out_of_range_is_refused_at_its_field(text: str, field: str,
                                                                             phrase: str) -> None:  # fmt: skip
    [error] = errors_for(text)
    assert error.startswith(f"{field}: ") and phrase in error


def test_numbers_at_their_limits_are_still_accepted() -> None:
    text = with_part_line("weight: 1000").replace("{abs: 0.0005}", "{rel: 1}").replace("position: 1", "position: 2147483647")
    spec, errors = spec_from_text(text + "max_attempts: 1000\n", "ex.yaml")
    assert errors == [] and spec is not None
    assert (spec.parts[0].weight, spec.position, spec.max_attempts) == (1000.0, 2**31 - 1, 1000)


@pytest.mark.parametrize(("text", "phrase"), [
    (GOOD + "zz: " + "[" * 5000, "nested more than 32 levels deep"),
    (GOOD.replace("position: 1", "position: 1" + "0" * 5000), "a number longer than 40 characters"),
    (GOOD + "zz: &a [*a]\n", "the alias *a is inside the value it names"),
    (GOOD + "zz: &a {b: *a}\n", "the alias *a is inside the value it names"),
    (GOOD + LAUGHS, "values (aliases count each time)"),
    (GOOD + "due: 0000-01-01T00:00:00Z\n", "year 0 is out of range"),
    (GOOD + "due: 2026-02-30T12:00:00Z\n", "day is out of range for month"),
])  # fmt: skip
def test_yaml_that_cannot_be_read_is_a_yaml_error_at_its_line(text: str, phrase: str) -> None:
    [error] = errors_for(text)
    assert error.startswith("(yaml): ") and phrase in error and "line " in error


@pytest.mark.parametrize("text", ["a: " + "[" * 5000, "a: 1" + "0" * 5000, "a: &a [*a]", LAUGHS])
def test_every_caller_of_parse_yaml_sees_a_yaml_error(text: str) -> None:
    with pytest.raises(yaml.YAMLError):
        parse_yaml(text)
    assert not is_code_source(text)


def test_running_out_of_stack_inside_pyyaml_is_a_yaml_error_too() -> None:
    # Nesting within the loader's limit, on a stack too short for it: the last line of defence.
    nested = "a: " + "[" * 30 + "]" * 30
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 40)
    try:
        with pytest.raises(yaml.YAMLError, match="nested too deeply"):
            parse_yaml(nested)
    finally:
        sys.setrecursionlimit(limit)
    assert parse_yaml(nested)["a"]


def test_shared_aliases_and_ordinary_nesting_still_read() -> None:
    assert parse_yaml("a: &x [1, 2]\nb: *x\nc: {<<: {d: 3}}") == {"a": [1, 2], "b": [1, 2], "c": {"d": 3}}
    nested, depth = parse_yaml("a: " + "[" * 30 + "]" * 30)["a"], 1
    while nested:
        nested, depth = nested[0], depth + 1
    assert depth == 30
    assert parse_yaml("n: " + "9" * 40)["n"] == int("9" * 40)
