"""The one tolerance rule: bands around every acceptable route, and the digits it asks for."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from grader.answers.kinds import grade_part
from grader.answers.results import Mutant, Target
from grader.answers.tolerance import Tolerance, bands, fewer_digits_than_asked, sigfig_unit

ABS = Tolerance("abs", 0.0005)


def test_abs_band_edges_are_inclusive_and_float_safe() -> None:
    band = bands(np.array([[0.6405]]), ABS)
    assert band.contains(np.array([0.6400])).all()
    assert band.contains(np.array([0.6410])).all()
    assert not band.contains(np.array([0.6399])).any()
    assert not band.contains(np.array([0.6411])).any()


def test_band_covers_the_hull_of_exact_and_hand_routes() -> None:
    routes = np.array([[0.64054], [0.639]])  # full precision, hand-rounded intermediates
    band = bands(routes, ABS)
    assert band.low == pytest.approx(0.6385) and band.high == pytest.approx(0.64104)


@pytest.mark.parametrize("value, figures, unit", [(0.667, 3, 0.001), (41943040, 3, 100000), (0.0781, 3, 0.0001), (0, 2, 0.1)])
def test_sigfig_unit(value: float, figures: int, unit: float) -> None:
    assert float(sigfig_unit(np.array(value), figures)) == pytest.approx(unit)


def test_rel_width_scales_with_the_value() -> None:
    assert float(Tolerance("rel", 0.01).half_width(np.array(-200.0))) == pytest.approx(2.0)


def too_coarse(typed: float, resolution: float, expected: float, tolerance: Tolerance, integral: bool) -> bool:
    """Whether `typed`, written to `resolution`, has fewer digits than grading asks for."""
    answer = np.array(expected)
    coarsest = tolerance.coarsest_resolution(answer, integral)
    return bool(fewer_digits_than_asked(np.array(resolution), np.array(typed), coarsest, tolerance))


def test_typed_precision_must_match_the_tolerance() -> None:
    assert too_coarse(0.65, 0.01, 0.6405, ABS, integral=False)
    assert not too_coarse(0.641, 0.001, 0.6405, ABS, integral=False)
    assert not too_coarse(0.6405, 0.0001, 0.6405, ABS, integral=False)


def test_exact_reals_set_no_precision_but_exact_integers_need_units() -> None:
    exact = Tolerance("exact")
    assert not too_coarse(3.0, 1.0, 3.0, exact, integral=False)
    assert too_coarse(41_900_000.0, 1e5, 41943040.0, exact, integral=True)


def target(value: float, *mutants: tuple[str, float]) -> Target:
    return Target((value,), tuple(Mutant(n, n, "hint", (v,)) for n, v in mutants))


def test_scalar_just_inside_is_correct_and_just_outside_incorrect() -> None:
    assert grade_part("scalar", "0.9525", target(0.95245), ABS).status == "correct"
    assert grade_part("scalar", "0.9535", target(0.95245), ABS).status == "incorrect"


def test_fewer_digits_than_asked_is_invalid_not_incorrect() -> None:
    result = grade_part("scalar", "0.95", target(0.95245), ABS)
    assert result.status == "invalid"
    assert result.message == "Too few digits: give at least 3 decimal places."


def test_sigfig_part_asks_for_significant_figures() -> None:
    result = grade_part("fraction", "0.7", target(2 / 3), Tolerance("sigfigs", 3))
    assert result.status == "invalid" and "3 significant figures" in result.message


def test_mutant_is_named_only_when_the_answer_matches_it() -> None:
    t = target(0.952, ("relu", 1.102))
    assert grade_part("scalar", "1.102", t, ABS).misconception == "relu"
    assert grade_part("scalar", "1.150", t, ABS).misconception is None


def test_vector_lists_wrong_entries_and_gives_partial_credit_when_asked() -> None:
    t = Target((np.array([1.0, 2.0, 3.0, 4.0]),))
    result = grade_part("vector", "1.000; 2.000; 3.500; 4.000", t, ABS, partial=True)
    assert result.status == "incorrect"
    assert result.wrong_entries == (2,)
    assert result.score == 0.75
    assert "entry 3" in result.message
    assert grade_part("vector", "1.000; 2.000; 3.500; 4.000", t, ABS).score == 0.0


def test_matrix_wrong_entries_are_row_column_pairs() -> None:
    t = Target((np.array([[1.0, 2.0], [3.0, 4.0]]),))
    result = grade_part("matrix", "1 2\n3 5", t, Tolerance("exact"))
    assert result.wrong_entries == ((1, 1),)
    assert "entry (2, 2)" in result.message


def test_an_integer_with_a_suffix_is_correct_when_typed_to_the_unit() -> None:
    assert grade_part("integer", "41.943040M", target(41943040), Tolerance("exact")).status == "correct"


@pytest.mark.parametrize("kind, right, wrong, answer, tolerance", [
    ("integer", "41.94304M", "41.94305M", 41943040, Tolerance("exact")),  # typed to the ten
    ("integer", "65536e3", "65537e3", 65536000, Tolerance("exact")),
    ("integer", "124M", "125M", 124_000_000, Tolerance("rel", 1e-4)),  # 1M is coarser than the band
    ("scalar", "0.25", "0.26", 0.25, ABS),  # 1/4 when 3 decimals are asked
    ("scalar", "0.98", "0.97", 0.98, ABS),
])  # fmt: skip
def test_a_short_answer_is_correct_only_when_it_is_exactly_the_value(kind: str, right: str, wrong: str, answer: float,
                                                                     tolerance: Tolerance) -> None:  # fmt: skip
    assert grade_part(kind, right, target(answer), tolerance).status == "correct"
    # The answer can be written this short, so a short wrong one is graded and counted: never a free guess.
    wrong_one = grade_part(kind, wrong, target(answer), tolerance)
    far = grade_part(kind, wrong.replace(wrong[0], "9", 1), target(answer), tolerance)
    assert wrong_one.status == far.status == "incorrect"


def test_shape_of_wrong_rank_is_incorrect_not_invalid() -> None:
    result = grade_part("shape", "(5, 8)", Target(((2, 5, 4),)), Tolerance("exact"))
    assert result.status == "incorrect" and "3 dimensions" in result.message


def test_index_set_reports_counts_without_revealing_the_answer() -> None:
    result = grade_part("index-set", "{1, 2}", Target((frozenset({1, 3}),)), Tolerance("exact"))
    assert result.status == "incorrect"
    assert result.wrong_entries == (2,)
    assert result.message == "Incorrect: 1 of your indices should not be there, and 1 index is missing."


def test_index_set_leaves_a_zero_count_unsaid() -> None:
    fewer = grade_part("index-set", "{1}", Target((frozenset({1, 3, 4}),)), Tolerance("exact"))
    assert fewer.message == "Incorrect: 2 indices are missing."
    more = grade_part("index-set", "{1, 2, 3}", Target((frozenset({1, 3}),)), Tolerance("exact"))
    assert more.message == "Incorrect: 1 of your indices should not be there."


def test_empty_and_oversized_answers_are_invalid() -> None:
    assert grade_part("scalar", "  ", target(1.0), ABS).message == "Enter an answer."
    assert grade_part("scalar", "1" * 30_000, target(1.0), ABS).status == "invalid"


SIGFIGS = Tolerance("sigfigs", 3)
EXACT = Tolerance("exact")


@pytest.mark.parametrize("typed", ["5,670,961,147", "5670961151", "5,670,961,153"])
def test_a_count_in_the_billions_must_match_to_the_unit(typed: str) -> None:
    assert grade_part("integer", typed, target(5_670_961_152), EXACT).status == "incorrect"
    assert grade_part("integer", "5,670,961,152", target(5_670_961_152), EXACT).status == "correct"


def test_a_rounded_count_in_the_billions_asks_for_the_whole_number() -> None:
    result = grade_part("integer", "54.862807B", target(54_862_807_040), EXACT)
    assert result.status == "invalid"
    assert "exact whole number" in result.message
    assert grade_part("integer", "54.86280705B", target(54_862_807_040), EXACT).status == "incorrect"  # to the ten: graded
    assert grade_part("integer", "54.86280704B", target(54_862_807_040), EXACT).status == "correct"  # exactly it
    assert grade_part("integer", "54.862807040B", target(54_862_807_040), EXACT).status == "correct"


def test_a_wrong_exact_answer_gets_a_sentence_not_a_width() -> None:
    assert grade_part("integer", "41943041", target(41_943_040), EXACT).message == (
        "Incorrect: this is not exactly the expected value.")
    matrix = Target((np.array([[1.0, 2.0], [3.0, 4.0]]),))
    assert grade_part("matrix", "1 2\n3 5", matrix, EXACT).message == (
        "Incorrect: entry (2, 2) is not exactly the expected value.")
    assert grade_part("matrix", "1 2\n4 5", matrix, EXACT).message == (
        "Incorrect: entries (2, 1) and (2, 2) are not exactly the expected values.")


@pytest.mark.parametrize("typed", ["0.940", "94.0 %", "0.9403"])
def test_a_mistake_in_a_higher_power_of_ten_is_read_at_its_own_significant_figures(typed: str) -> None:
    # microGPT seed 7: the share outside the blocks is 0.0596, the share inside 0.9404.
    result = grade_part("fraction", typed, target(0.0596, ("inside-share", 0.9404)), SIGFIGS)
    assert result.status == "incorrect"
    assert result.misconception == "inside-share"


def test_significant_figures_are_still_required_of_the_number_typed() -> None:
    t = target(0.0596, ("inside-share", 0.9404))
    assert grade_part("fraction", "0.94", t, SIGFIGS).status == "invalid"
    assert grade_part("fraction", "0.06", t, SIGFIGS).status == "invalid"
    assert grade_part("fraction", "0.0596", t, SIGFIGS).status == "correct"


def test_a_mistake_in_a_lower_power_of_ten_typed_to_the_answers_decimals_is_still_named() -> None:
    # The answer 0.105 needs 3 decimals; a learner who made the mistake writes 0.078 for 0.0781.
    assert grade_part("fraction", "0.078", target(0.105, ("tied-head", 0.0781)), SIGFIGS).misconception == "tied-head"


def test_an_answer_rounded_up_into_the_next_power_of_ten_has_its_three_figures() -> None:
    assert grade_part("fraction", "0.100", target(0.09996), SIGFIGS).status == "correct"


@pytest.mark.parametrize("typed, status", [("0.75", "correct"), ("75 %", "correct"), ("0,75", "correct"),
                                           ("0.74", "incorrect"), ("74 %", "incorrect"), ("0.8", "invalid"),
                                           ("3/4", "correct"), ("0.750", "correct"), ("75.0 %", "correct")])  # fmt: skip
def test_the_exact_answer_typed_short_is_correct_and_a_wrong_one_is_graded_where_three_quarters_fits(typed: str, status: str) -> None:
    assert grade_part("fraction", typed, Target((Fraction(3, 4),)), SIGFIGS).status == status


def test_a_short_answer_is_correct_when_exact_and_asks_for_digits_when_rounded() -> None:
    assert grade_part("scalar", "0.64", target(0.64), ABS).status == "correct"
    assert grade_part("scalar", "0.64", target(0.6405), ABS).status == "invalid"  # rounded, so never correct
    assert grade_part("scalar", "0.640", target(0.64), ABS).status == "correct"


def test_a_mistakes_own_exact_value_typed_short_is_named_not_sent_back_for_digits() -> None:
    result = grade_part("scalar", "0.5", target(0.6405, ("half", 0.5)), ABS)
    assert (result.status, result.misconception) == ("incorrect", "half")
    # Short and near the mistake but not its exact value: still a request for digits.
    assert grade_part("scalar", "0.51", target(0.6405, ("half", 0.5)), ABS).status == "invalid"


def test_a_count_checked_to_significant_figures_asks_for_figures_not_the_whole_number() -> None:
    result = grade_part("integer", "42M", target(41_943_040), SIGFIGS)
    assert result.status == "invalid"
    assert result.message == "Too few digits: give at least 3 significant figures."
    assert grade_part("integer", "41.9M", target(41_943_040), SIGFIGS).status == "correct"


def test_a_named_mistake_in_a_vector_still_says_which_entries_are_wrong() -> None:
    t = Target((np.array([1.0, 2.0, 3.0, 4.0]),), (Mutant("forgot-x", "x forgotten", "hint", (np.array([0.5, 2.0, 2.5, 4.0]),)),))
    result = grade_part("vector", "0.5 2 2.5 4", t, Tolerance("abs", 0.05), partial=True)
    assert (result.status, result.misconception, result.wrong_entries) == ("incorrect", "forgot-x", (0, 2))
    assert result.message == "Not quite: this is the answer you get with x forgotten. Wrong: entries 1 and 3."
    scalar = grade_part("scalar", "0.5", target(0.6405, ("half", 0.5)), ABS)
    assert scalar.message == "Not quite: this is the answer you get with half."  # one entry: nothing to point at
