"""Skipped-step mutants: a formula exercise's steps each with one piece of work left out, made automatically.

A draw tests a step only if leaving the step's work out changes an answer. For each step's formula the
mutants are: a divisor set to 1 (`a / b` -> `a`), a factor set to 1 (`a * b` -> `a`, `b`), a transposed
matrix (`x @ W` -> `x @ W.T`, `q @ k.T` -> `(q @ k.T).T`, `k.T` -> `k`), a missing activation (`gelu(z)` -> `z`), a missing epsilon
(`+ 1e-05` or `eps=` dropped) and 0-based indices for 1-based ones (`+ 1` dropped). A mutant that moves
an answer at the page's own example is one the exercise teaches; a draw where it gives an accepted
answer is refused (grader.catalog.variants), unless the exercise lists the step under `unchecked` with
its reason.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from grader.answers.kinds import KINDS
from grader.formulas.expression import Formula, FormulaError, parse_formula

if TYPE_CHECKING:  # variants.py imports this module to refuse draws
    from grader.catalog.scenarios import Scenario
    from grader.catalog.fields import PartSpec
    from grader.catalog.spec import ExerciseSpec
    from grader.catalog.variants import PartVariant

ACTIVATIONS = frozenset({"gelu", "gelu_erf", "relu", "silu", "sigmoid", "tanh", "softmax", "exp"})
SMALL = 1e-3  # a constant added that is at most this is an epsilon


@dataclass(frozen=True)
class Skipped:
    """One step with one piece of its work left out: the step, what is left out, and the formula left."""

    step: str
    what: str
    formula: Formula

    @property
    def name(self) -> str:
        """A name for reports: the step, what its formula leaves out, and the formula left."""
        return f"{self.step}: {self.what}, {self.step} = {self.formula.text}"


Change = tuple[str, Callable[[ast.AST], ast.AST]]


def _changes(node: ast.AST) -> list[Change]:
    """What can be left out at this node: (what, a function from the node to what replaces it)."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return [("a divisor set to 1", lambda n: n.left)]  # type: ignore[attr-defined]
        if isinstance(node.op, ast.Mult):
            return [("a factor set to 1", lambda n: n.left), ("a factor set to 1", lambda n: n.right)]  # type: ignore[attr-defined]
        if isinstance(node.op, ast.MatMult):  # W used the wrong way round, or the product itself (S = KQ^T)
            return [("a transposed matrix", _transposed_right), ("a transposed matrix", _transposed)]
        if isinstance(node.op, ast.Add):
            return _dropped_constant(node)
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return [("a transposed matrix", lambda n: n.value)]  # type: ignore[attr-defined]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        found: list[Change] = []
        if node.func.id in ACTIVATIONS and node.args:
            found.append((f"a missing {node.func.id}", lambda n: n.args[0]))  # type: ignore[attr-defined]
        if any(k.arg == "eps" for k in node.keywords):
            found.append(("a missing epsilon", _without_eps))
        return found
    return []


def _transposed_right(node: ast.AST) -> ast.AST:
    assert isinstance(node, ast.BinOp)
    node.right = ast.Attribute(value=node.right, attr="T", ctx=ast.Load())
    return node


def _transposed(node: ast.AST) -> ast.AST:
    assert isinstance(node, ast.expr)
    return ast.Attribute(value=node, attr="T", ctx=ast.Load())


def _without_eps(node: ast.AST) -> ast.AST:
    assert isinstance(node, ast.Call)
    for keyword in node.keywords:
        if keyword.arg == "eps":
            keyword.value = ast.Constant(0.0)
    return node


def _dropped_constant(node: ast.BinOp) -> list[Change]:
    found: list[Change] = []
    for side, other in (("left", node.right), ("right", node.left)):
        if isinstance(other, ast.Constant) and isinstance(other.value, (int, float)) and not isinstance(other.value, bool):
            kept = getattr(node, side)
            if 0 < other.value <= SMALL:
                found.append(("a missing epsilon", _side(side)))
            elif other.value == 1 and isinstance(kept, ast.Call):
                found.append(("0-based indices for 1-based ones", _side(side)))
    return found


def _side(side: str) -> Callable[[ast.AST], ast.AST]:
    """The change that keeps one side of a sum (the other, a constant, left out)."""
    return lambda node: getattr(node, side)  # type: ignore[no-any-return]


