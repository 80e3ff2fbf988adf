"""Counts and units in exercise texts take each language's plural form (CLDR through Babel), and the numbers
they print read at the precision asked (issue 30, item 5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.catalog.catalog import Catalog
from grader.catalog.display import fill
from grader.catalog.loader import spec_from_text
from grader.catalog.plurals import categories, category

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def _seed_where(catalog: Catalog, exercise: str, param: str, value: float) -> int:
    """The first seed whose draw gives `param` this value."""
    return next(s for s in range(200) if float(catalog.variant(exercise, s).params[param]) == value)


@pytest.mark.parametrize(("locale", "printed", "expected"), [
    ("ru", "131\u202f072", "few"), ("ru", "8384", "few"), ("ru", "21", "one"), ("ru", "25", "many"),
    ("ru", "0,124", "other"), ("pt", "0,124", "one"), ("pt", "5,67", "other"), ("pt", "2", "other"),
    ("en", "1", "one"), ("en", "1.0", "other"), ("en", "131,072", "other"),
])  # fmt: skip
def test_a_printed_number_has_its_languages_plural_category(locale: str, printed: str, expected: str) -> None:
    assert category(printed, "." if locale == "en" else ",", locale) == expected


def test_russian_counts_in_the_kv_cache_and_the_token_cost(catalog: Catalog) -> None:
    cache = " ".join(catalog.variant("gqa-kv-cache", 0).solution_in("ru"))
    assert "131\u202f072 байта на токен" in cache and "131\u202f072 байт " not in cache
    cost = " ".join(catalog.variant("cost-per-token", 0).solution_in("ru"))
    assert "8384 числа" in cost and "8384 чисел" not in cost
    assert "12576 чисел" in cost  # ...6: the many form
    assert "В microGPT 4192 параметра" in catalog.variant("cost-per-token", 0).prompt_in("ru")


def test_a_fraction_of_a_billion_is_singular_in_portuguese(catalog: Catalog) -> None:
    seed = _seed_where(catalog, "cost-per-token", "N_b", 0.124)
    assert "$N$ = 0,124 bilhão de pesos" in catalog.variant("cost-per-token", seed).prompt_in("pt")
    assert "$N$ = 5,67 bilhões de pesos" in catalog.variant("cost-per-token", 0).prompt_in("pt")


def test_no_english_text_puts_a_before_a_number_it_does_not_know(catalog: Catalog) -> None:
    # "a {{bits}}-bit float" read "a 8-bit float"; an article before a drawn number cannot be right for all.
    for spec in catalog:
        if spec.kind == "numeric":
            english = [t for where, t in spec.texts() if where[0] != "translations"]
            assert not [t for t in english if re.search(r"\b[Aa]n? \{\{", t)], spec.id


def test_one_byte_is_singular_in_each_language(catalog: Catalog) -> None:
    spec = catalog.get("gqa-kv-cache")
    step = {"en": spec.solution[1], **{loc: spec.translations[loc].solution[1] for loc in ("pt", "ru")}}  # type: ignore[index]
    shown = {"bits": "8", "bytes_per": "1", "L": "32", "per_layer": "2048", "per_token": "65\u202f536"}
    assert "float of 8 bits takes 8/8 = 1 byte." in fill(step["en"], shown)
    assert "ocupa 8/8 = 1 byte." in fill(step["pt"], shown, locale="pt")
    assert "65\u202f536 байт на токен" in fill(step["ru"], shown, locale="ru")  # ...36: the many form


def test_a_parameter_and_an_answer_print_at_the_precision_asked(catalog: Catalog) -> None:
    variant = catalog.variant("cost-per-token", 0)
    assert "$N$ = 5.67 billion" in variant.prompt  # one of its choices, as written: not 5.670
    text = " ".join(variant.solution)
    assert "11.3 GFLOP" in text and "11.340" not in text  # 3 significant figures asked
    assert "11.3 + 22.7 = 34.0 GFLOP" in text


def _with(exercise: str, old: str, new: str) -> str:
    text = (EXERCISES / exercise).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


def test_a_plural_missing_one_of_its_languages_categories_is_refused() -> None:
    # Russian has four categories: without "few", 131 072 would read "байт".
    text = _with("modern-block/gqa-kv-cache.yaml", "one:байт|few:байта|many:байт|other:байта", "one:байт|many,other:байт")
    found, errors = spec_from_text(text, "gqa-kv-cache.yaml")
    assert found is None
    assert any("translations.ru" in e.field and "few, many, one, other" in e.message for e in errors), errors
    assert categories("ru") == {"one", "few", "many", "other"}


def test_a_plural_of_an_unknown_number_is_refused() -> None:
    text = _with("microgpt/cost-per-token.yaml", "{{moments|one:number", "{{momentz|one:number")
    found, errors = spec_from_text(text, "cost-per-token.yaml")
    assert found is None and any("{{momentz|…}} names no parameter or quantity" in e.message for e in errors), errors
