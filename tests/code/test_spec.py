"""Code exercise files: strict validation, `file: field: message` errors, `kind: code` only."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.catalog.loader import is_code_source
from grader.codecheck.spec import code_spec_from_text, load_code_specs
from tests.code.support import EXERCISES

GOOD = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
REQUIRED = {"code-layer-norm", "code-gelu", "code-causal-attention", "code-gpt2-block",
            "code-rmsnorm", "code-swiglu", "code-microgpt", "code-param-count"}  # fmt: skip
VALUE = "Value error, "


def errors_for(text: str) -> list[str]:
    spec, errors = code_spec_from_text(text, "ex.yaml")
    assert spec is None
    return [str(e) for e in errors]


def test_the_shipped_code_exercises_are_valid_and_numeric_files_are_skipped() -> None:
    specs, errors = load_code_specs(EXERCISES)
    assert errors == []
    assert {s.id for s in specs} == REQUIRED
    assert {s.lesson for s in specs} == {"code"}
    assert sorted(s.position for s in specs) == list(range(1, 9))


def test_the_good_file_parses() -> None:
    spec, errors = code_spec_from_text(GOOD, "ex.yaml")
    assert errors == [] and spec is not None
    assert (spec.task, spec.scoring, spec.tolerance.rtol) == ("gelu", "fraction", 1e-5)


@pytest.mark.parametrize(
    "old, new, expected",
    [
        ("task: gelu", "task: gelu\ncolour: red", "colour: Extra inputs are not permitted"),
        ("task: gelu", "task: softmax", f"task: {VALUE}task must be one of layer-norm, "),
        ("relu, rounded", "relu, leaky-relu, rounded",
         f"mutants: {VALUE}task gelu has no mutant 'leaky-relu'; it has erf-gelu, relu"),
        ("[erf-gelu, relu,", "[erf-gelu, erf-gelu, relu,", f"mutants: {VALUE}mutant names must be unique"),
        ("visible_cases: 4", "visible_cases: 5", f"visible_cases: {VALUE}task gelu has only 4 visible"),
        ("def gelu(z):", "def gelu(x):", f"stub: {VALUE}stub must define gelu(z); it defines gelu(x)"),
        ("def gelu(z):", "def gelu(z, *rest):", f"stub: {VALUE}stub must define gelu(z); it defines"),
        ("def gelu(z):", "def gelu_tanh(z):", f"stub: {VALUE}stub must define gelu(z) at the top level"),
        ("def gelu(z):", "def gelu(z)", f"stub: {VALUE}stub is not valid Python: line 4: "),
        ("{random: 8}", "{random: 8, seed: 3}", "cases.seed: Extra inputs are not permitted"),
        ("{random: 8}", "{random: -1}", "cases.random: Input should be greater than or equal to 0"),
        ("{random: 8}", '{random: "8"}', "cases.random: Input should be a valid integer"),
        ("atol: 1e-8", 'atol: "1e-8"', "tolerance.atol: Input should be a valid number"),
        ("atol: 1e-8", "atol: .nan", "tolerance.atol: Input should be a finite number"),
        ("rtol: 1e-5", "rtol: .inf", "tolerance.rtol: Input should be a finite number"),
        ("rtol: 1e-5", "rtol: 2", "tolerance.rtol: Input should be less than or equal to 1"),
        ("{random: 8}", "{random: 8, seed_offset: 99999999999999999999}",
         "cases.seed_offset: Input should be less than or equal to 2147483647"),
        ("scoring: fraction", "scoring: best", "scoring: Input should be 'fraction' or 'all'"),
        ("id: code-gelu", "id: Code Gelu", "id: String should match pattern"),
        ("Write `gelu(z)`", "Write $\\frac{1}{$ `gelu(z)`", f"prompt: {VALUE}cannot render"),
    ],
)
def test_bad_spec_is_reported_as_file_field_message(old: str, new: str, expected: str) -> None:
    assert old in GOOD
    errors = errors_for(GOOD.replace(old, new, 1))
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"ex.yaml: {expected}")


def test_missing_required_fields_are_each_reported() -> None:
    text = "id: code-x\ntitle: X\nlesson: code\nkind: code\n"
    fields = {e.split(": ")[1] for e in errors_for(text)}
    assert fields == {"task", "prompt", "stub", "cases", "tolerance"}


def test_broken_yaml_and_non_mapping_files_are_reported() -> None:
    assert errors_for("id: [unclosed")[0].startswith("ex.yaml: (yaml): ")
    assert errors_for("- a list") == ["ex.yaml: (file): an exercise file must be a mapping"]


def test_only_kind_code_files_are_code_exercises() -> None:
    assert is_code_source("id: x\nkind: code\n")
    assert not is_code_source("id: x\nkind: numeric\n") and not is_code_source("id: x\n")
    assert not is_code_source("- kind\n- code\n") and not is_code_source("kind: [unclosed")


def test_loader_skips_other_files_and_reports_errors_and_duplicates(tmp_path: Path) -> None:
    (tmp_path / "numeric.yaml").write_text("id: numeric\nmodel: gpt2-toy\n", encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("id: [unclosed", encoding="utf-8")
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(GOOD.replace("task: gelu", "task: nope"), encoding="utf-8")
    specs, errors = load_code_specs(tmp_path)
    assert specs == []  # a and b share an id (neither is loaded); c is invalid
    assert [str(e) for e in errors] == [
        f"{tmp_path / 'c.yaml'}: task: {VALUE}task must be one of layer-norm, gelu, "
        "causal-attention, gpt2-block, rms-norm, swiglu, microgpt, param-count, formula",
        f"{tmp_path / 'a.yaml'}: id: 'code-gelu' is also the id of {tmp_path / 'b.yaml'}; neither file is loaded "
        "until one is renamed",
        f"{tmp_path / 'b.yaml'}: id: 'code-gelu' is also the id of {tmp_path / 'a.yaml'}; neither file is loaded "
        "until one is renamed",
    ]


def test_a_single_file_can_be_loaded(tmp_path: Path) -> None:
    path = tmp_path / "one.yml"
    path.write_text(GOOD, encoding="utf-8")
    specs, errors = load_code_specs(path)
    assert errors == [] and [s.id for s in specs] == ["code-gelu"]
