"""The self-check of a code exercise: on each seed's cases, the reference's outputs pass and each
listed mistake's outputs fail under its own name, graded by the verdict learners get.

Only the task's own functions run here (trusted code, as in prepare); no learner code does.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from grader.catalog.selfcheck import SelfCheckReport, stray_dollars
from grader.codecheck.prepare import prepare
from grader.codecheck.spec import CodeExerciseSpec
from grader.codecheck.tasks import get_task
from grader.codecheck.verdict import grade
from grader.sandbox.results import CaseRun, RunResult

# Fewer seeds than a numeric exercise's 20: one seed of a whole block's cases takes about 30 ms.
CODE_SELF_CHECK_SEEDS = 5


def returning(values: Sequence[Any]) -> RunResult:
    """A completed run in which the function returned `values`, one per case."""
    return RunResult("completed", [CaseRun("ok", value, None, 0.0) for value in values], "", "", 0.0)


def check_code_spec(spec: CodeExerciseSpec, seeds: Iterable[int]) -> SelfCheckReport:
    """Self-check one code exercise on the cases of the given seeds."""
    report = SelfCheckReport(exercises=1, failures=stray_dollars(spec.id, spec.texts()))
    task = get_task(spec.task)
    for seed in seeds:
        prepared = prepare(spec, seed)
        report.variants += 1
        graded = [(None, prepared.expected), *prepared.mutant_outputs.items()]
        for mistake, outputs in graded:
            result = grade(spec, task, prepared.cases, prepared.expected, prepared.mutant_outputs, returning(outputs))
            report.checks += 1
            if mistake is None and result.status != "passed":
                report.failures.append(f"{spec.id} seed {seed}: the reference's outputs -> {result.status}: "
                                       f"{result.message}")  # fmt: skip
            elif mistake is not None and (result.status, result.misconception) != ("failed", mistake):
                report.failures.append(f"{spec.id} seed {seed}: mistake {mistake} -> {result.status}, "
                                       f"named {result.misconception}")  # fmt: skip
    return report
