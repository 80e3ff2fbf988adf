"""Vectors, matrices, shapes and index sets: accepted syntaxes, and rejections with messages."""

from __future__ import annotations

import pytest

from grader.answers.numbers import AnswerFormatError
from grader.answers.structures import parse_index_set, parse_matrix, parse_shape, parse_vector

SEMICOLON_ADVICE = "separate the numbers with ';', e.g. 0,5; 0,7"

ACCEPTED_VECTORS = {
    "semicolons_in_brackets": ("[−1.239; 0.911; −1.021; 0.980]", [-1.239, 0.911, -1.021, 0.98]),
    "decimal_commas_settle_1_239": (
        "[−1,239; 0,911; −1,021; 0,980]", [-1.239, 0.911, -1.021, 0.98]
    ),
    "parens_commas": ("(1, 2, 3, 4)", [1.0, 2.0, 3.0, 4.0]),
    "spaces": ("1 2 3 4", [1.0, 2.0, 3.0, 4.0]),
    "commas": ("1, 2, 3, 4", [1.0, 2.0, 3.0, 4.0]),
    "bare_semicolons": ("1; 2; 3; 4", [1.0, 2.0, 3.0, 4.0]),
    "decimal_commas_space_separated": ("0,5 0,7", [0.5, 0.7]),
    "decimal_points_comma_separated": ("1.2, 3.4", [1.2, 3.4]),
    "decimal_points_tight_commas": ("1.5,2.5", [1.5, 2.5]),
    "decimal_commas_in_semicolon_list": ("[0,5; 0,7]", [0.5, 0.7]),
    "single_decimal_comma_entry": ("0,5", [0.5]),
    "trailing_semicolon": ("[1; 2;]", [1.0, 2.0]),
    "empty_brackets": ("[]", []),
    "spaced_suffixes": ("(1.5 M, 2 k)", [1.5e6, 2000.0]),
    "spaced_percentages": ("66.7 % 33.3 %", [0.667, 0.333]),
    "comma_mantissa_exponents": ("1,2·10⁻³ 2,5·10⁻³", [0.0012, 0.0025]),
    "spaced_times_ten": ("1.2 × 10^-3; 5", [0.0012, 5.0]),
    "fractions": ("2 / 3  1/3", [2 / 3, 1 / 3]),
    "thousands_entry_space_separated": ("41,943,040 5", [41943040.0, 5.0]),
    "nbsp_separated": ("1\u00a02\u20093", [1.0, 2.0, 3.0]),
}


@pytest.mark.parametrize(("text", "values"), ACCEPTED_VECTORS.values(), ids=ACCEPTED_VECTORS.keys())
def test_vector_syntax_is_accepted(text: str, values: list[float]) -> None:
    assert [n.value for n in parse_vector(text)] == values


def test_vector_entries_keep_their_resolution() -> None:
    assert [n.resolution for n in parse_vector("[0,5; 1.25; 41.9M]")] == [0.1, 0.01, 1e5]


def test_vector_of_the_expected_length_is_accepted() -> None:
    assert len(parse_vector("1 2 3 4", length=4)) == 4


# (text, length, key phrase of the message)
REJECTED_VECTORS = {
    "too_few": ("1 2 3", 4, "expected 4 numbers, got 3"),
    "too_many": ("1 2 3 4 5", 4, "expected 4 numbers, got 5"),
    "decimal_commas_with_comma_separators": (
        "0,5, 0,7", None, f"ambiguous commas in '0,5, 0,7': {SEMICOLON_ADVICE}"
    ),
    "commas_decimal_or_separator": ("1,5,2", None, SEMICOLON_ADVICE),
    "compact_integer_list": ("1,2,3,4", None, SEMICOLON_ADVICE),
    "ambiguous_even_with_expected_length": ("0,5, 0,7", 2, SEMICOLON_ADVICE),
    "thousands_or_separator": ("1,234, 5", None, SEMICOLON_ADVICE),
    "bad_entry_named": ("1 abc 3", None, "entry 2: could not read 'abc' as a number"),
    "unclosed_bracket": ("[1 2", None, "'[' at position 1 is never closed"),
    "unopened_bracket": ("1 2]", None, "']' at position 4 has no matching '['"),
    "mismatched_brackets": ("[1 2)", None, "'[' at position 1 is closed by ')' at position 5"),
    "nested_bracket": ("[1 (2)]", None, "unexpected '(' inside the list"),
    "semicolons_and_spaced_commas": ("1.2, 3.4; 5", None, "both ';' and ','"),
    "empty_entry_between_semicolons": ("1;;2", None, "entry 2 is empty"),
    "empty_entry_between_commas": ("1, , 2", None, "entry 2 is empty"),
    "empty_input": ("  ", None, "enter the numbers"),
    "decimal_comma_count_hint": ("(1,5)", 2, "expected 2 numbers, got 1 (a comma between digits"),
}


