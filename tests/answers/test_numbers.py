"""Scalars, fractions and integers: every accepted syntax, and every rejection with its message."""

from __future__ import annotations

import pytest

from grader.answers.numbers import (
    AnswerFormatError,
    Number,
    parse_fraction,
    parse_integer,
    parse_number,
)

# (text, value, resolution); values are compared exactly: parsing rounds once, like a float literal.
ACCEPTED_NUMBERS = {
    "decimal_point": ("0.5", 0.5, 0.1),
    "decimal_comma": ("0,5", 0.5, 0.1),
    "decimal_comma_not_three_digits": ("1,5", 1.5, 0.1),
    "decimal_comma_two_digits": ("12,50", 12.5, 0.01),
    "decimal_comma_leading_zero_three_digits": ("0,123", 0.123, 0.001),
    "decimal_comma_four_digit_integer_part": ("1234,567", 1234.567, 0.001),
    "three_decimals_with_point": ("1.234", 1.234, 0.001),
    "integer": ("12", 12.0, 1.0),
    "leading_point": (".5", 0.5, 0.1),
    "trailing_point": ("5.", 5.0, 1.0),
    "unicode_minus": ("\u22120.5", -0.5, 0.1),
    "figure_dash": ("\u20120.5", -0.5, 0.1),
    "en_dash": ("\u20130.5", -0.5, 0.1),
    "em_dash": ("\u20140.5", -0.5, 0.1),
    "small_hyphen_minus": ("\ufe630.5", -0.5, 0.1),
    "fullwidth_hyphen_minus": ("\uff0d0.5", -0.5, 0.1),
    "unicode_minus_decimal_comma": ("\u22120,75", -0.75, 0.01),
    "leading_plus": ("+2.5", 2.5, 0.1),
    "surrounding_spaces": ("  3.25 \t", 3.25, 0.01),
    "surrounding_nbsp_and_thin_spaces": ("\u00a03.25\u2009\u202f", 3.25, 0.01),
    "e_exponent": ("1.2e-3", 0.0012, 0.0001),
    "capital_e_exponent": ("1.2E3", 1200.0, 100.0),
    "comma_middle_dot_superscript": ("1,2·10⁻³", 0.0012, 0.0001),
    "times_sign_caret": ("1.2×10^-3", 0.0012, 0.0001),
    "star_caret": ("1.2*10^-3", 0.0012, 0.0001),
    "caret_braces": ("1.2x10^{-3}", 0.0012, 0.0001),
    "caret_parens_unicode_minus": ("1.2·10^(\u22123)", 0.0012, 0.0001),
    "spaced_times": ("1.2 × 10^3", 1200.0, 100.0),
    "python_power": ("1.2*10**-3", 0.0012, 0.0001),
    "superscript_positive": ("2·10³", 2000.0, 1000.0),
    "fraction": ("2/3", 2 / 3, 0.0),
    "negative_fraction": ("-3/4", -0.75, 0.0),
    "unicode_minus_fraction": ("\u22123/4", -0.75, 0.0),
    "percent_spaced": ("66.7 %", 0.667, 0.001),
    "percent_tight": ("66.7%", 0.667, 0.001),
    "percent_decimal_comma": ("66,7 %", 0.667, 0.001),
    "thousands_commas": ("41,943,040", 41943040.0, 1.0),
    "thousands_spaces": ("41 943 040", 41943040.0, 1.0),
    "thousands_nbsp": ("41\u00a0943\u00a0040", 41943040.0, 1.0),
    "thousands_thin_space": ("41\u2009943\u2009040", 41943040.0, 1.0),
    "thousands_narrow_nbsp": ("41\u202f943\u202f040", 41943040.0, 1.0),
    "thousands_apostrophes": ("41'943'040", 41943040.0, 1.0),
    "thousands_typographic_apostrophes": ("41\u2019943\u2019040", 41943040.0, 1.0),
    "thousands_two_dot_groups": ("41.943.040", 41943040.0, 1.0),
    "thousands_comma_then_decimal_point": ("1,234.5", 1234.5, 0.1),
    "thousands_dot_then_decimal_comma": ("1.234,5", 1234.5, 0.1),
    "thousands_space_then_decimal_comma": ("1 234,5", 1234.5, 0.1),
    "suffix_m": ("41.9M", 41.9e6, 1e5),
    "suffix_b_spaced": ("5.67 B", 5.67e9, 1e7),
    "suffix_m_spaced": ("177.2 M", 177.2e6, 1e5),
    "suffix_k": ("12k", 12000.0, 1000.0),
    "suffix_capital_k_spaced": ("12 K", 12000.0, 1000.0),
    "suffix_g": ("1.5G", 1.5e9, 1e8),
    "suffix_t": ("3T", 3e12, 1e12),
    "word_million": ("2 million", 2e6, 1e6),
    "word_billion_capitalised": ("1.5 Billion", 1.5e9, 1e8),
    "word_thousand": ("4 thousand", 4000.0, 1000.0),
}


