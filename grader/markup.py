"""Markdown with LaTeX math, rendered to sanitised HTML with MathML on the server (no CDN).

Raw HTML in Markdown is not passed through; math goes through latex2mathml; the whole result is
then cleaned with nh3 against an allowlist of HTML and MathML tags, because latex2mathml copies
\\text{...} content verbatim.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape

import latex2mathml.converter
import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from grader.speech import spoken

HTML_TAGS = {"p", "em", "strong", "code", "pre", "ul", "ol", "li", "a", "h2", "h3", "h4",
             "blockquote", "br", "hr", "table", "thead", "tbody", "tr", "th", "td", "span", "div"}  # fmt: skip
MATH_TAGS = {"math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup",
             "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
             "mstyle", "mpadded", "mphantom", "menclose", "semantics", "annotation"}  # fmt: skip
ATTRIBUTES = {
    "a": {"href", "title"},
    "math": {"xmlns", "display", "alttext", "aria-label"},
    "mi": {"mathvariant"},
    "mo": {"stretchy", "fence", "form", "separator", "lspace", "rspace", "largeop", "movablelimits"},
    "mspace": {"width", "linebreak"},
    "mstyle": {"displaystyle", "scriptlevel"},
    "mtable": {"columnalign", "rowspacing", "columnspacing"},
    "mtd": {"columnalign"},
    "mfrac": {"linethickness"},
    "menclose": {"notation"},
    "span": {"class"},
    "div": {"class"},
}
# A LaTeX command latex2mathml did not know shows up as a backslash inside a token element.
_UNCONVERTED = re.compile(r"<m[ion]>[^<]*\\[^<]*</m[ion]>|<mi>&amp;</mi>|<mi>&</mi>")


class MathError(ValueError):
    """A formula that does not convert cleanly to MathML."""


# An upright word such as \mathrm{var} comes out letter by letter (<mi>v</mi><mi>a</mi><mi>r</mi>),
# which screen readers spell out; as an operator name it is one token, and looks the same.
_UPRIGHT_WORD = re.compile(r"\\mathrm\{([A-Za-z]{2,})\}")


# A decimal comma written {,} (TeX's way to keep a comma unspaced) comes out as a separate operator,
# which MathML spaces like punctuation ("0, 798"); it is one number.
_BRACED_COMMA = "<mrow><mo>&#x0002C;</mo></mrow>"
_DECIMAL_COMMA = re.compile(rf"<mn>[0-9]+</mn>(?:{_BRACED_COMMA}<mn>[0-9]+</mn>)+")  # 0{,}5, or 1{,}234{,}567


def _one_number(match: re.Match[str]) -> str:
    return "<mn>" + re.sub(r"</?mn>", "", match.group().replace(_BRACED_COMMA, ",")) + "</mn>"


def _to_mathml(latex: str, display: bool, locale: str = "en") -> str:
    # latex2mathml has no `aligned`; `align*` renders the same rows without a stray "&".
    rewritten = _UPRIGHT_WORD.sub(r"\\operatorname{\1}", latex.replace("{aligned}", "{align*}"))
    try:
        html = latex2mathml.converter.convert(rewritten, display="block" if display else "inline")
    except Exception as error:  # noqa: BLE001 - the converter raises many types on bad input
        raise MathError(f"cannot render ${latex}$: {error}") from None
    if _UNCONVERTED.search(html):
        raise MathError(f"cannot render ${latex}$: unknown command or misplaced '&'")
    html = _DECIMAL_COMMA.sub(_one_number, html)
    # The source as the formula's text alternative, for browsers without MathML; its words in the page's
    # language as its accessible name, for screen readers without MathML support (grader/speech.py).
    words = escape(spoken(latex, locale), quote=True)
    return html.replace("<math ", f'<math alttext="{escape(latex, quote=True)}" aria-label="{words}" ', 1)


def _parser(strict: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).use(dollarmath_plugin, double_inline=True)

    # The page's language comes in the render's env ({"locale": "pt"}), for the formulas' spoken words.
    def inline(renderer, tokens, idx, options, env):  # type: ignore[no-untyped-def]
        return _safe_math(tokens[idx].content, display=False, strict=strict, locale=env.get("locale", "en"))

    def block(renderer, tokens, idx, options, env):  # type: ignore[no-untyped-def]
        math = _safe_math(tokens[idx].content, display=True, strict=strict, locale=env.get("locale", "en"))
        return "<div class=\"math\">" + math + "</div>"

    md.add_render_rule("math_inline", inline)
    md.add_render_rule("math_inline_double", block)
    md.add_render_rule("math_block", block)
    md.add_render_rule("math_block_label", block)
    return md


def _safe_math(latex: str, display: bool, strict: bool, locale: str = "en") -> str:
    try:
        return _to_mathml(latex, display, locale)
    except MathError:
        if strict:
            raise
        return f"<code>{nh3.clean_text(latex)}</code>"


_RENDER = _parser(strict=False)
_CHECK = _parser(strict=True)


def sanitise(html: str) -> str:
    """Keep only allowlisted HTML and MathML."""
    return nh3.clean(html, tags=HTML_TAGS | MATH_TAGS, attributes=ATTRIBUTES,
                     url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer")  # fmt: skip


@lru_cache(maxsize=4096)
def render_markdown(text: str, locale: str = "en") -> str:
    """Markdown + LaTeX to sanitised HTML; a formula that cannot render is shown as code. Each formula's
    accessible name is its words in `locale`."""
    return sanitise(_RENDER.render(text, {"locale": locale}))


# Escapes kept as their own tokens, so an escaped \$ (a dollar sign) is told apart from one left open.
_TOKENS = _parser(strict=False).disable("text_join")


STRAY_DOLLAR = "a $ opens no formula: close it with another $, or write \\$ for a dollar sign"


def math_problems(text: str) -> list[str]:
    """Why the math in this Markdown would not render cleanly (empty when it all does)."""
    try:
        _CHECK.render(text)
    except MathError as error:
        return [str(error)]
    return []


def has_stray_dollar(text: str) -> bool:
    """Whether a $ in this Markdown opens no formula, so learners would see it raw."""
    inline = [child for token in _TOKENS.parse(text) for child in token.children or ()]
    return any(child.type == "text" and "$" in child.content for child in inline)