@pytest.mark.parametrize(
    ("text", "length", "phrase"), REJECTED_VECTORS.values(), ids=REJECTED_VECTORS.keys()
)
def test_bad_vector_is_rejected_with_a_clear_message(
    text: str, length: int | None, phrase: str
) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_vector(text, length)
    assert phrase in caught.value.message


ONE_TWO_THREE_FOUR = [[1.0, 2.0], [3.0, 4.0]]
ACCEPTED_MATRICES = {
    "newlines": ("1 2\n3 4", ONE_TWO_THREE_FOUR),
    "windows_newlines": ("1 2\r\n3 4\r\n", ONE_TWO_THREE_FOUR),
    "semicolon_rows_space_entries": ("1 2; 3 4", ONE_TWO_THREE_FOUR),
    "semicolon_rows_comma_entries": ("1, 2; 3, 4", ONE_TWO_THREE_FOUR),
    "nested_lists": ("[[1, 2], [3, 4]]", ONE_TWO_THREE_FOUR),
    "nested_tuples": ("((1, 2), (3, 4))", ONE_TWO_THREE_FOUR),
    "matlab": ("[1 2; 3 4]", ONE_TWO_THREE_FOUR),
    "matlab_trailing_semicolons": ("1 2;\n3 4;", ONE_TWO_THREE_FOUR),
    "bracketed_rows_on_lines": ("[1, 2],\n[3, 4]", ONE_TWO_THREE_FOUR),
    "nested_decimal_commas": ("[[0,5 1,2]; [0,3 0,4]]", [[0.5, 1.2], [0.3, 0.4]]),
    "decimal_commas_on_lines": ("0,5 1,2\n0,3 0,4", [[0.5, 1.2], [0.3, 0.4]]),
    "one_by_one": ("[[1.5]]", [[1.5]]),
    "single_row": ("1 2 3", [[1.0, 2.0, 3.0]]),
    "single_column_decimal_commas": ("0,5\n0,7", [[0.5], [0.7]]),
}


@pytest.mark.parametrize(("text", "rows"), ACCEPTED_MATRICES.values(), ids=ACCEPTED_MATRICES.keys())
def test_matrix_syntax_is_accepted(text: str, rows: list[list[float]]) -> None:
    assert [[n.value for n in row] for row in parse_matrix(text)] == rows


def test_matrix_of_the_expected_shape_is_accepted() -> None:
    assert len(parse_matrix("1 2 3\n4 5 6", shape=(2, 3))) == 2


REJECTED_MATRICES = {
    "ragged": ("1 2\n3 4 5", None, "row 2 has 3 numbers, row 1 has 2"),
    "wrong_shape": ("1 2 3\n4 5 6", (3, 2), "expected a 3×2 matrix, got 2×3"),
    "ambiguous_commas_in_row": ("[[0,5, 0,7], [1, 2]]", None, SEMICOLON_ADVICE),
    "bad_entry_named": ("1 2\nx 4", None, "row 2, entry 1: could not read 'x' as a number"),
    "junk_between_rows": ("[[1, 2] junk [3, 4]]", None, "unexpected 'junk' before row 2"),
    "empty_row": ("1 2;;3 4", None, "row 2 is empty"),
    "empty_brackets": ("[]", None, "the matrix is empty"),
    "empty_input": ("", None, "enter a matrix"),
}


@pytest.mark.parametrize(
    ("text", "shape", "phrase"), REJECTED_MATRICES.values(), ids=REJECTED_MATRICES.keys()
)
def test_bad_matrix_is_rejected_with_a_clear_message(
    text: str, shape: tuple[int, int] | None, phrase: str
) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_matrix(text, shape)
    assert phrase in caught.value.message


