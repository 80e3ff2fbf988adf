"""Numbers as learners type them.

Accepted: decimal point or decimal comma; unicode minus and dashes; a leading '+'; thousands groups
of exactly three digits separated by ',', '.', spaces (also NBSP and thin spaces) or
apostrophes; exponents ('1.2e-3', '1,2·10⁻³', '1.2×10^-3', '1.2*10^{-3}'); suffixes k/K, M, B/G,
T and the words thousand, million, billion, trillion; percentages ('66.7 %'); fractions ('2/3',
exact).

Ambiguity policy (nothing is guessed; the rule depends only on what the question asks for):
- A real number (parse_number, parse_fraction, entries of vectors and matrices) has a single
  decimal separator: one comma is always a decimal comma, so '1,041' is 1.041, as the lessons
  write it. Comma thousands groups need two or more groups ('41,943,040').
- A whole number (parse_integer) reads '1,234' as thousands -- but not when a suffix, exponent or
  percent follows ('1,234k' is whole either way).
- A single '.' is always a decimal point; dots group thousands only when there are two or more.
- Lists where commas could be both separators and decimal commas ('0,5, 0,7') are refused with
  advice to separate the numbers with ';' (structures.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from grader.texts import Text, say

MAX_NUMBER_CHARS = 400
_MAX_EXPONENT_DIGITS = 4


@dataclass(frozen=True)
class Number:
    """A parsed number and the place value of the last digit the learner typed (0.0 = exact)."""

    value: float
    resolution: float


class AnswerFormatError(ValueError):
    """Malformed input; .text is a learner-facing sentence naming the problem and where."""

    def __init__(self, text: Text) -> None:
        super().__init__(str(text))
        self.text = text
        self.message = str(text)  # in English


_DASHES = "\u2212\u2012\u2013\u2014\ufe63\uff0d"
_APOSTROPHES = "\u2019\u02bc\u2032"
_INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Every character str.isspace() accepts lies below U+3001.
_WHITESPACE = [chr(code) for code in range(0x3001) if chr(code).isspace()]


def _translation(keep_newlines: bool) -> dict[int, str | None]:
    table: dict[int, str | None] = {ord(c): "-" for c in _DASHES}
    table.update({ord(c): "'" for c in _APOSTROPHES})
    table.update({ord(c): None for c in _INVISIBLE})
    for c in _WHITESPACE:
        table[ord(c)] = "\n" if keep_newlines and c in _LINE_BREAKS else " "
    return table


_FLAT = _translation(keep_newlines=False)
_LINES = _translation(keep_newlines=True)


def normalize(text: str, keep_newlines: bool = False) -> str:
    """Map unicode dashes, spaces and apostrophes to ASCII and drop invisible characters."""
    return text.translate(_LINES if keep_newlines else _FLAT)


def quote(text: str, limit: int = 40) -> str:
    """Quote learner text for a message, shortened so messages stay readable."""
    text = text.strip()
    return f"'{text}'" if len(text) <= limit else f"'{text[: limit - 1]}…'"


def looks_like_thousands(whole: str, fraction: str) -> bool:
    """Whether 'whole,fraction' has the shape of a thousands group, as '1,234' does."""
    return bool(re.fullmatch(r"[1-9][0-9]{0,2}", whole) and re.fullmatch(r"[0-9]{3}", fraction))


@dataclass(frozen=True)
class _Reading:
    number: Number
    exact: Decimal | Fraction


_NON_FINITE = {"nan", "inf", "infinity", "∞"}
_FRACTION = re.compile(r"([0-9]+)\s*/\s*([+-]?)\s*([0-9]+)")
_SUFFIX = re.compile(r"\s*([kKMBGT]|(?i:thousand|million|billion|trillion))$")
_SUFFIX_POWERS = {"k": 3, "m": 6, "b": 9, "g": 9, "t": 12,
                  "thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_E_EXPONENT = re.compile(r"[eE]([+-]?[0-9]+)$")
_TEN_EXPONENT = re.compile(
    r"\s*[·⋅∙*×xX]\s*10\s*(?:(?:\^|\*\*)\s*"
    r"([+-]?[0-9]+|\{\s*[+-]?[0-9]+\s*\}|\(\s*[+-]?[0-9]+\s*\))"
    r"|([⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))$"
)
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_MANTISSA = re.compile(r"[0-9.,' ]+")
# The common case, "-1.234": read directly; anything else takes the general route below.
_PLAIN_DECIMAL = re.compile(r"-?[0-9]{1,20}(?:\.([0-9]{1,20}))?")


def _unreadable(q: str, why: Text | None = None) -> AnswerFormatError:
    if why is None:
        return AnswerFormatError(say("could not read %(answer)s as a number", answer=q))
    return AnswerFormatError(say("could not read %(answer)s as a number: %(why)s", answer=q, why=why))


def _split_sign(s: str, q: str) -> tuple[bool, str]:
    negative = s[0] == "-"
    body = s[1:].lstrip() if s[0] in "+-" else s
    if body[:1] in ("+", "-"):
        raise _unreadable(q, say("it has two signs"))
    return negative, body


def _read_fraction(match: re.Match[str], negative: bool, q: str) -> _Reading:
    numerator, denominator = int(match.group(1)), int(match.group(3))
    if denominator == 0:
        raise AnswerFormatError(say("%(answer)s divides by zero", answer=q))
    exact = Fraction(numerator, denominator) * (-1 if negative != (match.group(2) == "-") else 1)
    try:
        value = float(exact)
    except OverflowError:
        raise AnswerFormatError(say("%(answer)s is too large to grade", answer=q)) from None
    if value == 0.0 and exact != 0:
        raise AnswerFormatError(say("%(answer)s is too small to grade", answer=q))
    return _Reading(Number(value, 0.0), exact)


def _exponent(text: str, q: str) -> int:
    cleaned = text.translate(_SUPERSCRIPTS).strip("{}() ")
    if len(cleaned.lstrip("+-").lstrip("0")) > _MAX_EXPONENT_DIGITS:
        raise AnswerFormatError(say("the exponent in %(answer)s is out of range", answer=q))
    return int(cleaned)


def _strip_scale(body: str, q: str) -> tuple[str, int, bool]:
    """Remove percent, suffix and exponent; return the mantissa, the power of ten, and 'plain'."""
    shift, plain = 0, True
    if body.endswith("%"):
        body, shift, plain = body[:-1].rstrip(), -2, False
    elif suffix := _SUFFIX.search(body):
        word = suffix.group(1)
        body, plain = body[: suffix.start()], False
        shift = _SUFFIX_POWERS[word.lower()]
    if exponent := _E_EXPONENT.search(body) or _TEN_EXPONENT.search(body):
        text = exponent.group(1) or exponent.group(2) or ""
        body, plain = body[: exponent.start()], False
        shift += _exponent(text, q)
    return body.strip(), shift, plain


def _grouped(text: str, q: str) -> str:
    """Digits of an integer part written with thousands separators; groups must be exact."""
    kinds = {c for c in text if not c.isdigit()}
    if len(kinds) != 1:
        raise _unreadable(q, say("it mixes different separators"))
    sep = kinds.pop()
    groups = text.split(sep)
    first = groups[0]
    if 1 <= len(first) <= 3 and first[0] != "0" and all(len(g) == 3 for g in groups[1:]):
        return "".join(groups)
    if sep in ".,":
        raise _unreadable(q, say("it has more than one decimal separator (thousands groups need 3 digits)"))
    if sep == " ":
        raise _unreadable(q, say("digits grouped with spaces need groups of exactly 3 digits"))
    raise _unreadable(q, say("digits grouped with apostrophes need groups of exactly 3 digits"))


def _single_separator(whole: str, frac: str, sep: str, q: str, integer_plain: bool) -> tuple[str, int]:
    if sep == "," and looks_like_thousands(whole, frac) and integer_plain:
        return whole + frac, 0
    if sep == "," and not (whole and frac):
        raise _unreadable(q, say("a decimal comma needs digits on both sides"))
    return (whole or "0") + frac, len(frac)


def _read_mantissa(text: str, q: str, integer_plain: bool) -> tuple[str, int]:
    """Digits and the count of decimal places."""
    text = re.sub(" +", " ", text)
    if not _MANTISSA.fullmatch(text) or not any(c.isdigit() for c in text):
        raise _unreadable(q)
    seps = [c for c in text if not c.isdigit()]
    if not seps:
        return text, 0
    last = seps[-1]
    if last in ".," and seps.count(last) == 1:
        whole, frac = text.split(last)
        if len(set(seps)) == 1:
            return _single_separator(whole, frac, last, q, integer_plain)
        if not frac:
            raise _unreadable(q)
        return _grouped(whole, q) + frac, len(frac)
    return _grouped(text, q), 0


def _build(negative: bool, digits: str, exponent: int, q: str) -> _Reading:
    exact = Decimal(f"{'-' if negative else ''}{digits}E{exponent}")
    value, resolution = float(exact), float(Decimal(f"1E{exponent}"))
    finite = math.isfinite(value) and math.isfinite(resolution)
    if not finite or resolution == 0.0 or (value == 0.0 and exact != 0):
        raise AnswerFormatError(say("%(answer)s is too large or too small to grade", answer=q))
    return _Reading(Number(value, resolution), exact)


def _read(text: str, integer: bool = False) -> _Reading:
    s = normalize(text).strip()
    if plain := _PLAIN_DECIMAL.fullmatch(s):
        places = len(plain.group(1) or "")
        return _Reading(Number(float(s), float(f"1e-{places}")), Decimal(s))
    return _read_any(s, text, integer)


def _read_any(s: str, text: str, integer: bool) -> _Reading:
    """Every accepted syntax: signs, separators, exponents, suffixes, percentages, fractions."""
    if not s:
        raise AnswerFormatError(say("enter a number"))
    q = quote(text)
    if len(s) > MAX_NUMBER_CHARS:
        raise AnswerFormatError(say("%(answer)s is too long to be a number", answer=q))
    negative, body = _split_sign(s, q)
    if body.lower() in _NON_FINITE:
        raise AnswerFormatError(say("enter a finite number, not %(answer)s", answer=q))
    if fraction := _FRACTION.fullmatch(body):
        return _read_fraction(fraction, negative, q)
    mantissa, shift, plain = _strip_scale(body, q)
    digits, places = _read_mantissa(mantissa, q, integer and plain)
    return _build(negative, digits, shift - places, q)


def parse_number(text: str) -> Number:
    """Parse a real number in any accepted syntax."""
    return _read(text).number


def parse_fraction(text: str) -> Number:
    """Parse a fraction, decimal or percentage (the parse_number grammar; '2/3' is exact)."""
    return parse_number(text)


def _is_whole(exact: Decimal | Fraction) -> bool:
    if isinstance(exact, Fraction):
        return exact.denominator == 1
    return exact == exact.to_integral_value()


# Below this a whole number has no k/M/B form it could have been rounded to ("41.9M").
SUFFIX_FREE = 1000


def small_count(value: float) -> bool:
    """Whether a whole number is too small in size for any suffix (k, M, B) to have rounded it."""
    return abs(value) < SUFFIX_FREE


def parse_integer(text: str) -> Number:
    """Parse a whole number; '1,234' reads as 1234 here, and suffixes apply first ('41.9M')."""
    reading = _read(text, integer=True)
    if not _is_whole(reading.exact):
        s = normalize(text).strip()
        if dotted := re.fullmatch(r"[+-]?([1-9][0-9]{0,2})\.([0-9]{3})", s):
            raise AnswerFormatError(say(
                "%(answer)s is not a whole number (if the '.' separates thousands, write %(whole)s)",
                answer=quote(text), whole=dotted.group(1) + dotted.group(2),
            ))  # fmt: skip
        raise AnswerFormatError(say("%(answer)s is not a whole number", answer=quote(text)))
    return reading.number
