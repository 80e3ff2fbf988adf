"""An exercise's computation as formulas: ordered named steps, mistakes that replace some steps, a hand
route, and conditions a variant must meet; run over a variant's parameters.

Each step reads parameters and earlier steps only, so no formula can loop through its own names. A
replacement (a mistake's, or the hand route's) may read the step it replaces, meaning the value the
step's own formula gave: `{u: round(u, 3)}` rounds u, `{z: s}` forgets the temperature.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from grader.formulas.budget import OutOfTime, time_budget
from grader.formulas.evaluate import MAX_SECONDS, evaluate
from grader.formulas.expression import Formula, FormulaError, parse_formula
from grader.formulas.vocabulary import CONSTANTS

MAX_STEPS = 60
# A name of a parameter or step: letters (either case), digits and _, starting with a letter.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
NAME_RULE = "a name is letters, digits and _, starting with a letter (such as z, T, h_2)"


class ProgramError(FormulaError):
    """A refused formula, placed: `where` is its place in the file, such as ("compute", "z")."""

    def __init__(self, where: tuple[str, ...], message: str) -> None:
        super().__init__(message)
        self.where = where


def _parsed(where: tuple[str, ...], text: object) -> Formula:
    try:
        return parse_formula(text)
    except FormulaError as error:
        raise ProgramError(where, str(error)) from None


@dataclass(frozen=True)
class Program:
    """Checked formulas: `steps` in order, `mistakes` and `hand` as replacements, `conditions` to hold."""

    params: tuple[str, ...]
    steps: Mapping[str, Formula]
    mistakes: Mapping[str, Mapping[str, Formula]]
    hand: Mapping[str, Formula]
    conditions: tuple[Formula, ...] = ()

    def run(self, params: Mapping[str, Any], mistake: str | None = None, hand: bool = False,
            fixed: Mapping[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
        """Every step's value (and the parameters) along the route a mistake and the hand rounding make,
        within MAX_SECONDS and within any budget already open (OutOfTime beyond); a step named in `fixed` takes
        that value instead (a learner carrying a rounded number on)."""
        values: dict[str, Any] = dict(params)
        replacing = {**(self.hand if hand else {}), **(self.mistakes[mistake] if mistake else {})}
        with time_budget(MAX_SECONDS):
            for name, formula in self.steps.items():
                if fixed is not None and name in fixed:
                    values[name] = fixed[name]
                    continue
                values[name] = _placed(("compute", name), formula, values)
                if name in replacing:
                    where = ("mistakes", str(mistake), "replace", name) if mistake and name in self.mistakes[mistake] \
                        else ("hand", name)
                    values[name] = _placed(where, replacing[name], values)
        return values

    def problem(self, params: Mapping[str, Any], graded: tuple[str, ...] = ()) -> str | None:
        """Why these parameters make a poor variant (a condition fails, a graded step is not finite), or None.

        Only the `graded` steps must be finite: a causal mask's -inf is fine on the way to a softmax.
        """
        values = self.run(params)
        with time_budget(MAX_SECONDS):
            for condition in self.conditions:
                if not bool(np.all(evaluate(condition, values))):
                    return f"well_posed: {condition.text} does not hold"
        for name in graded:
            value = np.asarray(values[name])
            if np.issubdtype(value.dtype, np.number) and not np.all(np.isfinite(value)):
                return f"compute.{name} is not a finite number"
        return None


def _placed(where: tuple[str, ...], formula: Formula, values: Mapping[str, Any]) -> Any:
    try:
        return evaluate(formula, values)
    except (ProgramError, OutOfTime):  # placed already; or the whole piece of work stops, not this formula
        raise
    except FormulaError as error:
        raise ProgramError(where, str(error)) from None


def _check_name(where: tuple[str, ...], name: object) -> None:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ProgramError(where, f"{name!r} cannot name a value: {NAME_RULE}")
    # Either case is allowed (T, H), so Python's True, False and None fit the rule; a formula reads those,
    # and the other keywords, as themselves, never as this name. A step named e or pi would stand for the
    # constant in the steps before it and for itself after it.
    if keyword.iskeyword(name):
        raise ProgramError(where, f"{name!r} cannot name a value: it is a reserved word (True, False, None, and, if, ...)")
    if name in CONSTANTS:
        raise ProgramError(where, f"{name!r} cannot name a value: it is the constant {name} = {CONSTANTS[name]:.5f}…")


def _reads_ahead(where: tuple[str, ...], formula: Formula, known: set[str], itself: str | None = None) -> None:
    unknown = formula.names - known - ({itself} if itself else set())
    if unknown:
        raise ProgramError(where, f"{', '.join(sorted(unknown))}: no parameter or earlier step has this name")


def build_program(params: list[str], compute: Mapping[str, object], mistakes: Mapping[str, Mapping[str, object]],
                  hand: Mapping[str, object] | None = None, well_posed: list[object] | None = None) -> Program:  # fmt: skip
    """The checked program; raises ProgramError naming the first formula that is refused."""
    if not 1 <= len(compute) <= MAX_STEPS:
        raise ProgramError(("compute",), f"give 1 to {MAX_STEPS} named steps")
    for name in params:
        _check_name(("params", name), name)
    steps: dict[str, Formula] = {}
    order = {name: i for i, name in enumerate(compute)}
    for name, text in compute.items():
        where = ("compute", name)
        _check_name(where, name)
        if name in params:
            raise ProgramError(where, "a step cannot have a parameter's name")
        formula = _parsed(where, text)
        if name in formula.names or any(order.get(n, -1) > order[name] for n in formula.names):
            raise ProgramError(where, "a step reads only parameters and earlier steps (not itself, nor later ones)")
        _reads_ahead(where, formula, set(params) | set(steps))
        steps[name] = formula
    return Program(tuple(params), steps, _replacements(params, steps, mistakes),
                   _replaced(("hand",), params, steps, hand or {}),
                   tuple(_condition(i, text, params, steps) for i, text in enumerate(well_posed or [])))  # fmt: skip


def _replacements(params: list[str], steps: dict[str, Formula],
                  mistakes: Mapping[str, Mapping[str, object]]) -> dict[str, dict[str, Formula]]:  # fmt: skip
    return {name: _replaced(("mistakes", name, "replace"), params, steps, replace)
            for name, replace in mistakes.items()}  # fmt: skip


def _replaced(where: tuple[str, ...], params: list[str], steps: dict[str, Formula],
              replace: Mapping[str, object]) -> dict[str, Formula]:  # fmt: skip
    found: dict[str, Formula] = {}
    names = list(steps)
    for name, text in replace.items():
        if name not in steps:
            raise ProgramError((*where, name), f"{name!r} is not a step of compute")
        formula = _parsed((*where, name), text)
        _reads_ahead((*where, name), formula, set(params) | set(names[: names.index(name)]), itself=name)
        found[name] = formula
    return found


def _condition(index: int, text: object, params: list[str], steps: dict[str, Formula]) -> Formula:
    formula = _parsed(("well_posed", str(index)), text)
    _reads_ahead(("well_posed", str(index)), formula, set(params) | set(steps))
    return formula
