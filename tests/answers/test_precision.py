"""Precision that is fair: a short answer is correct when it is exactly the value. A short answer is
graded (and counted) when the value can be written that short, so short guesses test nothing for free;
otherwise it is a free request for digits that tells nothing about which entries were right.
The precision a field asks for fits the part."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.answers.kinds import KINDS, NumericKind, grade_part
from grader.answers.results import Mutant, Target
from grader.answers.syntax import render_vector, syntax_hint
from grader.answers.tolerance import Tolerance

ABS = Tolerance("abs", 0.0005)
SIGFIGS = Tolerance("sigfigs", 3)
EXACT = Tolerance("exact")
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def scalar(value: float | Fraction) -> Target:
    return Target((value,))


def vector(*values: float) -> Target:
    return Target((np.array(values, dtype=float),))


@pytest.mark.parametrize("kind, typed, answer, tolerance", [
    ("scalar", "0.98", 0.98, ABS),  # 0.980 on the page
    ("scalar", "0,98", 0.98, ABS),
    ("fraction", "0,6", Fraction(3, 5), SIGFIGS),
    ("fraction", "3/5", Fraction(3, 5), SIGFIGS),
    ("fraction", "60 %", Fraction(3, 5), SIGFIGS),
    ("fraction", "0.75", Fraction(3, 4), SIGFIGS),
    ("scalar", "-2", -2.0, ABS),
    ("integer", "42M", 42_000_000, SIGFIGS),
])  # fmt: skip
def test_a_short_answer_that_is_exactly_the_value_is_correct(kind: str, typed: str, answer: float,
                                                             tolerance: Tolerance) -> None:  # fmt: skip
    assert grade_part(kind, typed, scalar(answer), tolerance).status == "correct"


@pytest.mark.parametrize("kind, typed, answer, tolerance, asks", [
    ("scalar", "0.98", 0.9804, ABS, "give at least 3 decimal places"),  # rounded, so not the value
    ("scalar", "1", 0.9804, ABS, "give at least 3 decimal places"),
    ("fraction", "0.67", Fraction(2, 3), SIGFIGS, "give at least 3 significant figures"),
    ("integer", "42M", 41_943_040, SIGFIGS, "give at least 3 significant figures"),
])  # fmt: skip
def test_a_short_answer_the_value_cannot_be_written_as_asks_for_digits_for_free(
    kind: str, typed: str, answer: float, tolerance: Tolerance, asks: str
) -> None:
    result = grade_part(kind, typed, scalar(answer), tolerance)
    assert (result.status, result.message) == ("invalid", f"Too few digits: {asks}.")


@pytest.mark.parametrize("kind, typed, answer, tolerance", [
    ("scalar", "0.97", 0.98, ABS),  # 0.98 can be written with 2 decimals: a short guess is graded
    ("fraction", "0,7", Fraction(3, 5), SIGFIGS),
    ("fraction", "70 %", Fraction(3, 5), SIGFIGS),
    ("integer", "41M", 42_000_000, SIGFIGS),
])  # fmt: skip
def test_a_short_wrong_guess_at_a_short_value_is_graded_and_counted(kind: str, typed: str, answer: float,
                                                                    tolerance: Tolerance) -> None:  # fmt: skip
    result = grade_part(kind, typed, scalar(answer), tolerance)
    assert result.status == "incorrect"  # not "invalid": it uses an attempt


def test_whole_numbers_in_a_vector_are_graded_as_typed() -> None:
    answer = vector(4, -8, -4)
    assert grade_part("vector", "[4; -8; -4]", answer, ABS).status == "correct"
    assert grade_part("vector", "4 -8 -4", answer, ABS).status == "correct"
    wrong = grade_part("vector", "[4; -8; -5]", answer, ABS)
    assert wrong.status == "incorrect" and "entry 3" in wrong.message


def test_a_short_answer_refused_says_nothing_about_which_of_its_entries_were_right() -> None:
    answer = vector(4.5, -8, -4)  # 4.5 cannot be written without a decimal: whole-number guesses are refused
    messages = {grade_part("vector", typed, answer, ABS).message
                for typed in ("[4; -8; -5]", "[4; 0; 0]", "[1; 1; 1]", "[0; -8; -4]")}  # fmt: skip
    assert messages == {"Too few digits (entries 1, 2 and 3): give at least 3 decimal places."}


def test_short_exact_entries_pass_with_full_entries_that_are_within_the_tolerance() -> None:
    answer = vector(1.0, 0.64054)
    assert grade_part("vector", "[1; 0.641]", answer, ABS).status == "correct"
    # The same short entry beside a wrong one: graded, and counted, like any wrong answer.
    wrong = grade_part("vector", "[1; 0.651]", answer, ABS)
    assert wrong.status == "incorrect" and "entry 2" in wrong.message


@SETTINGS
@given(whole=st.integers(-999, 999), places=st.integers(0, 2))
def test_any_value_typed_short_is_correct_exactly_when_it_is_the_value(whole: int, places: int) -> None:
    answer = whole / 10**places  # a value with `places` decimals, when 3 are asked
    typed = f"{answer:.{places}f}"
    assert grade_part("scalar", typed, scalar(answer), ABS).status == "correct"
    neighbour = f"{(whole + 1) / 10**places:.{places}f}"
    assert grade_part("scalar", neighbour, scalar(answer), ABS).status == "incorrect"  # counted: no free guess


@SETTINGS
@given(data=st.data(), size=st.integers(1, 6))
def test_a_short_guess_never_tests_an_answer_for_free(data: st.DataObject, size: int) -> None:
    entries = st.lists(st.integers(-20, 20), min_size=size, max_size=size)
    answer, guess = data.draw(entries), data.draw(entries)
    result = grade_part("vector", render_vector(guess, 0, "semicolon-brackets"), vector(*answer), ABS)
    assert result.status == ("correct" if guess == answer else "incorrect")  # graded either way, never free


@SETTINGS
@given(value=st.floats(0.001, 1000), places=st.integers(0, 2))
def test_a_rounded_value_typed_short_is_never_correct(value: float, places: int) -> None:
    typed = f"{value:.{places}f}"
    assume(abs(float(typed) - value) > 1e-9 * value)  # closer than that is float noise: the value itself
    assert grade_part("scalar", typed, scalar(value), ABS).status == "invalid"


def asked(kind: str, answer: object, tolerance: Tolerance) -> str | None:
    part_kind = KINDS[kind]
    assert isinstance(part_kind, NumericKind)
    found = part_kind.digits_asked(Target((answer,)), tolerance)
    return None if found is None else str(found)


def test_the_precision_asked_fits_the_part() -> None:
    assert asked("integer", 3, EXACT) == "give the exact whole number"  # a count of 3 RMSNorms: no 41.9M
    assert asked("integer", 999, EXACT) == "give the exact whole number"
    assert asked("integer", 41_943_040, EXACT) == (
        "give the exact whole number, not a rounded one (e.g. 41,943,040 rather than 41.9M)")
    assert asked("integer", 41_943_040, SIGFIGS) == "give at least 3 significant figures"
    assert asked("vector", np.array([4.0, -8.0, -4.0]), EXACT) is None  # any exact form is right
    assert asked("vector", np.array([0.1, 0.25]), ABS) == "give at least 3 decimal places"
    assert asked("fraction", Fraction(2, 3), SIGFIGS) == "give at least 3 significant figures"


def test_no_precision_asked_ever_says_six_decimal_places_for_whole_numbers() -> None:
    whole = np.array([0.0, 2.0, -12.0])
    for tolerance in (EXACT, Tolerance("rel", 0.01), ABS):
        assert "6 decimal" not in (asked("vector", whole, tolerance) or "")
    # A relative tolerance gives 0 no width: that entry needs the exact value, the others their decimals.
    assert asked("vector", whole, Tolerance("rel", 0.01)) == "give at least 2 decimal places"
    assert asked("vector", np.array([0.0, 0.0]), Tolerance("rel", 0.01)) == "give the exact value"


def test_a_small_count_typed_with_a_suffix_asks_for_the_whole_number_without_the_millions_example() -> None:
    result = grade_part("integer", "0.1k", scalar(123), EXACT)
    assert (result.status, result.message) == ("invalid", "Too few digits: give the exact whole number.")
    assert grade_part("integer", "0.123k", scalar(123), EXACT).status == "correct"


def test_the_typing_hint_fits_the_answer() -> None:
    assert syntax_hint("integer", 3) == "a whole number, written in digits"
    assert "41 943 040" in syntax_hint("integer", 41_943_040)
    assert syntax_hint("integer") == syntax_hint("integer", 41_943_040)  # the kind alone: the general hint
    assert syntax_hint("vector", np.array([1.0, 2.0])) == syntax_hint("vector")


# A causal attention matrix (row i attends to positions up to i), and the softmax taken over its columns.
MASKED = np.array([[1.0, 0.0, 0.0], [0.8044, 0.1956, 0.0], [0.3057, 0.0743, 0.6200]])
OVER_COLUMNS = np.array([[0.5, 0.0, 0.0], [0.3, 0.6, 0.0], [0.2, 0.4, 1.0]])


def test_a_typed_0_or_1_in_a_wrong_matrix_is_that_number_when_it_names_the_mistake() -> None:
    mistake = Mutant("softmax-over-columns", "softmax over columns", "Each row sums to 1.", (OVER_COLUMNS,))
    target = Target((MASKED,), (mistake,))
    # The mask's zeros typed "0" and the last column's 1 typed "1", the other entries with 3 decimals.
    typed = "[0,500; 0; 0]; [0,300; 0,600; 0]; [0,200; 0,400; 1]"
    assert grade_part("matrix", typed, target, ABS).misconception == "softmax-over-columns"
    assert grade_part("matrix", "[1; 0; 0]; [0,804; 0,196; 0]; [0,306; 0,074; 0,620]", target, ABS).status == "correct"
    # Read as exact, neither right nor a named mistake: the 0s and 1s ask for digits (no attempt used), all of
    # them, so the request does not say which is wrong.
    result = grade_part("matrix", "[1; 0; 0]; [0,804; 0,196; 0]; [0,306; 0,074; 0]", target, ABS)
    assert (result.status, result.message) == ("invalid", "Too few digits (entries (1, 1), (1, 2), (1, 3), (2, 3) "
                                               "and (3, 3)): give at least 3 decimal places.")  # fmt: skip


def test_a_typed_0_or_1_reads_as_exact_wherever_it_is_so_a_refusal_still_says_nothing_of_the_answer() -> None:
    target = Target((MASKED,))
    # Short entries that are not 0 or 1 are still refused, and only they are named, whatever the answer holds there.
    for typed in ("[1; 0; 0]; [0,8; 0,2; 0]; [0,306; 0,074; 0,620]", "[0; 1; 1]; [0,8; 0,2; 1]; [0,306; 0,074; 0,620]"):
        result = grade_part("matrix", typed, target, ABS)
        assert (result.status, result.message) == (
            "invalid", "Too few digits (entries (2, 1) and (2, 2)): give at least 3 decimal places."), typed
    # Alone, with no entry typed to the precision asked, a 0 or a 1 is a short number like any other.
    assert grade_part("vector", "[1; 0]", vector(0.998, 0.002), ABS).status == "invalid"
    # Beside full entries, a 1 for 0.998 is a rounded one: asked for digits, not a counted wrong attempt.
    assert grade_part("vector", "[1; 0; 0,500]", vector(0.998, 0.002, 0.5), ABS).status == "invalid"
    assert grade_part("vector", "[1; 0; 0,500]", vector(1, 0, 0.5), ABS).status == "correct"
