"""The self-check of a code exercise, on the cases of each seed, graded by the verdict learners get:

- the reference's outputs, moved by float rounding (ROUNDING of their size), pass: a tolerance of
  0 would fail a correct function that adds in another order;
- each listed mistake's outputs fail under its own name even at MARGIN times the tolerance: a
  mistake that only just fails on the seeds checked may pass on a learner's;
- a note names each mistake that passes some hidden cases at the exercise's own tolerance: those cases
  do not test it, and under `scoring: fraction` a learner who makes it gets their credit. Some mistakes
  show only at an edge (ε left out matters only for a row of near-constant values), so this is a note
  for the author, not a failure.

Only the task's own functions run here (trusted code, as in prepare); no learner code does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from grader.catalog.draw_check import check_draws, random_seeds
from grader.catalog.selfcheck import SELF_CHECK_SEEDS, SelfCheckReport, stray_dollars
from grader.catalog.spec import ExerciseSpec
from grader.codecheck.compare import WithChanges, compare
from grader.codecheck.prepare import PREPARE_SECONDS, Prepared, prepare
from grader.codecheck.spec import FORMULA_TASK, CodeExerciseSpec
from grader.formulas.budget import time_budget
from grader.formulas.expression import FormulaError
from grader.codecheck.verdict import grade
from grader.sandbox.results import CaseRun, RunResult
from grader.texts import Text, joined, say, say_n

# Fewer seeds than a numeric exercise's 20: a seed of a whole block's cases, with every mistake
# graded, takes about 0.1 s. MARGIN makes up for the seeds not checked.
CODE_SELF_CHECK_SEEDS = 5
MARGIN = 10
ROUNDING = 1e-9
NOTE_EXAMPLES = 3  # hidden cases a note names; the count says how many more
# The save check gives a formula reference this share of a submission's budget for one seed's cases.
SAVE_SECONDS = PREPARE_SECONDS / 2


def returning(values: Sequence[Any]) -> RunResult:
    """A completed run in which the function returned `values`, one per case."""
    return RunResult("completed", [CaseRun("ok", value, None, 0.0) for value in values], "", "", 0.0)


def rounded(value: Any) -> Any:
    """`value` with every float moved by ROUNDING of its size, as a correct function's may differ."""
    if isinstance(value, WithChanges):
        return WithChanges(rounded(value.returned), rounded(dict(value.after)))
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value * (1 + ROUNDING)
    if isinstance(value, float):
        return value * (1 + ROUNDING)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(rounded(item) for item in value)
    return value


def _loosened(spec: CodeExerciseSpec) -> CodeExerciseSpec:
    tolerance = spec.tolerance.model_copy(update={"rtol": spec.tolerance.rtol * MARGIN,
                                                  "atol": spec.tolerance.atol * MARGIN})  # fmt: skip
    return spec.model_copy(update={"tolerance": tolerance})


@dataclass
class _Passes:
    """Over the seeds checked: how many hidden cases a mistake was graded on, and the (seed, case) it passed."""

    hidden: int = 0
    passed: list[tuple[int, str]] = field(default_factory=list)

    def note(self, exercise: str, mistake: str, seeds: Text) -> Text:
        """The note on a mistake that passed some hidden cases, with a few of them."""
        shown = [say("seed %(seed)d %(case)s", seed=seed, case=case) for seed, case in self.passed[:NOTE_EXAMPLES]]
        more = [Text(", ...")] if len(self.passed) > NOTE_EXAMPLES else []
        # The count that picks the plural form is the hidden cases' ("1 of 10 hidden cases").
        return say_n("%(exercise)s: mistake %(mistake)s passes %(passed)d of %(num)d hidden case %(seeds)s "
                     "(%(shown)s); that case does not test it",
                     "%(exercise)s: mistake %(mistake)s passes %(passed)d of %(num)d hidden cases %(seeds)s "
                     "(%(shown)s); those cases do not test it", self.hidden, exercise=exercise, mistake=mistake,
                     passed=len(self.passed), seeds=seeds, shown=joined([joined(shown, ", "), *more], ""))  # fmt: skip


