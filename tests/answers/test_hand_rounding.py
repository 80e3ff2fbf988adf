"""A right answer along another route than the worked solution's: the verdict says both are right and why."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.answers.kinds import grade_part
from grader.answers.results import Target
from grader.answers.tolerance import Tolerance

ABS = Tolerance("abs", 0.0005)
# block-mlp at the page's numbers: full precision, then the page's route (GELU values rounded first).
FULL = np.array([0.80321, 0.64054, 0.55988, 0.71771])
PAGE = np.array([0.803, 0.640, 0.560, 0.718])


def note(typed: str, shown: int | None, routes: tuple[np.ndarray, ...] = (FULL, PAGE)) -> str:
    result = grade_part("vector", typed, Target(routes, shown=shown), ABS)
    assert result.status == "correct"
    return result.message


def test_full_precision_against_a_worked_solution_rounded_by_hand() -> None:
    assert note("[0.803; 0.641; 0.560; 0.718]", shown=1) == (
        "Correct. For entry 2 the worked solution shows 0.640 and you wrote 0.641: both are right. "
        "The worked solution rounds intermediate values by hand, as the lesson does; you kept full precision.")


def test_hand_rounding_against_a_worked_solution_at_full_precision() -> None:
    assert note("[0.803; 0.640; 0.560; 0.718]", shown=0) == (
        "Correct. For entry 2 the worked solution shows 0.641 and you wrote 0.640: both are right. "
        "The worked solution keeps full precision; you rounded intermediate values by hand.")


def test_another_hand_route_than_the_worked_solutions() -> None:
    other = np.array([0.803, 0.642, 0.560, 0.717])
    message = note("[0.803; 0.642; 0.560; 0.717]", shown=1, routes=(FULL, PAGE, other))
    assert message.startswith(
        "Correct. For entries 2 and 4 the worked solution shows 0.640; 0.718 and you wrote 0.642; 0.717")
    assert message.endswith("you rounded at other steps or used other constants.")


def test_a_scalar_names_no_entry() -> None:
    result = grade_part("scalar", "1.164", Target((1.16371, 1.163), shown=1), ABS)
    assert result.message == ("Correct. The worked solution shows 1.163 and you wrote 1.164: both are right. "
                              "The worked solution rounds intermediate values by hand, as the lesson does; "
                              "you kept full precision.")  # fmt: skip


def test_no_note_when_the_answer_is_the_worked_solutions_or_nothing_true_can_be_said() -> None:
    assert note("[0.803; 0.640; 0.560; 0.718]", shown=1) == "Correct."  # the page's own numbers
    assert note("[0.803; 0.6405; 0.560; 0.718]", shown=None) == "Correct."  # the shown route is not known
    assert note("[0.803; 0.6403; 0.560; 0.718]", shown=1) == "Correct."  # within the band, but along no route
    assert note("[0.803; 0.641; 0.560; 0.718]", shown=0) == "Correct."
    # One route only: nothing to tell apart.
    assert grade_part("scalar", "0.952", Target((0.95245,), shown=0), ABS).message == "Correct."


def test_the_note_names_numbers_to_the_place_the_learner_typed() -> None:
    assert note("[0.803; 0.6405; 0.560; 0.718]", shown=1).startswith(
        "Correct. For entry 2 the worked solution shows 0.6400 and you wrote 0.6405: both are right.")


def test_the_numbers_in_the_note_take_the_readers_decimal_mark() -> None:
    result = grade_part("scalar", "-1.164", Target((-1.16371, -1.163), shown=1), ABS)
    assert result.text is not None
    assert "−1,163 and you wrote −1,164" in result.text.render(decimal=",")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exact=st.floats(-50, 50), offset=st.integers(-1, 1), shown=st.sampled_from([0, 1]))
def test_a_route_typed_to_three_decimals_is_told_apart_from_the_shown_one_exactly_when_it_differs(
    exact: float, offset: int, shown: int
) -> None:
    hand = round(exact, 3) + offset * 0.0004  # a hand route lands near the exact value
    routes = (exact, hand)
    mine = routes[1 - shown]
    typed = f"{mine:.3f}"
    result = grade_part("scalar", typed, Target(routes, shown=shown), ABS)
    assert result.status == "correct"
    differs = float(typed) != float(f"{routes[shown]:.3f}")
    assert (result.message != "Correct.") == differs
    if differs:
        assert f"you wrote {typed.replace('-', '−')}" in result.message
