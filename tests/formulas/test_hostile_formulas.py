"""Formulas an attacker (or a careless instructor) might write: each refused fast, with a reason, never run."""

from __future__ import annotations

import time

import numpy as np
import pytest

from grader.formulas.evaluate import evaluate
from grader.formulas.expression import FormulaError, parse_formula
from grader.formulas.program import ProgramError, build_program

S = np.array([1.0, 0.5, -0.5, 2.0])


def refused(text: str, values: dict[str, object] | None = None) -> str:
    """The message a formula is refused with, at parsing or at evaluation."""
    with pytest.raises(FormulaError) as caught:
        evaluate(parse_formula(text), values or {"s": S})
    return str(caught.value)


@pytest.mark.parametrize("text, says", [
    ("__import__('os').system('id')", "only the functions formulas know can be called"),
    ("__import__('os')", "is not a function formulas can call"),
    ("s.__class__.__mro__", "the only attribute is .T"),
    ("().__class__.__bases__[0].__subclasses__()", "only the functions formulas know can be called"),
    ("[].__class__", "the only attribute is .T"),
    ("__builtins__", "do not start with an underscore"),
    ("open('/etc/passwd')", "is not a function formulas can call"),
    ("eval('1')", "is not a function formulas can call"),
    ("[x for x in s]", "ListComp is not allowed"),
    ("(lambda: 1)()", "only the functions formulas know can be called"),
    ("lambda: 1", "Lambda is not allowed"),
    ("s if s else s", "IfExp is not allowed"),
    ("'text'", "only numbers"),
    ("f'{s}'", "JoinedStr is not allowed"),
    ("sum(*[s])", "no * or **"),
    ("softmax(s, **{'axis': 0})", "no * or **"),
    ("softmax(s, temperature=2)", "has no keyword 'temperature'"),
    ("s := 1", "not a formula"),
    ("a < b < c", "one comparison at a time"),
    ("zeros(10**10)", "too large"),
    ("ones(1000, 1000)", "too large"),
    ("arange(10**9)", "too large"),
    ("eye(100000)", "too large"),
    ("10**10**10", "exponent above 64"),
    ("2**1000", "exponent above 64"),
    ("(" * 30 + "1" + ")" * 30, "brackets nest more than"),
    ("(" * 300 + "1" + ")" * 300, "1 to 400 characters"),
    ("1 +" * 130 + "1", "too long"),
    ("s[s]", "whole number"),
    ("x + 1", "names no parameter"),
])  # fmt: skip
def test_a_hostile_formula_is_refused_with_its_reason(text: str, says: str) -> None:
    started = time.monotonic()
    assert says in refused(text)
    assert time.monotonic() - started < 5  # refused, not run for long (a very wide margin)


def test_a_formula_that_loops_through_its_own_names_is_refused_before_it_runs() -> None:
    for compute in ({"z": "z + 1"}, {"z": "p", "p": "softmax(z)"}):
        with pytest.raises(ProgramError) as caught:
            build_program(["s"], compute, {})
        assert caught.value.where == ("compute", "z") and "not itself, nor later ones" in str(caught.value)


def test_large_integer_arithmetic_is_bounded_not_exploded() -> None:
    assert "too large" in refused("4096**6 * 4096**6")  # exact integers past 2**62 stop


def test_the_size_guard_holds_for_arrays_made_by_arithmetic() -> None:
    big = np.zeros(15_000)
    assert "at most 20000" in refused("outer(s, x)", {"s": big, "x": big})