def _with_change(tree: ast.Expression, index: int, change: Callable[[ast.AST], ast.AST]) -> str:
    """The formula's text with the change made at the `index`-th node (in ast.walk order)."""
    copied = copy.deepcopy(tree)
    target = list(ast.walk(copied))[index]
    replacement = change(target)
    if target is copied.body:
        copied.body = replacement  # type: ignore[assignment]
    else:
        for parent in ast.walk(copied):
            for field, value in ast.iter_fields(parent):
                if value is target:
                    setattr(parent, field, replacement)
                elif isinstance(value, list) and any(item is target for item in value):
                    setattr(parent, field, [replacement if item is target else item for item in value])
    return ast.unparse(ast.fix_missing_locations(copied))


def skipped_steps(steps: Mapping[str, Formula]) -> list[Skipped]:
    """Every skipped-step mutant of these steps whose formula still parses (each text once)."""
    found: list[Skipped] = []
    for step, formula in steps.items():
        seen = {ast.unparse(formula.tree)}
        for index, node in enumerate(ast.walk(formula.tree)):
            for what, change in _changes(node):
                text = _with_change(formula.tree, index, change)
                if text in seen:
                    continue
                seen.add(text)
                try:
                    mutant = parse_formula(text)
                except FormulaError:
                    continue
                if mutant.names:  # `10 * h` with h set to 1 is the number 10: no step a learner skips
                    found.append(Skipped(step, what, mutant))
    return found


# Per exercise computation and page: which skipped steps move which part at the page (the scenario is
# kept beside its answer, so the id in the key stays its own).
_TAUGHT: dict[tuple[Any, ...], tuple[Scenario, dict[str, set[str]]]] = {}


def _taught(spec: ExerciseSpec, page: dict[str, Any]) -> dict[str, set[str]]:
    """Per part id, the skipped-step mutants that move its answer at the page's own example: steps it teaches."""
    scenario, unchecked = spec.scenario, set(spec.unchecked or {})
    key = (id(scenario), repr(page), tuple((p.id, p.quantity, p.entry) for p in spec.parts), tuple(sorted(unchecked)))
    if key not in _TAUGHT:
        right = scenario.routes(page)[0]
        found = scenario.skips(page) if scenario.skips else {}
        taught = {p.id: {name: q for name, q in found.items() if name.split(":")[0] not in unchecked
                         and _moves(right[p.quantity], q.get(p.quantity), p)} for p in spec.parts}  # fmt: skip
        _TAUGHT[key] = (scenario, {part: set(names) for part, names in taught.items()})
    return _TAUGHT[key][1]


def _moves(right: Any, other: Any, part: PartSpec) -> bool:
    """Does a skipped step change this part's answer at all? (`right`, `other`: the whole quantities)"""
    return other is not None and _differs(pick_entry(right, part), pick_entry(other, part))


def _differs(one: Any, two: Any) -> bool:
    if isinstance(one, (frozenset, tuple)) or isinstance(two, (frozenset, tuple)):
        return bool(one != two)
    try:
        a, b = np.asarray(one, dtype=float), np.asarray(two, dtype=float)
    except (TypeError, ValueError):
        return False
    return a.shape != b.shape or not np.allclose(a, b, rtol=1e-12, atol=0.0)


def skipped_problem(spec: ExerciseSpec, page: dict[str, Any] | None, params: Mapping[str, Any],
                    parts: list[PartVariant]) -> str | None:  # fmt: skip
    """Why a draw does not test a step the page teaches (at `page`): leaving it out gives an accepted answer; else None."""
    if spec.scenario.skips is None or page is None:
        return None
    taught = _taught(spec, page)
    if not any(taught.values()):
        return None
    found = spec.scenario.skips(params)
    for part in parts:
        kind = KINDS[part.spec.type]
        for name in sorted(taught[part.spec.id]):
            if name not in found or found[name].get(part.spec.quantity) is None:
                continue
            theirs = pick_entry(found[name][part.spec.quantity], part.spec)
            if not _same_shape(theirs, part.target.exact):
                continue  # a transposed matrix of another shape is refused by the answer's own shape
            if not _differs(theirs, part.target.exact) or not kind.distinguishable(
                    part.target.accepted, (theirs,), part.tolerance):  # fmt: skip
                return f"part {part.spec.id}: leaving out a step ({name}) gives an accepted answer"
    return None


def _same_shape(one: Any, other: Any) -> bool:
    if isinstance(one, (frozenset, tuple)) or isinstance(other, (frozenset, tuple)):
        return True
    return np.shape(one) == np.shape(other)


def pick_entry(value: Any, part: PartSpec) -> Any:
    """The entry of a vector quantity a part asks for, or the whole quantity."""
    return np.asarray(value)[part.entry] if part.entry is not None else value
