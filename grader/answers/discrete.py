"""Part kinds compared exactly once put in canonical form: a shape (a tuple) and a set of indices."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from grader.answers.results import Mutant, PartResult, Target
from grader.answers.tolerance import Tolerance
from grader.answers.verdict import CORRECT, Parsed, incorrect
from grader.answers.where import entries_phrase
from grader.texts import N_, Text, say, say_n

TRANSPOSED = Mutant(
    name="transposed-shape",
    title=N_("dimensions in the wrong order"),
    hint=N_("The sizes are right but their order is not: say which axis holds heads, which tokens "
            "and which features, and keep that order at every stage."),
    routes=(),
)


@dataclass(frozen=True)
class DiscreteKind:
    """Answers compared exactly after putting them in canonical form (tuples, sets)."""

    name: str
    parse_text: Callable[[str], Any]
    canon: Callable[[Any], Any]
    explain: Callable[[Any, Any, Mutant | None, bool, Any], PartResult]  # the verdict when wrong

    def parse(self, text: str, exact: Any) -> Parsed:
        """Parse learner text; raises AnswerFormatError."""
        value = self.canon(self.parse_text(text))
        return Parsed(value, None, self.to_json(value))

    def grade(self, parsed: Parsed, target: Target, tolerance: Tolerance, partial: bool) -> PartResult:
        """Exact match; otherwise say what is off and look for a known mistake."""
        got, want = parsed.values, self.canon(target.exact)
        if got == want:
            return PartResult.said("correct", 1.0, CORRECT, value=parsed.json)
        mutant = next((m for m in target.mutants if got in {self.canon(r) for r in m.routes}), None)
        return self.explain(got, want, mutant, partial, parsed.json)

    def distinguishable(self, routes: tuple[Any, ...], other: tuple[Any, ...], tol: Tolerance,
                        scale: Any = None) -> bool:  # fmt: skip
        """Exact answers can be told apart whenever they differ."""
        return self.canon(routes[0]) != self.canon(other[0])

    def to_json(self, value: Any) -> Any:
        """Expected value as a list of ints (sets sorted)."""
        return sorted(int(v) for v in value) if isinstance(value, frozenset) else [int(v) for v in value]


def explain_shape(got: tuple, want: tuple, mutant: Mutant | None, partial: bool, value: Any) -> PartResult:
    """Why a shape is wrong: the number of dimensions, else which of them (their order swapped is named)."""
    if mutant is None and sorted(got) == sorted(want):
        mutant = TRANSPOSED
    if len(got) != len(want):
        text = say("Incorrect: the tensor has %(want)d dimensions, your shape has %(got)d.", want=len(want),
                   got=len(got))  # fmt: skip
        return incorrect(text, mutant, [], 0.0, value)
    wrong = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    score = 1.0 - len(wrong) / len(want) if partial else 0.0
    return incorrect(say("Incorrect: %(where)s of the shape.", where=entries_phrase(wrong)), mutant, wrong, score,
                      value)  # fmt: skip


def explain_set(got: frozenset, want: frozenset, mutant: Mutant | None, partial: bool, value: Any) -> PartResult:
    """Why a set of indices is wrong: how many are too many and how many missing; partial credit by overlap."""
    extra, missing = sorted(got - want), len(want - got)
    text = _set_counts(len(extra), missing)
    score = len(got & want) / len(got | want) if partial else 0.0
    return incorrect(text, mutant, extra, score, value)


def _set_counts(extra: int, missing: int) -> Text:
    """How many indices are too many and how many are missing, each in its plural, a zero count left unsaid."""
    too_many = say_n("%(num)d of your indices should not be there", "%(num)d of your indices should not be there",
                     extra)  # fmt: skip
    absent = say_n("%(num)d index is missing", "%(num)d indices are missing", missing)
    if extra and missing:
        return say("Incorrect: %(too_many)s, and %(absent)s.", too_many=too_many, absent=absent)
    return say("Incorrect: %(counts)s.", counts=too_many if extra else absent)
