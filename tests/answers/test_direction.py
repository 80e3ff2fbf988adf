"""Direction for a wrong number no named mistake explains: said only when true, kept out of the message."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.answers.kinds import grade_part
from grader.answers.results import ExerciseResult, Mutant, Target
from grader.answers.syntax import render_vector
from grader.answers.tolerance import Tolerance

ABS = Tolerance("abs", 0.0005)
EXACT = Tolerance("exact")
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
H = np.array([-1.239, 0.911, -1.021, 0.980])


def vector(values: np.ndarray, *mutants: Mutant) -> Target:
    return Target((np.asarray(values, dtype=float),), mutants)


def toward(kind: str, typed: str, target: Target, tolerance: Tolerance = ABS) -> str | None:
    result = grade_part(kind, typed, target, tolerance)
    return None if result.direction is None else str(result.direction)


@pytest.mark.parametrize("typed, said", [
    ("[1.239; -0.911; 1.021; -0.980]", "The sign is wrong; the size is right."),
    ("[-1.239; -0.911; 1.021; 0.980]", "The sign of entries 2 and 3 is wrong; the size is right."),
    ("[-2.478; 1.822; -2.042; 1.960]", "Too large by a factor of 2 (in size)."),
    ("[-0.124; 0.091; -0.102; 0.098]", "Too small by a factor of 10 (in size)."),
    ("[-1.431; 1.052; -1.179; 1.132]", "Too large by a factor of √(4/3) = √(d/(d − 1)) (in size)."),
    ("[0.911; -1.239; 0.980; -1.021]", "The entries are the right numbers, in the wrong order."),
    ("[-1.239; 0.911; -1.021; 0.500]", "Only the last entry is wrong; the ones before it are right."),
    ("[-1.239; 0.911; 1.500; 0.500]",
     "Only the last entries (entries 3 and 4) are wrong; the ones before them are right."),
])  # fmt: skip
def test_each_direction_is_said_when_it_holds(typed: str, said: str) -> None:
    result = grade_part("vector", typed, vector(H), ABS)
    assert result.status == "incorrect"
    assert str(result.direction) == said
    assert said not in result.message  # shown apart, and only after a counted attempt


@pytest.mark.parametrize("typed", [
    "[-1.239; 0.911; -1.021; 0.980]",  # right
    "[-1.239; 0.911; -1.021; 0.98]",  # right, typed short
    "[-1.239; 0.91; -1.021; 0.98]",  # short and wrong: a request for digits, which costs nothing
    "[0.500; 0.911; -1.021; 0.980]",  # the first entry wrong: none of the rules
    "[-1.239; 0.500; -1.021; 0.980]",  # a middle entry wrong
    "[-2.478; 0.911; -1.021; 0.980]",  # one entry doubled, the others not
])  # fmt: skip
def test_no_direction_when_none_holds_or_the_answer_is_not_counted_wrong(typed: str) -> None:
    assert toward("vector", typed, vector(H)) is None


def test_a_named_mistake_gets_its_hint_not_a_direction() -> None:
    doubled = Mutant("doubled", "doubling", "You added the residual twice.", (H * 2,))
    result = grade_part("vector", "[-2.478; 1.822; -2.042; 1.960]", vector(H, doubled), ABS)
    assert (result.misconception, result.direction) == ("doubled", None)


def test_scalars_and_counts_get_the_sign_and_the_simple_factors() -> None:
    assert toward("scalar", "-0.952", Target((0.95245,))) == "The sign is wrong; the size is right."
    assert toward("scalar", "0.476", Target((0.95245,))) == "Too small by a factor of 2 (in size)."
    assert toward("integer", "6", Target((3,)), EXACT) == "Too large by a factor of 2 (in size)."
    assert toward("integer", "419430400", Target((41_943_040,)), EXACT) == "Too large by a factor of 10 (in size)."
    assert toward("integer", "7", Target((3,)), EXACT) is None


def test_a_factor_is_not_claimed_where_it_cannot_be_told_from_the_answer() -> None:
    # 2 × 0.0002 lies within ±0.0005 of 0.0002 itself: "twice too large" would say nothing true.
    small = vector(np.array([0.0002, 0.005]))
    assert toward("vector", "0.0004 0.010", small) == "Too large by a factor of 2 (in size)."
    assert toward("scalar", "0.0014", Target((0.0002,))) is None


def test_an_exact_integer_vector_in_the_wrong_order() -> None:
    target = vector(np.array([2.0, -12.0, 2.0]))
    assert toward("vector", "[2; 2; -12]", target, EXACT) == "The entries are the right numbers, in the wrong order."
    assert toward("vector", "[-2; 12; -2]", target, EXACT) == "The sign is wrong; the size is right."


def test_a_matrix_names_the_entries_whose_sign_is_wrong() -> None:
    target = vector(np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert toward("matrix", "1 -2\n3 4", target, EXACT) == "The sign of entry (1, 2) is wrong; the size is right."


def test_the_direction_is_stored_with_its_sentence_and_dropped_when_an_answer_is_not_checked() -> None:
    result = grade_part("vector", "[1.239; -0.911; 1.021; -0.980]", vector(H), ABS)
    stored = json.loads(json.dumps({"h": result.to_record()}))
    back = ExerciseResult.from_json(stored).parts["h"]
    assert back == replace(result, value=None) and str(back.direction) == "The sign is wrong; the size is right."
    assert back.direction is not None
    assert back.direction.render(lambda s: s.upper()) == "THE SIGN IS WRONG; THE SIZE IS RIGHT."  # translatable
    assert "direction" not in result.to_json()  # the API's shape is unchanged
    unreadable = grade_part("scalar", "abc", Target((1.0,)), ABS)
    unchecked = ExerciseResult({"h": result, "other": unreadable}).format_errors_only().parts["h"]
    assert unchecked.status == "unchecked" and unchecked.direction is None


@SETTINGS
@given(data=st.data(), size=st.integers(2, 6))
def test_every_direction_said_is_true(data: st.DataObject, size: int) -> None:
    magnitudes = st.floats(0.2, 5.0).map(lambda v: round(v, 3))
    answer = np.array(data.draw(st.lists(magnitudes, min_size=size, max_size=size)))
    answer *= np.array(data.draw(st.lists(st.sampled_from([-1, 1]), min_size=size, max_size=size)))
    how = data.draw(st.sampled_from(["sign", "double", "tenth", "order"]))
    if how == "order":
        typed = np.array(data.draw(st.permutations(list(answer))))
        assume(np.abs(np.abs(typed) - np.abs(answer)).max() > 0.001)  # else it is also the sign that is wrong
    else:
        typed = answer * {"sign": -1, "double": 2, "tenth": 0.1}[how]
    result = grade_part("vector", render_vector(list(typed), 3, "semicolon-brackets"), vector(answer), ABS)
    said = str(result.direction)
    assert result.status == "incorrect"
    expected = {"sign": "The sign", "double": "Too large by a factor of 2 ", "tenth": "Too small by a factor of 10 ",
                "order": "The entries are the right numbers"}[how]  # fmt: skip
    assert said.startswith(expected)
