"""Formulas as instructors write them: parsed (never run as Python) and checked against an allowlist.

A formula is one Python-looking expression over numbers and names: `+ - * / // % ** @`, unary minus,
one comparison, `.T`, indexing and slicing with whole numbers or names, list literals, and calls of
the vocabulary (grader.formulas.vocabulary) with its keywords. Everything else (attributes other than
`.T`, names with underscores in front, lambdas, comprehensions, starred or keyword-unpacked
arguments, strings) is refused with a message before anything is evaluated.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from grader.formulas.vocabulary import CONSTANTS, FUNCTIONS

MAX_LENGTH = 400  # characters in one formula
MAX_NESTING = 24  # brackets inside brackets, counted before Python's parser sees the text
MAX_NODES = 160  # syntax nodes in one formula

_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)
_COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
_PLAIN = (ast.Expression, ast.Load, ast.keyword, ast.UnaryOp, ast.UAdd, ast.USub, ast.BinOp, ast.Compare, ast.List,
          ast.Tuple, ast.Slice, *_OPERATORS, *_COMPARISONS)  # fmt: skip


class FormulaError(ValueError):
    """A formula that is refused; the message says why, in words an instructor can act on."""


@dataclass(frozen=True)
class Formula:
    """A checked formula: its text, its syntax tree and the names it reads (other than the vocabulary)."""

    text: str
    tree: ast.Expression
    names: frozenset[str]


def _nesting(text: str) -> int:
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
    return deepest


def _check_node(node: ast.AST) -> None:
    if isinstance(node, ast.Constant):
        if type(node.value) not in (int, float, bool):
            raise FormulaError("only numbers can be written in a formula, not text")
    elif isinstance(node, ast.Name):
        if node.id.startswith("_"):
            raise FormulaError(f"the name {node.id!r} cannot be used: names do not start with an underscore")
    elif isinstance(node, ast.Attribute):
        if node.attr != "T":
            raise FormulaError(f"'.{node.attr}' is not allowed: the only attribute is .T (transpose)")
    elif isinstance(node, ast.Call):
        _check_call(node)
    elif isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            raise FormulaError("write one comparison at a time (a < b, not a < b < c)")
    elif isinstance(node, ast.Subscript):
        pass
    elif not isinstance(node, _PLAIN):
        raise FormulaError(f"{type(node).__name__} is not allowed in a formula")


def _check_call(node: ast.Call) -> None:
    if not isinstance(node.func, ast.Name):
        raise FormulaError("only the functions formulas know can be called, by their names")
    if node.func.id not in FUNCTIONS:
        raise FormulaError(f"{node.func.id!r} is not a function formulas can call; known: {', '.join(sorted(FUNCTIONS))}")
    function = FUNCTIONS[node.func.id]
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise FormulaError("arguments are written out one by one (no * or **)")
    if not function.min_args <= len(node.args) <= function.max_args:
        raise FormulaError(f"{node.func.id}() takes {function.arity()} arguments, not {len(node.args)}")
    for keyword in node.keywords:
        if keyword.arg not in function.keywords:
            allowed = ", ".join(function.keywords) or "none"
            raise FormulaError(f"{node.func.id}() has no keyword {keyword.arg!r} (allowed: {allowed})")


def parse_formula(text: object) -> Formula:
    """The formula `text` checked against the allowlist; raises FormulaError saying what is refused."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise FormulaError("a formula is a line of text, such as softmax(s / T)")
    text = str(text).strip()
    if not text or len(text) > MAX_LENGTH:
        raise FormulaError(f"a formula is 1 to {MAX_LENGTH} characters long")
    if _nesting(text) > MAX_NESTING:
        raise FormulaError(f"brackets nest more than {MAX_NESTING} deep; name a part of the formula instead")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as error:
        raise FormulaError(f"not a formula: {error.msg if isinstance(error, SyntaxError) else error}") from None
    nodes = list(ast.walk(tree))
    if len(nodes) > MAX_NODES:
        raise FormulaError(f"the formula is too long ({len(nodes)} parts, at most {MAX_NODES}); split it into named steps")
    for node in nodes:
        _check_node(node)
    called = {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    names = {n.id for n in nodes if isinstance(n, ast.Name)} - called - set(CONSTANTS)
    return Formula(text, tree, frozenset(names))
