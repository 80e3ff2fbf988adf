"""Numbers in prompts and solutions are written in the reader's notation, in text and inside math."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from grader.answers.numbers import parse_integer
from grader.answers.structures import parse_matrix, parse_vector
from grader.catalog.catalog import Catalog
from grader.catalog.display import DECIMAL_COMMA, ENGLISH, fill, notation, show
from grader.markup import render_markdown


def test_english_keeps_points_and_comma_thousands() -> None:
    assert show(np.array([-1.2391, 0.911])) == "[−1.239; 0.911]"
    assert show(2_359_296) == "2,359,296" and show(4096) == "4096"
    assert show(np.array([[0.5, 1.25], [3.0, -0.0004]])) == "[0.500, 1.250; 3.000, 0.000]"


def test_a_decimal_comma_language_writes_commas_and_parts_matrix_entries_by_spaces() -> None:
    assert notation("pt") == notation("ru") == DECIMAL_COMMA and notation("xx") == ENGLISH
    assert show(np.array([-1.2391, 0.911]), style=DECIMAL_COMMA) == "[−1,239; 0,911]"
    assert show(-0.25, 2, DECIMAL_COMMA) == "−0,25"
    assert show(2_359_296, style=DECIMAL_COMMA) == "2\u202f359\u202f296"  # never 2,359,296: that reads as 2.359296
    assert show(np.array([[0.5, 1.25], [3.0, 4.0]]), style=DECIMAL_COMMA) == "[0,500 1,250; 3,000 4,000]"
    assert show(Fraction(2, 3), style=DECIMAL_COMMA) == "2/3" and show((2, 5, 4), style=DECIMAL_COMMA) == "(2, 5, 4)"


def test_what_a_learner_copies_from_the_page_reads_back() -> None:
    matrix = np.array([[0.5, -1.25], [3.0, 4.0]])
    assert [[n.value for n in row] for row in parse_matrix(show(matrix, style=DECIMAL_COMMA))] == matrix.tolist()
    assert [n.value for n in parse_vector(show(np.array([-1.239, 0.911]), style=DECIMAL_COMMA))] == [-1.239, 0.911]
    assert parse_integer(show(2_359_296, style=DECIMAL_COMMA)).value == 2_359_296


def test_inside_math_the_comma_and_the_thousands_are_latex() -> None:
    shown = {"v": show(0.5, 1, DECIMAL_COMMA), "n": show(150_994_944, style=DECIMAL_COMMA)}
    in_math = {"v": show(0.5, 1, DECIMAL_COMMA.in_math()), "n": show(150_994_944, style=DECIMAL_COMMA.in_math())}
    filled = fill("v = {{v}}, $v = {{v}}$ and $$n = {{ n }}$$", shown, in_math)
    assert filled == "v = 0,5, $v = 0{,}5$ and $$n = 150\\,994\\,944$$"
    html = render_markdown(filled)
    assert html.count("<math") == 2 and html.count('<mspace width="0.167em"') == 2


@pytest.mark.parametrize("locale", ["pt", "ru"])
def test_a_translated_prompt_and_solution_use_the_languages_notation(catalog: Catalog, locale: str) -> None:
    variant = catalog.variant("block-residual", 3)
    english = variant.prompt + "".join(variant.solution)
    translated = variant.prompt_in(locale) + "".join(variant.solution_in(locale))
    x = show(variant.params["x"], 1)
    assert x in english and x.replace(".", ",") in translated and x not in translated


def test_a_large_count_in_a_translated_solution_is_grouped_by_spaces(catalog: Catalog) -> None:
    variant = catalog.variant("modern-params", 0)
    assert "One block: 177,217,536;" in "".join(variant.solution)
    assert "177\u202f217\u202f536" in "".join(variant.solution_in("pt")) and "177,217,536" not in str(variant.translated)


def test_whole_numbers_are_written_without_decimals() -> None:
    assert show(np.array([-2.0, 4.0, 1.0])) == "[−2; 4; 1]" and show(np.array([-0.0004, 3.0])) == "[0.000; 3.000]"
    assert show(np.array([[1.0, -0.0], [2.0, 7.0]]), style=DECIMAL_COMMA) == "[1 0; 2 7]"
    assert show(np.array([2.0, 0.5])) == "[2.000; 0.500]"  # one fractional entry keeps every entry's decimals


def test_inside_math_a_matrix_keeps_its_entries_apart_and_a_minus_is_latex() -> None:
    matrix = np.array([[1.5, -2.25], [3.0, 4.0]])
    assert show(matrix, 2, DECIMAL_COMMA.in_math()) == r"[1{,}50\;-2{,}25; 3{,}00\;4{,}00]"
    html = render_markdown(fill("$W = {{W}}$", {"W": "unused"}, {"W": show(matrix, 2, DECIMAL_COMMA.in_math())}))
    assert '<mn>1,50</mn><mspace width="0.278em"></mspace><mo>−</mo><mn>2,25</mn>' in html


@pytest.mark.parametrize(("template", "filled"), [
    ("Custa \\$5 e {{a}} e \\$6", "Custa \\$5 e 0,5 e \\$6"),  # escaped dollars are text
    ("linha $x$\n\ny {{a}} $z$", "linha $x$\n\ny 0,5 $z$"),
    ("$a$ and\n\n{{a}} $b$", "$a$ and\n\n0,5 $b$"),
    ("$x = {{a}}$ and $$y = {{a}}$$", "$x = 0{,}5$ and $$y = 0{,}5$$"),
])  # fmt: skip
def test_placeholders_are_written_for_math_only_inside_math(template: str, filled: str) -> None:
    assert fill(template, {"a": "0,5"}, {"a": "0{,}5"}) == filled