ACCEPTED_SHAPES = {
    "parens": ("(2, 5, 4)", (2, 5, 4)),
    "times_sign": ("2×5×4", (2, 5, 4)),
    "letter_x": ("2x5x4", (2, 5, 4)),
    "spaced_x": ("2 x 5 x 4", (2, 5, 4)),
    "brackets": ("[2, 5, 4]", (2, 5, 4)),
    "bare_commas": ("2,5,4", (2, 5, 4)),
    "parens_spaces": ("(2 5 4)", (2, 5, 4)),
    "python_one_tuple": ("(5,)", (5,)),
    "bare_number": ("5", (5,)),
    "scalar_shape": ("()", ()),
}


@pytest.mark.parametrize(("text", "shape"), ACCEPTED_SHAPES.values(), ids=ACCEPTED_SHAPES.keys())
def test_shape_syntax_is_accepted(text: str, shape: tuple[int, ...]) -> None:
    assert parse_shape(text) == shape


REJECTED_SHAPES = {
    "zero": ("(2, 0)", "dimension 2 is 0; sizes must be whole numbers of at least 1"),
    "negative": ("(2, -3)", "dimension 2 is -3"),
    "not_whole": ("(2.5, 3)", "dimension 1: '2.5' is not a whole number"),
    "letters": ("(a, 3)", "dimension 1: could not read 'a' as a number"),
    "empty_dimension": ("2,,3", "dimension 2 is empty"),
    "dangling_x": ("2x", "dimension 2 is empty"),
    "no_digits": ("xyz", "could not read 'xyz' as a shape: write the size of each dimension, e.g. (2, 5, 4)"),
    "no_digits_wrapped": ("(abc?)", "could not read '(abc?)' as a shape"),
    "empty_input": ("", "enter a shape"),
    "nested": ("((2, 3))", "unexpected '(' inside the shape"),
}


@pytest.mark.parametrize(("text", "phrase"), REJECTED_SHAPES.values(), ids=REJECTED_SHAPES.keys())
def test_bad_shape_is_rejected_with_a_clear_message(text: str, phrase: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_shape(text)
    assert phrase in caught.value.message


ACCEPTED_INDEX_SETS = {
    "braces": ("{1, 3}", {1, 3}),
    "tight_braces": ("{1,3}", {1, 3}),
    "bare": ("1, 3", {1, 3}),
    "brackets_spaces": ("[1 3]", {1, 3}),
    "semicolons": ("(2; 4)", {2, 4}),
    "zero": ("{0}", {0}),
    "empty_braces": ("{}", set()),
    "empty_braces_spaced": ("{ }", set()),
    "empty_set_sign": ("∅", set()),
}


@pytest.mark.parametrize(
    ("text", "indices"), ACCEPTED_INDEX_SETS.values(), ids=ACCEPTED_INDEX_SETS.keys()
)
def test_index_set_syntax_is_accepted(text: str, indices: set[int]) -> None:
    assert parse_index_set(text) == frozenset(indices)


REJECTED_INDEX_SETS = {
    "duplicate": ("{1, 3, 3}", "index 3 appears twice"),
    "negative": ("{-1}", "item 1: indices start at 0, got -1"),
    "not_whole": ("{1.5}", "item 1: '1.5' is not a whole number"),
    "letters": ("{1, a}", "item 2: could not read 'a' as a number"),
    "trailing_comma": ("{1,}", "item 2 is empty"),
    "set_of_empty_set": ("{∅}", "item 1: could not read '∅'"),
    "empty_input": ("", "enter the indices"),
}


@pytest.mark.parametrize(
    ("text", "phrase"), REJECTED_INDEX_SETS.values(), ids=REJECTED_INDEX_SETS.keys()
)
def test_bad_index_set_is_rejected_with_a_clear_message(text: str, phrase: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_index_set(text)
    assert phrase in caught.value.message


@pytest.mark.parametrize("text", [",\r;", ";", "[;]", ",;,"])
def test_a_matrix_of_separators_only_is_refused_as_empty(text: str) -> None:
    """Found by the parser property test: ",\r;" made no row at all, and reading the first one failed."""
    with pytest.raises(AnswerFormatError, match="empty"):
        parse_matrix(text)