def _hidden_passes(spec: CodeExerciseSpec, seed: int, prepared: Prepared, passes: dict[str, _Passes]) -> None:
    """Tally, per listed mistake, the hidden cases of this seed its outputs pass at the exercise's tolerance."""
    tolerance = spec.tolerance
    for mistake, outputs in prepared.mutant_outputs.items():
        tally = passes.setdefault(mistake, _Passes())
        for case, expected, output in zip(prepared.cases, prepared.expected, outputs):
            if not case.visible:
                tally.hidden += 1
                if compare(expected, output, tolerance.rtol, tolerance.atol) is None:
                    tally.passed.append((seed, case.name))


def _check_seed(spec: CodeExerciseSpec, loose: CodeExerciseSpec, seed: int, report: SelfCheckReport,
                passes: dict[str, _Passes]) -> None:  # fmt: skip
    prepared = prepare(spec, seed)
    _hidden_passes(spec, seed, prepared, passes)
    report.variants += 1
    result = _graded(spec, prepared, [rounded(value) for value in prepared.expected])
    report.checks += 1
    if result.status != "passed":
        report.failures.append(f"{spec.id} seed {seed}: the reference's outputs, moved by float rounding "
                               f"({ROUNDING:g} of their size) -> {result.status}: {result.message}")  # fmt: skip
    for mistake, outputs in prepared.mutant_outputs.items():
        result = _graded(loose, prepared, outputs)
        report.checks += 1
        if (result.status, result.misconception) != ("failed", mistake):
            report.failures.append(f"{spec.id} seed {seed}: mistake {mistake} at {MARGIN} times the tolerance "
                                   f"-> {result.status}, named {result.misconception}")  # fmt: skip


def _graded(spec: CodeExerciseSpec, prepared: Prepared, outputs: Sequence[Any]) -> Any:
    task = spec.task_object
    return grade(spec, task, prepared.cases, prepared.expected, prepared.mutant_outputs, returning(outputs))


def check_code_spec(spec: CodeExerciseSpec, seeds: Iterable[int]) -> SelfCheckReport:
    """Self-check one code exercise on the cases of the given seeds."""
    report = SelfCheckReport(exercises=1, failures=stray_dollars(spec.id, spec.texts()))
    loose = _loosened(spec)
    passes: dict[str, _Passes] = {}
    checked = list(seeds)
    for seed in checked:
        _check_seed(spec, loose, seed, report, passes)
    first, last = min(checked, default=0), max(checked, default=0)
    span = (say("at seed %(seed)d", seed=first) if len(checked) == 1
            else say("at seeds %(first)d to %(last)d", first=first, last=last))  # fmt: skip
    report.notes.extend(tally.note(spec.id, name, span) for name, tally in passes.items() if tally.passed)
    return report


def check_formula_cases(spec: CodeExerciseSpec, seeds: Iterable[int], seconds: float = SAVE_SECONDS) -> list[str]:
    """Why a `task: formula` reference would fail learners at `seeds` (its formulas cannot be computed for
    the drawn inputs, or take more than `seconds` for one seed's cases); empty for other tasks. Stops at
    the first seed that fails."""
    if spec.task != FORMULA_TASK:
        return []
    for seed in seeds:
        try:
            with time_budget(seconds):
                prepare(spec, seed)
        except FormulaError as error:
            return [f"{spec.id} seed {seed}: {error}"]
    return []


def check_formula_draws(spec: ExerciseSpec | CodeExerciseSpec) -> list[str]:
    """The save check's tries of an instructor's formulas, at the self-check's fixed seeds and as many
    random ones, each within its save budget (check_draws, check_formula_cases); empty for built-in models
    and tasks."""
    if isinstance(spec, CodeExerciseSpec):
        return check_formula_cases(spec, [*range(CODE_SELF_CHECK_SEEDS), *random_seeds(CODE_SELF_CHECK_SEEDS)])
    return check_draws(spec, [*range(SELF_CHECK_SEEDS), *random_seeds(SELF_CHECK_SEEDS)])
