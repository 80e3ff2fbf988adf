"""Per-submission cases and their expected outputs, computed here and never in the sandbox."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from grader.codecheck.base import Case
from grader.codecheck.compare import WithChanges
from grader.codecheck.spec import CodeExerciseSpec
from grader.formulas.budget import time_budget

# One submission's cases, the reference's and every mistake's outputs on them, share this budget. Only a
# `task: formula` reference (an instructor's formulas) looks at it: the built-in tasks are our own Python.
PREPARE_SECONDS = 2.0


@dataclass(frozen=True)
class Prepared:
    """The cases of one submission, the reference's outputs and each listed mutant's outputs."""

    cases: list[Case]
    expected: list[Any]
    mutant_outputs: dict[str, list[Any]] = field(default_factory=dict)


def case_rng(spec: CodeExerciseSpec, seed: int) -> np.random.Generator:
    """The generator for a submission's cases: the same seed always gives the same cases."""
    if seed < 0:
        raise ValueError("seed must be >= 0")
    return np.random.default_rng([seed, spec.cases.seed_offset])


def cases_for(spec: CodeExerciseSpec, seed: int) -> list[Case]:
    """The cases of `seed`: the task's edge cases (the first visible_cases of them visible), then random ones."""
    return limit_visible(spec.task_object.cases(case_rng(spec, seed), spec.cases.random), spec.visible_cases)


def prepare(spec: CodeExerciseSpec, seed: int) -> Prepared:
    """Generate the cases for `seed` and compute the reference and mutant outputs on them (a formula
    reference raises FormulaError when it cannot, OutOfTime past PREPARE_SECONDS or a shorter open budget)."""
    task = spec.task_object
    cases = cases_for(spec, seed)
    with time_budget(PREPARE_SECONDS):
        expected = [_call(task.reference, case, task.changes) for case in cases]
        outputs = {name: [_call(task.mutants[name].compute, case, task.changes) for case in cases]
                   for name in spec.mutants}  # fmt: skip
    return Prepared(cases, expected, outputs)


def limit_visible(cases: list[Case], visible: int) -> list[Case]:
    """Keep only the first `visible` of the task's visible cases visible; hide the rest."""
    kept: list[Case] = []
    shown = 0
    for case in cases:
        show = case.visible and shown < visible
        shown += show
        kept.append(case if show == case.visible else replace(case, visible=show))
    return kept


def _call(function: Callable[..., Any], case: Case, changes: tuple[str, ...] = ()) -> Any:
    # A fresh copy each time: microGPT appends to its caches, and no call may see another's edits.
    # Mutants divide 0 by 0 or overflow exp() on purpose, so numpy's warnings are noise here.
    kwargs = copy.deepcopy(case.kwargs)
    with np.errstate(all="ignore"):
        returned = function(**kwargs)
    return WithChanges(returned, {name: kwargs[name] for name in changes}) if changes else returned


def sandbox_cases(prepared: Prepared) -> list[dict[str, Any]]:
    """Just the keyword arguments of each case, copied, to send to the sandbox."""
    return [copy.deepcopy(case.kwargs) for case in prepared.cases]
