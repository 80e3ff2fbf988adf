"""Exercises in other languages: validated like the English text, shown with the variant's numbers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.catalog.loader import load_specs, spec_from_text
from grader.catalog.variants import make_variant
from grader.codecheck.spec import code_spec_from_text, load_code_specs

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
LAYERNORM = (EXERCISES / "gpt2-block" / "block-layernorm.yaml").read_text(encoding="utf-8")
CODE_GELU = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
WITHOUT = LAYERNORM[: LAYERNORM.index("translations:")] if "translations:" in LAYERNORM else LAYERNORM


def with_translation(block: str, source: str = WITHOUT) -> str:
    return source.rstrip("\n") + "\ntranslations:\n" + block


TOY = """  xx:
    title: Toy title
    prompt: |
      Toy prompt with {{x}} and $\\mu$.
    solution: ["one {{mu}}", "two {{sigma}}", "three {{u}}"]
"""


def test_a_translation_is_filled_with_the_same_numbers() -> None:
    spec, errors = spec_from_text(with_translation(TOY), "t.yaml")
    assert errors == [] and spec is not None
    variant = make_variant(spec, 7)
    assert spec.title_in("xx") == "Toy title" and spec.title_in("zz") == spec.title
    shown_x = re.search(r"\$x_5\$ = (\[[^\]]*\])", variant.prompt).group(1)  # type: ignore[union-attr]
    assert variant.prompt_in("xx").startswith(f"Toy prompt with {shown_x} and ")
    assert variant.prompt_in("zz") == variant.prompt  # no translation: as written
    assert len(variant.solution_in("xx")) == 3 and variant.solution_in("xx")[0].startswith("one ")
    assert variant.solution_in("zz") == variant.solution


def test_a_translation_may_leave_fields_out() -> None:
    spec, errors = spec_from_text(with_translation("  xx:\n    title: Only a title\n"), "t.yaml")
    assert errors == [] and spec is not None
    variant = make_variant(spec, 3)
    assert variant.prompt_in("xx") == variant.prompt and variant.solution_in("xx") == variant.solution


@pytest.mark.parametrize("block, phrase", [
    ("  xx:\n    prompt: 'Uses {{nothing}}.'\n", "placeholder {{nothing}} names no parameter or quantity"),
    ("  xx:\n    solution: ['just one step']\n", "translations.xx: the solution needs 3 steps, as in English"),
    ("  XX:\n    title: Shouting\n", "translations.XX.[key]"),
    ("  xx:\n    prompt: 'Bad math $\\frobnicate{x}$.'\n", "cannot render"),
    ("  xx:\n    title: ''\n", "translations.xx.title"),
    ("  xx:\n    hint: 'no such field'\n", "translations.xx.hint"),
    ("  xx:\n    labels: {mu: média, nope: nada}\n", "translations.xx.labels: no part has the id 'nope'"),
    ("  xx:\n    labels: {mu: ''}\n", "translations.xx.labels.mu"),
    ("  xx:\n    labels: {mu: '   '}\n", "translations.xx.labels.mu"),
])  # fmt: skip
def test_a_bad_translation_is_refused_with_its_reason(block: str, phrase: str) -> None:
    spec, errors = spec_from_text(with_translation(block), "t.yaml")
    assert spec is None and any(phrase in str(e) for e in errors), errors


def test_a_translated_label_replaces_the_english_one_and_the_others_stay_as_written() -> None:
    spec, errors = spec_from_text(with_translation("  xx:\n    labels: {u: 'u′₅ normalizado'}\n"), "t.yaml")
    assert errors == [] and spec is not None
    assert spec.label_in("u", "xx") == "u′₅ normalizado"
    assert spec.label_in("mu", "xx") == "μ" and spec.label_in("u", "zz") == "u′₅"  # not translated: as written
    variant = make_variant(spec, 5)
    assert variant.part("u").label_in("xx") == "u′₅ normalizado" and variant.part("u").label_in("zz") == "u′₅"
    assert variant.part("mu").label_in("xx") == "μ"
    with pytest.raises(KeyError):
        spec.label_in("nope", "xx")


# The labels an accessibility audit found shown in English on Portuguese and Russian pages.
AUDITED_LABELS = [("microgpt-params", "attention"), ("microgpt-params", "total"), ("microgpt-params", "outside_share"),
                  ("modern-params", "block"), ("modern-params", "model"), ("ffn-keys", "active")]  # fmt: skip


def test_the_shipped_labels_are_translated_into_both_page_languages() -> None:
    numeric, errors = load_specs(EXERCISES)
    assert errors == []
    specs = {s.id: s for s in numeric}
    missing = [(e, p, locale) for e, p in AUDITED_LABELS for locale in ("pt", "ru")
               if p not in specs[e].translations[locale].labels]  # fmt: skip
    assert missing == []
    assert specs["microgpt-params"].label_in("outside_share", "pt") == "parcela fora dos blocos"
    assert specs["modern-params"].label_in("model", "ru") == "L блоков"
    one_sided = [s.id for s in numeric if set(s.translations["pt"].labels) != set(s.translations["ru"].labels)]
    assert one_sided == []


def test_code_exercises_take_a_title_and_a_prompt_only() -> None:
    good = with_translation("  xx:\n    title: Escreva a GELU\n    prompt: Escreva `gelu(z)`.\n", CODE_GELU)
    spec, errors = code_spec_from_text(good, "c.yaml")
    assert errors == [] and spec is not None
    assert (spec.title_in("xx"), spec.prompt_in("xx"), spec.title_in("zz")) == ("Escreva a GELU", "Escreva `gelu(z)`.",
                                                                               "Write GELU")  # fmt: skip
    spec, errors = code_spec_from_text(with_translation("  xx:\n    solution: ['no']\n", CODE_GELU), "c.yaml")
    assert spec is None and any("translations.xx.solution" in str(e) for e in errors)
    spec, errors = code_spec_from_text(with_translation("  xx:\n    labels: {source: código}\n", CODE_GELU), "c.yaml")
    assert spec is None and any("translations.xx.labels" in str(e) for e in errors)


def test_every_shipped_exercise_is_translated_into_the_pages_languages() -> None:
    (numeric, errors), (code, code_errors) = load_specs(EXERCISES), load_code_specs(EXERCISES)
    assert errors == [] and code_errors == [] and len(numeric) + len(code) == len(list(EXERCISES.glob("*/*.yaml")))
    missing = [(s.id, locale) for s in [*numeric, *code] for locale in ("pt", "ru")
               if locale not in s.translations or not s.translations[locale].prompt]  # fmt: skip
    assert missing == []


@pytest.mark.parametrize("block, field, phrase", [
    ("  xx:\n    prompt: 'Uses {{nothing}}.'\n", "translations.xx.prompt",
     "placeholder {{nothing}} names no parameter or quantity"),
    ("  xx:\n    solution: ['one', 'two {{nothing}}', 'three']\n", "translations.xx.solution.1",
     "placeholder {{nothing}} names no parameter or quantity"),
    ("  xx:\n    solution: ['one', 'two', 'Bad math $\\frobnicate{x}$.']\n", "translations.xx.solution.2", "cannot render"),
])  # fmt: skip
def test_a_problem_in_a_translated_text_is_reported_at_that_text(block: str, field: str, phrase: str) -> None:
    spec, errors = spec_from_text(with_translation(block), "t.yaml")
    assert spec is None and len(errors) == 1, errors
    assert errors[0].field == field and errors[0].message.startswith(phrase)  # the language named, not the English
