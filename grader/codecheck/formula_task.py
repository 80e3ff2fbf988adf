"""`task: formula`: a code task whose reference, mistakes and inputs are written in the exercise file, so an
instructor adds a code exercise without Python. The reference is a formula program (grader.formulas) run
on the host, never in the sandbox; the learner's function is called with the same inputs there.

    reference:
      function: softmax            # the function learners write, and its arguments in order
      args: [x]
      returns: p                   # the step whose value the function must return
      compute: {m: max(x), p: exp(x - m) / sum(exp(x - m))}
      mistakes:
        no-max-subtraction: {title: the maximum not subtracted (it overflows), replace: {m: 0}}
      inputs:                      # how hidden cases are drawn, as an exercise's params
        x: {shape: [6], random: {low: -5.0, high: 5.0, decimals: 2}}
      edge_cases:                  # named cases whose inputs are shown when they fail
        large-scores: {x: [1000.0, 1001.0, 1002.0]}
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import numpy as np
from pydantic import Field

from grader.catalog.formula_model import FormulaMistake, FormulaText, formula_program
from grader.catalog.fields import ParamSpec, Slug
from grader.catalog.strict import Strict
from grader.catalog.draws import draw_param
from grader.codecheck.base import Case, Mutant, Task, edge, hidden
from grader.formulas.program import Program
from grader.texts import Refusal

MAX_EDGE_CASES = 20


class FormulaReference(Strict):
    """A code task written as formulas: the function's name and arguments, its computation and its inputs."""

    function: str = Field(pattern=r"^[a-z_][a-z0-9_]*$", max_length=40)
    args: list[str] = Field(min_length=1, max_length=8)
    returns: str = Field(max_length=80)  # a step of compute (checked in program(), which checks names too)
    compute: dict[str, FormulaText] = Field(min_length=1)
    mistakes: dict[Slug, FormulaMistake] = {}
    inputs: dict[str, ParamSpec] = Field(min_length=1)
    edge_cases: dict[Slug, dict[str, Any]] = Field(default={}, max_length=MAX_EDGE_CASES)

    def program(self) -> Program:
        """The checked program (raises ProgramError naming the formula refused)."""
        if self.args != list(self.inputs):
            raise Refusal("reference.args: list the inputs, in their order (%(inputs)s)", inputs=", ".join(self.inputs))
        if self.returns not in self.compute:
            raise Refusal("reference.returns: name a step of compute")
        for name, case in self.edge_cases.items():
            if set(case) != set(self.args):
                raise Refusal("reference.edge_cases.%(name)s: give each input: %(args)s", name=name,
                              args=", ".join(self.args))  # fmt: skip
        return formula_program(self.args, self.compute, self.mistakes, None, None)


def _as_input(value: Any) -> Any:
    return np.asarray(value, dtype=float) if isinstance(value, list) else float(value)


@lru_cache(maxsize=64)
def formula_task(written: str) -> Task:
    """The Task a reference (as JSON) describes; cached, since every case of every grading needs it."""
    reference = FormulaReference.model_validate(json.loads(written))
    program = reference.program()

    def run(mistake: str | None) -> Any:
        return lambda **kwargs: program.run(kwargs, mistake)[reference.returns]

    def cases(rng: np.random.Generator, count: int) -> list[Case]:
        edges = [edge(name, **{k: _as_input(v) for k, v in case.items()}) for name, case in reference.edge_cases.items()]
        drawn = [hidden(i, **{name: draw_param(spec, rng) for name, spec in reference.inputs.items()})
                 for i in range(count)]  # fmt: skip
        return [*edges, *drawn]

    mutants = {name: Mutant(name, mistake.words(name)[0], run(name)) for name, mistake in reference.mistakes.items()}
    return Task(name="formula", function=reference.function, params=tuple(reference.args), reference=run(None),
                cases=cases, mutants=mutants)  # fmt: skip
