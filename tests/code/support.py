"""Helpers for the code-exercise tests: the shipped specs and a stand-in for the sandbox."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from grader.codecheck.prepare import Prepared, prepare
from grader.codecheck.results import CodeResult
from grader.codecheck.spec import CodeExerciseSpec, load_code_specs
from grader.codecheck.tasks import get_task
from grader.codecheck.verdict import grade

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
SPECS: dict[str, CodeExerciseSpec] = {s.task: s for s in load_code_specs(EXERCISES)[0]}


@dataclass
class FakeCaseRun:
    """What the sandbox reports for one case (the real one is tested with the sandbox)."""

    status: str = "ok"
    value: Any = None
    error: str | None = None
    duration_ms: float = 1.5
    printed: str = ""
    printed_dropped: int = 0


@dataclass
class FakeRun:
    """What the sandbox reports for a whole run."""

    status: str = "completed"
    cases: list[FakeCaseRun] = field(default_factory=list)
    message: str = ""
    duration_ms: float = 42.0  # the host's own measure of the whole run
    facts: dict[str, Any] = field(default_factory=dict)


def run_of(values: Sequence[Any]) -> FakeRun:
    """A completed run in which every case returned the given value."""
    return FakeRun(cases=[FakeCaseRun(value=v) for v in values])


def grade_values(spec: CodeExerciseSpec, prepared: Prepared, values: Sequence[Any]) -> CodeResult:
    """Grade a run whose outputs are `values`."""
    return grade_run(spec, prepared, run_of(values))


def grade_run(spec: CodeExerciseSpec, prepared: Prepared, run: FakeRun) -> CodeResult:
    """Grade a fake run against prepared cases."""
    task = get_task(spec.task)
    return grade(spec, task, prepared.cases, prepared.expected, prepared.mutant_outputs, run)


def all_mutants(spec: CodeExerciseSpec) -> CodeExerciseSpec:
    """The spec listing every mutant its task has."""
    return spec.model_copy(update={"mutants": list(get_task(spec.task).mutants)})


def prepared_for(task: str, seed: int = 0) -> tuple[CodeExerciseSpec, Prepared]:
    """A shipped spec and its prepared cases for a seed."""
    spec = SPECS[task]
    return spec, prepare(spec, seed)
