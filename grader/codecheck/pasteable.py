"""A visible case's inputs as Python a learner can paste to call their own function on them again.

Floats are written as repr() writes them, the shortest text that reads back as the same float, so the
pasted call sees exactly the numbers the grader sent. Pure: the inputs are regenerated from the
exercise and the submission's seed (grader.codecheck.prepare), never stored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from grader.codecheck.prepare import cases_for
from grader.codecheck.spec import CodeExerciseSpec

WIDTH = 96  # characters a line of numbers runs to before it wraps
# What one page shows at most: microGPT's weights alone are ~90,000 characters a case. The first
# failing case is always shown whole; later ones only while the page stays within this.
PAGE_BUDGET = 200_000


def failing_inputs(spec: CodeExerciseSpec, seed: int, names: Sequence[str],
                   budget: int = PAGE_BUDGET) -> dict[str, str]:
    """The pasteable call for each named case that is visible, by name; hidden cases are never included."""
    task = spec.task_object
    wanted = set(names)
    shown: dict[str, str] = {}
    used = 0
    for case in cases_for(spec, seed):
        if case.name not in wanted or not case.visible:
            continue
        text = call_text(task.function, task.params, case.kwargs)
        if shown and used + len(text) > budget:
            break
        shown[case.name] = text
        used += len(text)
    return shown


def call_text(function: str, params: Sequence[str], kwargs: Mapping[str, Any]) -> str:
    """`import numpy as np`, one assignment per array argument, then the call with every argument by name."""
    names = [name for name in params if name in kwargs]
    inline = {name: _literal(kwargs[name], "") for name in names if _is_scalar(kwargs[name])}
    assigned = [f"{name} = {_literal(kwargs[name], ' ' * (len(name) + 3))}" for name in names if name not in inline]
    call = f"{function}({', '.join(f'{name}={inline.get(name, name)}' for name in names)})"
    text = "\n".join([*assigned, call])
    return f"import numpy as np\n\n{text}" if "np." in text else text


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.integer, np.floating, np.bool_))


def _literal(value: Any, indent: str) -> str:
    """Python source that evaluates to `value` (numbers, numpy arrays, and dicts and lists of them)."""
    if isinstance(value, (bool, np.bool_)):
        return repr(bool(value))
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        return _float(float(value))
    if isinstance(value, np.ndarray):
        return _array(value, indent)
    if isinstance(value, Mapping):
        inner = indent + "    "
        items = [f"{inner}{key!r}: {_literal(item, inner + ' ' * (len(repr(key)) + 2))},"
                 for key, item in value.items()]
        return "{\n" + "\n".join(items) + f"\n{indent}}}" if items else "{}"
    if isinstance(value, (list, tuple)):
        parts = [_literal(item, indent + " ") for item in value]
        body = ", ".join(parts) if len(parts) != 1 or isinstance(value, list) else parts[0] + ","
        return f"[{body}]" if isinstance(value, list) else f"({body})"
    raise TypeError(f"cannot write a {type(value).__name__} as Python")


def _float(x: float) -> str:
    if math.isnan(x):
        return "float('nan')"
    if math.isinf(x):
        return "float('inf')" if x > 0 else "-float('inf')"
    return repr(x)


def _array(a: np.ndarray, indent: str) -> str:
    dtype = "" if a.dtype in (np.dtype(float), np.dtype(int)) else f", dtype=np.{a.dtype.name}"
    if a.size == 0:
        return f"np.zeros({a.shape!r}{dtype})"
    head = "np.array("
    if a.ndim == 0:
        return f"{head}{_literal(a.item(), '')}{dtype})"
    return f"{head}{_nested(a, indent + ' ' * len(head))}{dtype})"


def _nested(a: np.ndarray, indent: str) -> str:
    """Nested lists of the entries: one innermost row per line, long rows wrapped."""
    if a.ndim > 1:
        return "[" + (",\n" + indent + " ").join(_nested(row, indent + " ") for row in a) + "]"
    numbers = [_literal(x, "") for x in a.tolist()]
    lines, line = [], ""
    for number in numbers:
        if line and len(indent) + len(line) + len(number) + 2 > WIDTH:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {number}" if line else number
    lines.append(line)
    return "[" + ("\n" + indent + " ").join(lines) + "]"
