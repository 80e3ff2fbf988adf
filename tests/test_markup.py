"""Instructor Markdown with LaTeX math: MathML that reads well, and nothing unsafe through."""

from __future__ import annotations

import pytest

from grader.markup import has_stray_dollar, math_problems, render_markdown


def test_an_upright_word_is_one_token_not_letter_by_letter() -> None:
    html = render_markdown(r"$\mathrm{gelu}(z) = \mathrm{var}(h)$")
    assert "<mo>gelu</mo>" in html and "<mo>var</mo>" in html
    assert "<mi mathvariant=\"normal\">g</mi>" not in html


def test_a_single_upright_letter_stays_an_identifier() -> None:
    html = render_markdown(r"$\mathrm{d}x$")
    assert "<mo>d</mo>" not in html and "d</mi>" in html


def test_unsafe_text_inside_math_never_comes_out_as_markup() -> None:
    html = render_markdown(r"$\text{<script>alert(1)</script>}$ and $\mathrm{<b>x</b>}$")
    assert "<script" not in html and "<b>" not in html


def test_math_that_does_not_convert_is_reported() -> None:
    assert math_problems(r"$\nosuchmacro{x}$") and not math_problems(r"$\mathrm{softmax}(x)$")


def test_each_formula_carries_its_source_as_a_text_alternative_escaped() -> None:
    html = render_markdown(r'$\mathrm{var}(h) < 1$ and $$\text{"q"} \cdot k$$')
    assert r'<math alttext="\mathrm{var}(h) &lt; 1"' in html
    assert r'<math alttext="\text{&quot;q&quot;} \cdot k"' in html and 'display="block"' in html


def test_a_braced_comma_in_math_joins_its_digits_into_one_number() -> None:
    html = render_markdown(r"$\sqrt{2/\pi} \approx 0{,}798$, $n = 1{,}234{,}567$ and $f(1, 2)$")
    assert "<mn>0,798</mn>" in html and "<mn>1,234,567</mn>" in html
    assert "<mo>,</mo><mn>2</mn>" in html  # a bare comma stays punctuation


@pytest.mark.parametrize("text, stray", [
    ("Hello $x_5", True), ("a $b$ and then $c", True), ("$x$ and $y$", False), (r"costs \$5, and $x$", False),
    ("`$x` in code", False), ("$$\nx\n$$", False), ("```\n$ shell prompt\n```", False),
])
def test_a_dollar_that_opens_no_formula_is_found(text: str, stray: bool) -> None:
    assert has_stray_dollar(text) == stray
    assert math_problems(text) == []  # it renders: the self-check refuses it, so stored versions stay readable
