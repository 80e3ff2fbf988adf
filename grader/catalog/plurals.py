"""Plural words in exercise texts, by each language's CLDR plural rules (through Babel).

A number's noun is written after it as `{{name|one:byte|other:bytes}}`: the placeholder prints no
number, only the word for the plural category of the number `{{name}}` prints (131 072 → "байта",
0,124 → "bilhão"). Each language names every category its rules have (en: one, other; pt: one, many,
other; ru: one, few, many, other); one word may serve several, as in `many,other:bilhões`.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Mapping

from babel import Locale, UnknownLocaleError
from babel.plural import PluralRule

from grader.texts import Text, say

PLURAL = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\|([^{}]*)\}\}")


@lru_cache(maxsize=32)
def rule(locale: str) -> PluralRule:
    """`locale`'s plural rule (CLDR's); a language Babel does not know has only "other"."""
    try:
        return Locale.parse(locale).plural_form
    except (UnknownLocaleError, ValueError):
        return PluralRule({})


def categories(locale: str) -> frozenset[str]:
    """The plural categories `locale`'s rules use ("other" always among them)."""
    return frozenset(rule(locale).tags) | {"other"}


def forms(written: str) -> dict[str, str]:
    """The words of a plural placeholder by category ("one:byte|other:bytes" -> {one: byte, other: bytes})."""
    found: dict[str, str] = {}
    for piece in written.split("|"):
        names, _, word = piece.partition(":")
        for name in names.split(","):
            found[name.strip()] = word.strip()
    return found


def plural_problems(text: str, locale: str, known: set[str]) -> list[Text]:
    """Why the plural words of a text in `locale` cannot be chosen: an unknown number, a category missing or unknown."""
    problems = []
    wanted = categories(locale)
    for match in PLURAL.finditer(text):
        name, given = match.group(1), forms(match.group(2))
        where = "{{" + name + "|…}}"
        if name not in known:
            problems.append(say("placeholder %(placeholder)s names no parameter or quantity", placeholder=where))
        if set(given) != wanted or not all(given.values()):
            problems.append(say("plural %(placeholder)s in %(locale)s needs a word for each of %(categories)s "
                                "(as category:word, parted by |)", placeholder=where, locale=locale,
                                categories=", ".join(sorted(wanted))))  # fmt: skip
    return problems


def category(printed: str, decimal: str, locale: str) -> str:
    """The plural category of a number as printed (its decimal mark `decimal`; 0,124 keeps its three digits)."""
    digits = re.sub(r"[^0-9" + re.escape(decimal) + "]", "", printed).replace(decimal, ".")
    try:
        number = Decimal(digits)
    except InvalidOperation:  # not one number (a vector): its plural is the general one
        return "other"
    return str(rule(locale)(number))


def put_words(text: str, shown: Mapping[str, str], decimal: str, locale: str) -> str:
    """The text with each plural placeholder replaced by the word for the number its name prints."""

    def word(match: re.Match[str]) -> str:
        given = forms(match.group(2))
        return given.get(category(shown[match.group(1)], decimal, locale), given.get("other", ""))

    return PLURAL.sub(word, text)
