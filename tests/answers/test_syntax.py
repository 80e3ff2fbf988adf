"""Renderers: concrete renderings, the decimal-comma padding rule, syntax names and UI hints."""

from __future__ import annotations

import pytest

from grader.answers.numbers import parse_number
from grader.answers.structures import parse_vector
from grader.answers.syntax import (
    NUMBER_SYNTAXES,
    PARSERS,
    render,
    render_index_set,
    render_integer,
    render_matrix,
    render_number,
    render_shape,
    render_vector,
    syntax_hint,
    syntaxes,
)

NUMBER_RENDERINGS = {
    "point": (-1.239, 3, "point", "-1.239"),
    "comma": (-1.239, 3, "comma", "\u22121,239"),
    "comma_leading_zero": (0.911, 3, "comma", "0,911"),
    "comma_two_decimals": (12.5, 2, "comma", "12,50"),
    "comma_four_digit_integer_part": (1234.5, 3, "comma", "1234,500"),
    "unicode_minus": (-0.5, 1, "unicode-minus", "\u22120.5"),
    "plus_sign": (0.5, 1, "plus-sign", "+0.5"),
    "no_negative_zero": (-0.0001, 2, "point", "0.00"),
    "e_notation_keeps_the_last_place": (0.0012, 4, "e-notation", "1.2e-3"),
    "times_ten": (1234.5, 1, "times-ten", "1.2345×10^3"),
    "star_caret": (0.0012, 4, "star-caret", "1.2*10^(-3)"),
    "superscript": (0.0012, 4, "superscript", "1,2·10⁻³"),
    "suffix": (41900000.0, 0, "suffix", "41.900000M"),
    "suffix_below_a_thousand": (12.5, 1, "suffix", "12.5"),
    "percent": (0.667, 3, "percent", "66.7 %"),
    "percent_comma": (0.667, 3, "percent-comma", "66,7 %"),
    "ratio": (-0.75, 2, "ratio", "-3/4"),
}


@pytest.mark.parametrize(
    ("value", "decimals", "syntax", "text"),
    NUMBER_RENDERINGS.values(),
    ids=NUMBER_RENDERINGS.keys(),
)
def test_number_is_rendered_as_learners_type_it(
    value: float, decimals: int, syntax: str, text: str
) -> None:
    assert render_number(value, decimals, syntax) == text


def test_decimal_comma_rendering_parses_to_the_same_value() -> None:
    assert parse_number(render_number(-1.239, 3, "comma")).value == -1.239


def test_integer_renderings() -> None:
    assert render_integer(41943040, "commas") == "41,943,040"
    assert render_integer(41943040, "spaces") == "41 943 040"
    assert render_integer(-41943040, "thin-spaces") == "\u221241\u2009943\u2009040"
    # Down to the unit, as a whole number typed with a suffix must be.
    assert render_integer(41943040, "suffix") == "41.943040M"
    assert render_integer(41943040, "words") == "41.943040 million"
    assert render_integer(1000, "suffix") == "1.000k"
    assert render_integer(999, "suffix") == "999"


def test_integer_renderer_refuses_floats() -> None:
    with pytest.raises(TypeError):
        render_integer(41943040.0, "commas")  # type: ignore[arg-type]


def test_structure_renderings() -> None:
    assert render_vector([0.5, 0.7], 1, "decimal-comma-semicolons") == "[0,5; 0,7]"
    assert render_vector([0.5, -0.7], 1, "parens-commas") == "(0.5, -0.7)"
    assert render_vector([], 1, "spaces") == "[]"
    assert render_matrix([[1, 2], [3, 4]], 0, "nested") == "[[1, 2], [3, 4]]"
    nested = render_matrix([[0.5, 1.2], [0.3, 0.4]], 1, "decimal-comma-nested")
    assert nested == "[[0,5 1,2]; [0,3 0,4]]"
    assert render_shape((2, 5, 4), "times") == "2×5×4"
    assert render_shape((5,), "parens") == "(5,)"
    assert render_shape((), "x") == "()"
    assert render_index_set(frozenset({3, 1}), "braces") == "{1, 3}"
    assert render_index_set(frozenset(), "bare") == "∅"


def test_empty_matrix_cannot_be_rendered() -> None:
    with pytest.raises(ValueError):
        render_matrix([], 3, "newlines")


EXPECTED_NAMES = {
    "vector": {
        "semicolon-brackets", "parens-commas", "spaces", "commas", "decimal-comma-semicolons"
    },
    "matrix": {"newlines", "semicolons", "nested"},
    "integer": {"plain", "commas", "spaces", "thin-spaces", "suffix"},
    "shape": {"parens", "times", "x", "brackets"},
    "index-set": {"braces", "bare"},
    "scalar": {"point", "comma"},
    "fraction": {"ratio", "percent"},
}


@pytest.mark.parametrize("kind", EXPECTED_NAMES)
def test_every_kind_lists_its_syntaxes(kind: str) -> None:
    assert EXPECTED_NAMES[kind] <= set(syntaxes(kind))
    assert kind in PARSERS


@pytest.mark.parametrize("kind", ["scalar", "fraction"])
def test_number_kinds_only_list_number_syntaxes(kind: str) -> None:
    assert set(syntaxes(kind)) <= set(NUMBER_SYNTAXES)


def test_render_dispatches_on_kind() -> None:
    assert render("vector", [1.0, 2.0], "semicolon-brackets", 1) == "[1.0; 2.0]"
    assert render("shape", (2, 3), "x") == "2x3"
    assert render("integer", 1234, "commas") == "1,234"


@pytest.mark.parametrize(
    ("kind", "syntax"), [("nope", "point"), ("scalar", "nope"), ("shape", "nope")]
)
def test_unknown_kind_or_syntax_is_a_programming_error(kind: str, syntax: str) -> None:
    with pytest.raises(ValueError):
        render(kind, 1.0, syntax)


def test_vector_hint_shows_the_semicolon_rule_with_an_example_that_parses() -> None:
    hint = syntax_hint("vector")
    assert "';'" in hint and "decimal comma" in hint
    example = hint[hint.index("[") : hint.index("]") + 1]
    assert [n.value for n in parse_vector(example)] == [-1.239, 0.911, -1.021, 0.98]


@pytest.mark.parametrize("kind", sorted(PARSERS))
def test_every_kind_has_a_hint_with_an_example(kind: str) -> None:
    assert "e.g." in syntax_hint(kind)
