"""Exercise files: strict validation, errors as file: field: message, YAML number pitfalls."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from grader.catalog.loader import load_specs, parse_yaml, spec_from_text
from grader.catalog.selfcheck import check_spec
from grader.markup import STRAY_DOLLAR

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
GOOD = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
RESIDUAL_MISTAKES = "[no-residual-attention, {name: subtracted-residual, optional: true}]"


def errors_for(text: str) -> list[str]:
    spec, errors = spec_from_text(text, "ex.yaml")
    assert spec is None
    return [str(e) for e in errors]


def test_the_shipped_catalogue_is_valid() -> None:
    specs, errors = load_specs(EXERCISES)
    assert errors == []
    required = {"block-residual", "block-layernorm", "block-gelu", "block-mlp", "block-output",
                "modern-shapes", "modern-params", "swiglu-width", "ffn-share", "ffn-keys",
                "ffn-edit", "microgpt-params", "microgpt-stations"}  # fmt: skip
    assert required <= {s.id for s in specs}


def test_exponent_without_a_dot_is_read_as_a_float() -> None:
    assert parse_yaml("t: 1e-4")["t"] == 1e-4
    assert yaml.safe_load("t: 1e-4")["t"] == "1e-4"  # the pitfall the custom loader avoids


def test_tolerance_written_as_1e_minus_4_is_accepted() -> None:
    spec, errors = spec_from_text(GOOD.replace("{abs: 0.0005}", "{abs: 1e-4}"), "ex.yaml")
    assert errors == [] and spec is not None
    assert spec.parts[0].tolerance.rule().value == 1e-4


def test_quoted_number_is_rejected_not_coerced() -> None:
    assert errors_for(GOOD.replace("{abs: 0.0005}", '{abs: "0.0005"}')) == [
        "ex.yaml: parts.0.tolerance.abs: Input should be a valid number"
    ]


def test_unknown_key_is_reported_with_its_field() -> None:
    assert errors_for(GOOD.replace("lesson: gpt2-block", "lesson: gpt2-block\ncolour: red")) == [
        "ex.yaml: colour: Extra inputs are not permitted"
    ]


@pytest.mark.parametrize(
    "old, new, field, phrase",
    [
        ("type: vector", "type: tensor", "parts.0", "type must be one of"),
        ("quantity: h", "quantity: hh", "(file)", "quantity must be one of"),
        (RESIDUAL_MISTAKES, "[no-such-mistake]", "parts.0.misconceptions.0", "unknown misconception"),
        (RESIDUAL_MISTAKES, "[full-kv-heads]", "(file)", "cannot compute 'full-kv-heads'"),
        ("model: gpt2-toy", "model: gpt5", "(file)", "model must be one of"),
        ("{abs: 0.0005}", "{abs: 0.0005, rel: 0.1}", "parts.0.tolerance", "exactly one of"),
        ("{{x}}", "{{nope}}", "(file)", "placeholder {{nope}}"),
        ("id: block-residual", "id: Block Residual", "id", "String should match pattern"),
        # The id, lesson and title are database columns too: PostgreSQL refuses longer ones, or a NUL.
        ("id: block-residual", "id: " + "a" * 81, "id", "at most 80 characters"),
        ("lesson: gpt2-block", "lesson: " + "l" * 81, "lesson", "at most 80 characters"),
        ("title: The first residual", "title: " + "T" * 201, "title", "at most 200 characters"),
        ("title: The first residual", 'title: "The first\\0residual"', "title", "one line of text"),
        ("title: The first residual", 'title: "The first\\tresidual"', "title", "one line of text"),
    ],
)
def test_bad_spec_is_reported_per_field(old: str, new: str, field: str, phrase: str) -> None:
    errors = errors_for(GOOD.replace(old, new, 1))
    assert len(errors) == 1
    assert errors[0].startswith(f"ex.yaml: {field}: ")
    assert phrase in errors[0]


def test_broken_yaml_and_non_mapping_files_are_reported() -> None:
    assert errors_for("id: [unclosed")[0].startswith("ex.yaml: (yaml): ")
    assert errors_for("- just a list") == ["ex.yaml: (file): an exercise file must be a mapping"]


def test_duplicate_ids_and_non_utf8_files_are_reported(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "c.yaml").write_bytes(b"id: \xff\xfe")
    specs, errors = load_specs(tmp_path)
    assert specs == []  # which of two files with one id was meant cannot be told
    by_field = {e.field: e for e in errors}
    assert set(by_field) == {"id", "(file)"}
    assert sorted(e.file for e in errors if e.field == "id") == [str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]
    assert "is also the id of" in by_field["id"].message
    assert by_field["(file)"].message == "not valid UTF-8" and by_field["(file)"].file.endswith("c.yaml")


def test_prompt_math_that_does_not_convert_is_rejected() -> None:
    errors = errors_for(GOOD.replace("$h_5 = x_5 + a_5$", r"$h_5 = \frobnicate{x_5}$", 1))
    assert errors == ["ex.yaml: (file): Value error, cannot render $h_5 = \\frobnicate{x_5}$: "
                      "unknown command or misplaced '&'"]  # fmt: skip


def test_a_stray_dollar_is_refused_by_the_self_check_but_a_stored_version_with_one_still_reads() -> None:
    stored = GOOD.replace("Compute the first residual", "Pay $5 and compute the first residual", 1)
    spec, errors = spec_from_text(stored, "ex.yaml")
    assert errors == [] and spec is not None  # saved before the rule: learners can still open it
    assert check_spec(spec, range(2)).failures == [f"block-residual prompt: {STRAY_DOLLAR}"]
    escaped, _ = spec_from_text(stored.replace("Pay $5", "Pay \\$5"), "ex.yaml")
    assert escaped is not None and check_spec(escaped, range(2)).failures == []
