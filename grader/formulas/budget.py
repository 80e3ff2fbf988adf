"""One time budget shared by every formula evaluation of a piece of work (a variant with all its draws, the
cases of one code submission), checked inside each evaluation at every syntax node.

A budget is opened with `time_budget(seconds)`; one opened inside another ends no later than the outer
one. The evaluator reads the deadline once per formula and looks at it at each node: one numpy
operation is short, since every array is bounded (grader.formulas.limits), so the work stops within
milliseconds of its deadline wherever the time goes.

Seconds are the thread's processor time, not the wall clock: on a machine busy with other work (a load
of 15 on 2 cores was seen while this was written) a 30 ms variant took over 0.5 s of wall time, and a
wall-clock budget would refuse a good exercise there. The worker's own work is what a hostile formula
can inflate, and what is bounded. The processor clock costs about 1 µs to read, so it is read only once
the wall clock says the budget could have run out (processor time never runs ahead of wall time).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Iterator

from grader.formulas.expression import FormulaError


# Every draw of one variant shares this budget (a formula exercise's draws run instructors' formulas, and
# a learner's page waits for them); the shipped catalogue's slowest variant takes about 0.06 s.
VARIANT_SECONDS = 1.0


class OutOfTime(FormulaError):
    """The formulas used up their time budget: the whole piece of work stops (never a reason to redraw)."""


@dataclass
class Deadline:
    """When the budget ends (time.thread_time), how long it was (for the message), and the wall-clock time
    (time.monotonic) before which it cannot have ended."""

    at: float
    seconds: float
    not_before: float

    def check(self) -> None:
        """Raise OutOfTime once the thread has used the budget's processor time."""
        if time.monotonic() < self.not_before:
            return
        left = self.at - time.thread_time()
        if left < 0:
            raise OutOfTime(f"the formulas take too long to compute (more than {self.seconds:g} s)")
        self.not_before = time.monotonic() + left


_CURRENT: ContextVar[Deadline | None] = ContextVar("formula_deadline", default=None)


def current_deadline() -> Deadline | None:
    """The deadline of the innermost open budget, or None when none is open."""
    return _CURRENT.get()


@contextmanager
def time_budget(seconds: float) -> Iterator[Deadline]:
    """Formula evaluations inside share `seconds` from now (less, when an enclosing budget ends sooner)."""
    mine = Deadline(time.thread_time() + seconds, seconds, time.monotonic() + seconds)
    outer = _CURRENT.get()
    token = _CURRENT.set(mine if outer is None or mine.at < outer.at else outer)
    try:
        yield mine
    finally:
        _CURRENT.reset(token)