@pytest.mark.parametrize(
    ("text", "value", "resolution"), ACCEPTED_NUMBERS.values(), ids=ACCEPTED_NUMBERS.keys()
)
def test_number_syntax_is_accepted(text: str, value: float, resolution: float) -> None:
    assert parse_number(text) == Number(value, resolution)


@pytest.mark.parametrize("text", ["2/3", "66.7 %", "0,667", "0.667"])
def test_parse_fraction_reads_fractions_decimals_and_percentages(text: str) -> None:
    assert parse_fraction(text) == parse_number(text)


# (text, key phrase of the message)
REJECTED_NUMBERS = {
    "empty": ("", "enter a number"),
    "only_spaces": ("  \u00a0 ", "enter a number"),
    "letters": ("abc", "could not read 'abc' as a number"),
    "lower_case_m_suffix": ("12m", "could not read '12m' as a number"),
    "two_decimal_points": ("1.2.3", "more than one decimal separator"),
    "point_and_comma_decimals": ("1,2.3", "more than one decimal separator"),
    "nan": ("nan", "enter a finite number"),
    "negative_inf": ("-inf", "enter a finite number"),
    "infinity_word": ("Infinity", "enter a finite number"),
    "infinity_sign": ("∞", "enter a finite number"),
    "division_by_zero": ("3/0", "'3/0' divides by zero"),
    "bad_thousands_groups": ("1,23,456", "more than one decimal separator"),
    "bad_space_groups": ("12 34", "groups of exactly 3 digits"),
    "two_signs": ("--5", "two signs"),
    "trailing_comma": ("5,", "could not read '5,'"),
    "leading_comma": (",5", "could not read ',5'"),
    "huge_exponent": ("1e99999", "out of range"),
    "overflow": ("1e400", "too large or too small"),
    "underflow": ("1e-400", "too large or too small"),
    "times_ten_without_exponent": ("2x10", "could not read"),
    "too_long": ("1" * 500, "too long"),
}


@pytest.mark.parametrize(("text", "phrase"), REJECTED_NUMBERS.values(), ids=REJECTED_NUMBERS.keys())
def test_bad_number_is_rejected_with_a_clear_message(text: str, phrase: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_number(text)
    assert phrase in caught.value.message
    assert str(caught.value) == caught.value.message


@pytest.mark.parametrize(("text", "value"), [("1,041", 1.041), ("\u22121,239", -1.239), ("1,234k", 1234.0)])
def test_a_single_comma_in_a_real_number_is_a_decimal_comma(text: str, value: float) -> None:
    # The lessons write sigma = 1,041: in a real-valued answer one comma is never thousands.
    assert parse_number(text).value == value


def test_decimal_comma_and_point_read_alike_and_two_comma_groups_are_thousands() -> None:
    assert parse_number("0,5") == parse_number("0.5") == Number(0.5, 0.1)
    assert parse_number("1,234") == Number(1.234, 0.001)
    assert parse_number("41,943,040") == Number(41943040.0, 1.0)


ACCEPTED_INTEGERS = {
    "plain": ("12", 12.0, 1.0),
    "negative": ("\u22127", -7.0, 1.0),
    "thousands_commas": ("41,943,040", 41943040.0, 1.0),
    "thousands_spaces": ("41 943 040", 41943040.0, 1.0),
    "single_comma_group_is_thousands": ("1,234", 1234.0, 1.0),
    "suffix_makes_it_whole": ("41.9M", 41.9e6, 1e5),
    "exact_suffix": ("41.94304M", 41943040.0, 10.0),
    "suffix_k": ("12k", 12000.0, 1000.0),
    "exponent": ("1e3", 1000.0, 1000.0),
    "whole_fraction": ("4/2", 2.0, 0.0),
}


@pytest.mark.parametrize(
    ("text", "value", "resolution"), ACCEPTED_INTEGERS.values(), ids=ACCEPTED_INTEGERS.keys()
)
def test_integer_syntax_is_accepted(text: str, value: float, resolution: float) -> None:
    assert parse_integer(text) == Number(value, resolution)


REJECTED_INTEGERS = {
    "decimal": ("1.5", "'1.5' is not a whole number"),
    "decimal_comma": ("1,5", "'1,5' is not a whole number"),
    "suffix_leaves_a_fraction": ("1.2345k", "is not a whole number"),
    "dot_group_hint": ("1.234", "if the '.' separates thousands, write 1234"),
    "comma_decimal_with_suffix_leaves_a_fraction": ("1,2345k", "is not a whole number"),
    "percent": ("50 %", "is not a whole number"),
    "garbage": ("seven", "could not read 'seven' as a number"),
}


@pytest.mark.parametrize(
    ("text", "phrase"), REJECTED_INTEGERS.values(), ids=REJECTED_INTEGERS.keys()
)
def test_bad_integer_is_rejected_with_a_clear_message(text: str, phrase: str) -> None:
    with pytest.raises(AnswerFormatError) as caught:
        parse_integer(text)
    assert phrase in caught.value.message
