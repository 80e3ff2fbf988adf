"""One time budget shared by every formula evaluation of a piece of work (a variant with all its draws, the
cases of one code submission), checked inside each evaluation at every syntax node.

A budget is opened with `time_budget(seconds)`; one opened inside another ends no later than the outer
one. The evaluator reads the deadline once per formula and compares the clock at each node: one numpy
operation is short, since every array is bounded (grader.formulas.limits), so the work stops within
milliseconds of its deadline wherever the time goes.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

from grader.formulas.expression import FormulaError


class OutOfTime(FormulaError):
    """The formulas used up their time budget: the whole piece of work stops (never a reason to redraw)."""


@dataclass(frozen=True)
class Deadline:
    """When the budget ends (time.monotonic) and how long it was, for the message."""

    at: float
    seconds: float

    def check(self) -> None:
        """Raise OutOfTime once the deadline has passed."""
        if time.monotonic() > self.at:
            raise OutOfTime(f"the formulas take too long to compute (more than {self.seconds:g} s)")


_CURRENT: ContextVar[Deadline | None] = ContextVar("formula_deadline", default=None)


def current_deadline() -> Deadline | None:
    """The deadline of the innermost open budget, or None when none is open."""
    return _CURRENT.get()


@contextmanager
def time_budget(seconds: float) -> Iterator[Deadline]:
    """Formula evaluations inside share `seconds` from now (less, when an enclosing budget ends sooner)."""
    mine = Deadline(time.monotonic() + seconds, seconds)
    outer = _CURRENT.get()
    token = _CURRENT.set(mine if outer is None or mine.at < outer.at else outer)
    try:
        yield mine
    finally:
        _CURRENT.reset(token)
