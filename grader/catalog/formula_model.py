"""`model: formula`: an exercise that carries its own computation, as formulas (grader.formulas), turned into
a Scenario like the built-in ones, so variants, mistakes, hand routes and the self-check treat it alike.

A mistake is a set of replacements; it may take its words from a named misconception of
grader.catalog.misconceptions (by using its name and giving no title), or bring its own title and hint.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import lru_cache
from typing import Any, Mapping

import numpy as np
from pydantic import Field

from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.catalog.scenarios.base import Params, Quantities, Scenario
from grader.catalog.skipped import skipped_steps
from grader.catalog.strict import Strict
from grader.formulas.expression import FormulaError
from grader.formulas.program import Program, build_program
from grader.texts import Refusal

FORMULA = "formula"
FormulaText = Any  # a line of text, or a number YAML read as one; parse_formula refuses anything else


class FormulaMistake(Strict):
    """A mistake written as replacements of some steps; its words, unless a named misconception has them."""

    title: str | None = Field(default=None, min_length=1, max_length=200)
    hint: str | None = Field(default=None, min_length=1, max_length=1000)
    replace: dict[str, FormulaText] = Field(min_length=1, max_length=20)

    def words(self, name: str) -> tuple[str, str]:
        """The mistake's title and hint: its own, else those of the misconception with its name."""
        known = MISCONCEPTIONS.get(name)
        title = self.title or (known.title if known else None)
        hint = self.hint or (known.hint if known else None)
        if title is None or hint is None:
            raise Refusal("mistakes.%(name)s: give a title and a hint (or use a known mistake's name)", name=name)
        return title, hint


def _plain(value: Any) -> Any:
    """A step's value as the rest of the catalogue expects it: whole floats as ints, 0-d arrays as numbers."""
    array = np.asarray(value)
    if array.ndim == 0:
        number = array.item()
        if isinstance(number, float) and number.is_integer() and abs(number) < 2**53:
            return int(number)
        return number
    return array


def formula_program(params: list[str], compute: Mapping[str, Any], mistakes: Mapping[str, FormulaMistake],
                    hand: Mapping[str, Any] | None, well_posed: list[Any] | None) -> Program:  # fmt: skip
    """The checked program of a formula exercise (raises ProgramError naming the formula refused)."""
    replacements = {name: mistake.replace for name, mistake in mistakes.items()}
    return build_program(params, compute, replacements, hand, well_posed)


def formula_scenario_of(params: list[str], compute: Mapping[str, Any], mistakes: Mapping[str, FormulaMistake],
                        hand: Mapping[str, Any] | None, well_posed: list[Any] | None, graded: list[str],
                        show_hand: bool = False) -> Scenario:  # fmt: skip
    """The Scenario of a formula exercise's fields (built once per distinct computation; raises ProgramError);
    with `show_hand`, its texts print the hand route."""
    written = {"params": params, "compute": compute, "hand": hand, "well_posed": well_posed, "graded": graded,
               "mistakes": {name: m.model_dump(mode="json") for name, m in mistakes.items()}, "show_hand": show_hand}  # fmt: skip
    return scenario_from_json(json.dumps(written, default=str))


@lru_cache(maxsize=256)
def scenario_from_json(written: str) -> Scenario:
    """The Scenario of a formula exercise's computation, written as JSON (cached: built once per text)."""
    data = json.loads(written)
    mistakes = {name: FormulaMistake.model_validate(m) for name, m in (data["mistakes"] or {}).items()}
    program = formula_program(data["params"], data["compute"], mistakes, data["hand"], data["well_posed"])
    scenario = formula_scenario(program, tuple(data["graded"]))
    return replace(scenario, shown_route=1) if data["show_hand"] and program.hand else scenario


def formula_scenario(program: Program, graded: tuple[str, ...]) -> Scenario:
    """A Scenario running `program`; `graded` are the steps parts ask for, which must come out finite."""

    def compute(params: Params, mistake: str | None, hand: Any) -> Quantities:
        return {name: _plain(value) for name, value in program.run(params, mistake, bool(hand)).items()}

    downstream: dict[frozenset[str], frozenset[str]] = {}

    def retrace(params: Params, fixed: Mapping[str, Any], base: Quantities) -> Quantities:
        # Only the steps that read a fixed one (at any remove) change: the others keep their values in base.
        moved = frozenset(fixed)
        if moved not in downstream:
            downstream[moved] = _reading(program, moved)
        kept = {name: base[name] for name in program.steps if name not in downstream[moved]}
        return {name: _plain(value) for name, value in program.run(params, fixed={**kept, **fixed}).items()}

    skipped = skipped_steps(program.steps)
    with_skips = replace(program, mistakes={**program.mistakes, **{s.name: {s.step: s.formula} for s in skipped}})

    def skips(params: Params) -> dict[str, Quantities]:
        found = {}
        for step in skipped:
            try:
                found[step.name] = {n: _plain(v) for n, v in with_skips.run(params, step.name).items()}
            except FormulaError:
                continue  # a formula that cannot run without this piece is no mistake a learner makes
        return found

    return Scenario(
        name=FORMULA, skips=skips, params=program.params, quantities=(*program.params, *program.steps),
        mistakes=tuple(program.mistakes), compute=compute, hand_paths=(True,) if program.hand else (),
        # A formula that cannot be computed for the drawn numbers raises FormulaError: the draw loop
        # (grader.catalog.variants) redraws, and tallies it for the save check.
        well_posed=lambda params: program.problem(params, graded), retrace=retrace,
    )  # fmt: skip


def _reading(program: Program, names: frozenset[str]) -> frozenset[str]:
    """The steps that read any of `names`, directly or through other steps."""
    found = set(names)
    for step, formula in program.steps.items():
        if formula.names & found:
            found.add(step)
    return frozenset(found - names)
