"""Properties: renderings parse back to their values; parsers raise only AnswerFormatError."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.answers.numbers import (
    AnswerFormatError,
    Number,
    parse_fraction,
    parse_integer,
    parse_number,
)
from grader.answers.structures import parse_index_set, parse_matrix, parse_shape, parse_vector
from grader.answers.syntax import PARSERS, render, syntaxes

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
moderate_floats = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
decimal_places = st.integers(min_value=0, max_value=8)


def _rounded(value: float, decimals: int) -> float:
    return float(Decimal(f"{value:.{decimals}f}"))


def _check_number(parsed: Number, value: float, decimals: int, syntax: str) -> None:
    assert parsed.value == _rounded(value, decimals)
    if syntax == "ratio":
        assert parsed.resolution == 0.0
    else:  # the rendering shows at least the requested places
        assert 0.0 < parsed.resolution <= 10.0**-decimals * (1 + 1e-9)


NUMBER_CASES = [(kind, name) for kind in ("scalar", "fraction") for name in syntaxes(kind)]


@pytest.mark.parametrize(("kind", "syntax"), NUMBER_CASES)
@SETTINGS
@given(value=finite_floats, decimals=decimal_places)
def test_number_round_trips(kind: str, syntax: str, value: float, decimals: int) -> None:
    text = render(kind, value, syntax, decimals)
    _check_number(PARSERS[kind](text), value, decimals, syntax)


@pytest.mark.parametrize("syntax", syntaxes("vector"))
@SETTINGS
@given(values=st.lists(moderate_floats, max_size=8), decimals=decimal_places)
def test_vector_round_trips(syntax: str, values: list[float], decimals: int) -> None:
    text = render("vector", values, syntax, decimals)
    parsed = parse_vector(text, length=len(values))
    for number, value in zip(parsed, values, strict=True):
        _check_number(number, value, decimals, syntax)


@st.composite
def matrices(draw: Any) -> list[list[float]]:
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    return [draw(st.lists(moderate_floats, min_size=cols, max_size=cols)) for _ in range(rows)]


@pytest.mark.parametrize("syntax", syntaxes("matrix"))
@SETTINGS
@given(rows=matrices(), decimals=decimal_places)
def test_matrix_round_trips(syntax: str, rows: list[list[float]], decimals: int) -> None:
    text = render("matrix", rows, syntax, decimals)
    parsed = parse_matrix(text, shape=(len(rows), len(rows[0])))
    for parsed_row, row in zip(parsed, rows, strict=True):
        for number, value in zip(parsed_row, row, strict=True):
            _check_number(number, value, decimals, syntax)


@pytest.mark.parametrize("syntax", syntaxes("integer"))
@SETTINGS
@given(value=st.integers(min_value=-(2**53), max_value=2**53))
def test_integer_round_trips_exactly(syntax: str, value: int) -> None:
    parsed = parse_integer(render("integer", value, syntax))
    assert parsed.value == value and math.isfinite(parsed.resolution)


@pytest.mark.parametrize("syntax", syntaxes("shape"))
@SETTINGS
@given(shape=st.lists(st.integers(1, 10**6), max_size=5).map(tuple))
def test_shape_round_trips_exactly(syntax: str, shape: tuple[int, ...]) -> None:
    assert parse_shape(render("shape", shape, syntax)) == shape


@pytest.mark.parametrize("syntax", syntaxes("index-set"))
@SETTINGS
@given(indices=st.frozensets(st.integers(0, 10**6), max_size=8))
def test_index_set_round_trips_exactly(syntax: str, indices: frozenset[int]) -> None:
    assert parse_index_set(render("index-set", indices, syntax)) == indices


PARSER_CALLS: dict[str, Callable[[str], Any]] = {
    "parse_number": parse_number,
    "parse_integer": parse_integer,
    "parse_fraction": parse_fraction,
    "parse_vector": parse_vector,
    "parse_vector_length_3": lambda text: parse_vector(text, 3),
    "parse_matrix": parse_matrix,
    "parse_matrix_2x2": lambda text: parse_matrix(text, (2, 2)),
    "parse_shape": parse_shape,
    "parse_index_set": parse_index_set,
}
# Characters the grammars care about, so generated text often gets deep into the parsers.
TRICKY = "0123456789,.;' -+\u2212\u2013[](){}eE×x*·⁻⁰¹²³^%/kMBGT\n\u00a0\u2009∅"
learner_text = st.one_of(st.text(), st.text(alphabet=TRICKY, max_size=30))


def _finite_numbers(result: Any) -> list[Number]:
    if isinstance(result, Number):
        return [result]
    if isinstance(result, tuple) and result and isinstance(result[0], Number):
        return [result[0]]
    if isinstance(result, list):
        return [n for item in result for n in _finite_numbers(item)]
    return []


@pytest.mark.parametrize("name", PARSER_CALLS)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=learner_text)
def test_parsers_raise_only_answer_format_errors(name: str, text: str) -> None:
    try:
        result = PARSER_CALLS[name](text)
    except AnswerFormatError as error:
        assert isinstance(error.message, str) and error.message
        return
    for number in _finite_numbers(result):
        assert math.isfinite(number.value) and math.isfinite(number.resolution)
        assert number.resolution >= 0.0


@SETTINGS
@given(
    value=moderate_floats,
    decimals=decimal_places,
    pad=st.sampled_from(["", " ", "\u00a0", "\u2009", "\t"]),
)
def test_surrounding_whitespace_never_changes_a_number(
    value: float, decimals: int, pad: str
) -> None:
    text = render("scalar", value, "comma", decimals)
    assert parse_number(pad + text + pad) == parse_number(text)


@SETTINGS
@given(st.from_regex(r"-?[0-9]{1,20}(\.[0-9]{1,20})?", fullmatch=True), st.booleans())
def test_plain_decimals_read_the_same_on_the_short_route_as_on_the_general_one(text: str, integer: bool) -> None:
    """The direct reading of "-1.234" gives exactly what the general reader gives for it."""
    from grader.answers.numbers import _read, _read_any

    assert _read(text, integer) == _read_any(text, text, integer)
