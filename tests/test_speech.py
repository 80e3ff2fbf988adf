"""Formulas as words (grader/speech.py): what a screen reader without MathML support says."""

from __future__ import annotations

import pytest

from grader.markup import render_markdown
from grader.speech import spoken


@pytest.mark.parametrize(("latex", "locale", "words"), [
    (r"\epsilon = 10^{-5}", "en", "epsilon equals 10 to the power minus 5"),
    (r"\epsilon = 10^{-5}", "pt", "épsilon igual a 10 elevado a menos 5"),
    (r"\epsilon = 10^{-5}", "ru", "эпсилон равно 10 в степени минус 5"),
    (r"\sigma = \sqrt{\mathrm{var}(h) + \epsilon}", "en",
     "sigma equals the square root of var open paren h close paren plus epsilon end root"),
    (r"\frac{1}{d}\sum_i (h_i - \mu)^2", "en", "1 over d the sum over i of open paren h sub i minus mu close paren squared"),
    (r"\frac{1}{d}\sum_i (h_i - \mu)^2", "ru",
     "1 делённое на d сумма по i от открывающая скобка h с индексом i минус мю закрывающая скобка в квадрате"),
    (r"\frac{x - \mu}{\sigma}", "pt", "fração x menos mi sobre sigma fim da fração"),
    (r"QK^\top / \sqrt{d_h}", "en", "Q K transposed divided by the square root of d sub h end root"),
    (r"u'_5 \approx 0{,}798", "pt", "u linha índice 5 é aproximadamente 0,798"),
    (r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}", "en", "the matrix row 1: 1, 2; row 2: 3, 4; end matrix"),
    (r"x^3 - \infty", "de", "x cubed minus infinity"),  # a language without its own words reads English
])  # fmt: skip
def test_a_formula_is_read_as_words(latex: str, locale: str, words: str) -> None:
    assert spoken(latex, locale) == words


def test_unknown_commands_are_read_by_name_and_stray_braces_do_not_hang() -> None:
    assert spoken(r"a \star b}", "en") == "a star b"


def test_each_formula_on_a_page_is_named_by_its_words_in_the_pages_language() -> None:
    html = render_markdown(r"With $\epsilon = 10^{-5}$ and $$x = \frac{a}{b}$$", "ru")
    assert 'aria-label="эпсилон равно 10 в степени минус 5"' in html
    assert 'aria-label="x равно a делённое на b"' in html
    assert r'alttext="\epsilon = 10^{-5}"' in html  # the source stays the alternative for browsers without MathML
