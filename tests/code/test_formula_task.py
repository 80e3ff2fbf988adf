"""Code exercises whose reference, mistakes and inputs are formulas (task: formula): read, refused at the
right place, and self-checked like the built-in tasks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grader.codecheck.selfcheck import check_code_spec
from grader.codecheck.spec import code_spec_from_text

SOURCE = (Path(__file__).parent / "formula_examples" / "code-softmax.yaml").read_text(encoding="utf-8")


def errors_for(text: str) -> list[str]:
    spec, errors = code_spec_from_text(text, "ex.yaml")
    assert spec is None
    return [f"{e.field}: {e.message}" for e in errors]


def test_the_formula_task_has_the_files_function_cases_and_mistakes() -> None:
    spec, errors = code_spec_from_text(SOURCE, "ex.yaml")
    assert errors == [] and spec is not None
    task = spec.task_object
    assert (task.function, task.params, list(task.mutants)) == ("softmax", ("x",), ["no-max-subtraction", "unnormalised"])
    cases = task.cases(np.random.default_rng(3), 4)
    assert [c.name for c in cases[:2]] == ["small-scores", "large-scores"] and all(c.visible for c in cases[:2])
    assert len(cases) == 6 and not any(c.visible for c in cases[2:])
    large = task.reference(**cases[1].kwargs)
    assert np.allclose(large, np.exp([-2.0, -1.0, 0.0]) / np.exp([-2.0, -1.0, 0.0]).sum())
    assert np.isnan(task.mutants["no-max-subtraction"].compute(**cases[1].kwargs)).all()  # it overflows
    assert check_code_spec(spec, range(5)).failures == []


@pytest.mark.parametrize("change, says", [
    (("    p: exp(x - m) / sum(exp(x - m))", "    p: x.__class__"), "reference.compute.p: '.__class__' is not allowed"),
    (("  args: [x]", "  args: [y]"), "list the inputs"),
    (("  returns: p", "  returns: q"), "name a step of compute"),
    (("mutants: [no-max-subtraction, unnormalised]", "mutants: [no-max-subtraction, typo]"), "has no 'typo'"),
    (("task: formula", "task: gelu"), "stub must define gelu(z)"),  # a built-in task: the reference is not read
    (("    large-scores: {x: [1000.0, 1001.0, 1002.0]}", "    large-scores: {y: [1.0]}"), "give each input"),
])  # fmt: skip
def test_a_broken_reference_is_refused_with_its_reason(change: tuple[str, str], says: str) -> None:
    errors = errors_for(SOURCE.replace(*change, 1))
    assert any(says in e for e in errors), errors


def test_the_selfcheck_notes_a_mistake_that_passes_hidden_cases() -> None:
    spec, errors = code_spec_from_text(SOURCE, "ex.yaml")
    assert errors == [] and spec is not None
    report = check_code_spec(spec, range(2))
    # Scores in [-5, 5] never overflow exp(): leaving out the maximum changes nothing there; only the edge case
    # of large scores shows it. The unnormalised exponentials fail every case, so they get no note.
    assert report.failures == []
    assert list(map(str, report.notes)) == [
        "code-softmax-demo: mistake no-max-subtraction passes 12 of 12 hidden cases at seeds 0 to 1 (seed 0 random-1, "
        "seed 0 random-2, seed 0 random-3, ...); those cases do not test it"]  # fmt: skip
    wide = SOURCE.replace("x: {shape: [6], random: {low: -5.0, high: 5.0, decimals: 2}}",
                          "x: {shape: [6], random: {low: 710.0, high: 714.0, decimals: 2}}")  # fmt: skip
    spec, errors = code_spec_from_text(wide, "ex.yaml")
    assert errors == [] and spec is not None
    assert check_code_spec(spec, [4]).notes == []  # every hidden case overflows without the maximum now
