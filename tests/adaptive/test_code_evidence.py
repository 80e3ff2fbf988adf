"""What a graded code submission says about the learner's skills (grader.adaptive.evidence.of_code)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from grader.adaptive.evidence import of_code
from grader.codecheck.results import CodeResult
from grader.codecheck.spec import CodeExerciseSpec, any_spec_from_text

BLOCK = Path(__file__).resolve().parents[2] / "exercises" / "code" / "code-gpt2-block.yaml"
AT = datetime(2026, 12, 1, 9, 30)


def block() -> CodeExerciseSpec:
    spec, errors = any_spec_from_text(BLOCK.read_text(encoding="utf-8"), "code-gpt2-block.yaml")
    assert isinstance(spec, CodeExerciseSpec) and not errors and spec.skills == ["residual-stream"]
    return spec


def seen(result: CodeResult) -> list[tuple[str, bool | None, str, str | None]]:
    return [(o.skill, o.correct, o.source, o.mistake) for o in of_code(block(), result, AT)]


def test_passed_code_is_right_on_the_exercises_skills() -> None:
    assert seen(CodeResult("passed", 1.0)) == [("residual-stream", True, "code", None)]


def test_a_named_mistake_counts_against_its_own_skill_not_the_exercises() -> None:
    # A ReLU for the GELU inside the block is a GELU mistake (grader.catalog.skills.MISTAKE_SKILLS).
    assert seen(CodeResult("failed", 0.3, misconception="relu")) == [("gelu", False, "code", "relu")]


def test_a_mistake_the_catalogue_does_not_place_counts_against_the_exercises_skills() -> None:
    assert seen(CodeResult("failed", 0.3, misconception="normalise-x")) == [
        ("residual-stream", False, "code", "normalise-x")]


def test_any_other_failure_is_wrong_on_the_exercises_skills() -> None:
    for status in ("failed", "error", "timeout", "memory_limit"):
        result = CodeResult(status, 0.0)  # type: ignore[arg-type]
        assert seen(result) == [("residual-stream", False, "code", None)], status


def test_code_that_was_not_graded_says_nothing() -> None:
    assert seen(CodeResult("invalid", 0.0)) == []  # no sandbox, a starved host, the grader's fault
    assert seen(CodeResult("error", 0.0, counts=False)) == []  # a syntax error: the code never ran
