"""Evaluating a checked formula over named values, with numpy's semantics and bounded sizes.

Whole numbers stay exact Python integers while they stay whole (a parameter count of 8,030,261,248
must not become 8030261248.000001); everything else is a float64 array. Before an operation that can
make more entries than it is given runs, the shape it will make is worked out and refused over
MAX_ELEMENTS (grader.formulas.limits); every result is checked too: integers below 2**62, exponents at
most MAX_EXPONENT. The time budget (grader.formulas.budget) is checked at every syntax node.
"""

from __future__ import annotations

import ast
import operator
from typing import Any, Callable, Mapping

import numpy as np

from grader.formulas.budget import Deadline, current_deadline, time_budget
from grader.formulas.expression import Formula, FormulaError
from grader.formulas.limits import MAX_ELEMENTS, VocabularyError, bounded, broadcast_shape, matmul_shape
from grader.formulas.vocabulary import CONSTANTS, FUNCTIONS

MAX_EXPONENT = 64
MAX_INTEGER = 2**62
MAX_SECONDS = 0.5  # one formula evaluated outside any budget (a variant or a submission opens its own)

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow, ast.MatMult: np.matmul,
}  # fmt: skip
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
    ast.Eq: operator.eq, ast.NotEq: operator.ne,
}  # fmt: skip
_NAMED: dict[type, str] = {  # how a refusal names the operation
    ast.Add: "'+'", ast.Sub: "'-'", ast.Mult: "'*'", ast.Div: "'/'", ast.FloorDiv: "'//'", ast.Mod: "'%'",
    ast.Pow: "'**'", ast.MatMult: "'@'", ast.Lt: "'<'", ast.LtE: "'<='", ast.Gt: "'>'", ast.GtE: "'>='",
    ast.Eq: "'=='", ast.NotEq: "'!='",
}  # fmt: skip


def _checked(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_INTEGER:
            raise FormulaError(f"a whole number above {MAX_INTEGER:.2e} is too large")
        return value
    array = np.asarray(value)
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise FormulaError("the formula makes something that is not numbers")
    if array.size > MAX_ELEMENTS:
        raise FormulaError(f"the formula makes {array.size} entries; at most {MAX_ELEMENTS}")
    return array.item() if array.ndim == 0 and array.dtype != bool else array


def _power(base: Any, exponent: Any) -> Any:
    if np.any(np.abs(np.asarray(exponent, dtype=float)) > MAX_EXPONENT):
        raise FormulaError(f"an exponent above {MAX_EXPONENT} is not allowed")
    if isinstance(base, int) and isinstance(exponent, int) and exponent >= 0:
        return base**exponent
    return np.power(np.asarray(base, dtype=float), np.asarray(exponent, dtype=float))


class _Evaluator:
    def __init__(self, values: Mapping[str, Any], deadline: Deadline) -> None:
        self.values, self.deadline = values, deadline

    def run(self, node: ast.AST) -> Any:
        self.deadline.check()
        method: Callable[[Any], Any] = getattr(self, "_" + type(node).__name__)
        return _checked(method(node))

    def _Expression(self, node: ast.Expression) -> Any:
        return self.run(node.body)

    def _Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _Name(self, node: ast.Name) -> Any:
        if node.id in self.values:
            return self.values[node.id]
        if node.id in CONSTANTS:
            return CONSTANTS[node.id]
        raise FormulaError(f"{node.id!r} names no parameter or earlier formula")

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.run(node.operand)
        return -value if isinstance(node.op, ast.USub) else +value

    def _BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.run(node.left), self.run(node.right)
        if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):  # two numbers make one number
            shape = matmul_shape if isinstance(node.op, ast.MatMult) else broadcast_shape
            bounded(shape(left, right), _NAMED[type(node.op)])
        if isinstance(node.op, ast.Pow):
            return _power(left, right)
        exact = isinstance(left, int) and isinstance(right, int) and not isinstance(node.op, (ast.Div, ast.MatMult))
        args = (left, right) if exact else (np.asarray(left, dtype=float), np.asarray(right, dtype=float))
        return _BINARY[type(node.op)](*args)

    def _Compare(self, node: ast.Compare) -> Any:
        left, right = self.run(node.left), self.run(node.comparators[0])
        bounded(broadcast_shape(left, right), _NAMED[type(node.ops[0])])
        return np.asarray(_COMPARE[type(node.ops[0])](np.asarray(left), np.asarray(right)))

    def _List(self, node: ast.List) -> Any:
        items = [self.run(item) for item in node.elts]
        bounded((sum(getattr(item, "size", 1) for item in items),), "a list")
        return np.asarray(items, dtype=float)

    _Tuple = _List

    def _Attribute(self, node: ast.Attribute) -> Any:  # .T only: the parser allows nothing else
        return np.asarray(self.run(node.value)).T

    def _Subscript(self, node: ast.Subscript) -> Any:
        value = np.asarray(self.run(node.value))
        return value[self._index(node.slice)]

    def _index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Tuple):
            return tuple(self._index(item) for item in node.elts)
        if isinstance(node, ast.Slice):
            return slice(*(None if part is None else self._whole(part) for part in (node.lower, node.upper, node.step)))
        return self._whole(node)

    def _whole(self, node: ast.AST) -> int:
        value = self.run(node)
        if isinstance(value, bool) or np.ndim(value) != 0 or not float(value).is_integer():
            raise FormulaError("an index is a whole number")
        return int(value)

    def _Call(self, node: ast.Call) -> Any:
        assert isinstance(node.func, ast.Name)  # the parser allows calls of vocabulary names only
        args = [self.run(a) for a in node.args]
        keywords = {k.arg: self.run(k.value) for k in node.keywords if k.arg is not None}
        function = FUNCTIONS[node.func.id]
        if function.makes is not None:
            bounded(function.makes(*args, **keywords), f"{node.func.id}()")
        return function.run(*args, **keywords)


def evaluate(formula: Formula, values: Mapping[str, Any]) -> Any:
    """The value of `formula` with `values` for its names; raises FormulaError when it cannot be computed
    (OutOfTime when the open time budget, or MAX_SECONDS outside any, runs out)."""
    deadline = current_deadline()
    if deadline is None:
        with time_budget(MAX_SECONDS) as own:
            return _evaluate(formula, values, own)
    return _evaluate(formula, values, deadline)


def _evaluate(formula: Formula, values: Mapping[str, Any], deadline: Deadline) -> Any:
    try:
        with np.errstate(all="ignore"):
            return _Evaluator(values, deadline).run(formula.tree)
    except FormulaError:
        raise
    except VocabularyError as error:
        raise FormulaError(str(error)) from None
    except MemoryError:  # a last guard: the shape checks should leave nothing this large to ask for
        raise FormulaError("the formula needs more memory than a formula may use") from None
    except RecursionError:  # a last guard: the parser's limits keep formulas far shallower
        raise FormulaError("the formula is nested too deeply; split it into named steps") from None
    except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError) as error:
        raise FormulaError(f"cannot be computed: {error}") from None
