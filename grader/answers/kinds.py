"""Part kinds: how each type of answer is parsed, compared with its target and rendered.

A small registry (`KINDS`) maps a part type name to its behaviour, so nothing else branches on
type names.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from grader.answers import numbers, structures, syntax
from grader.answers.direction import direction
from grader.answers.discrete import DiscreteKind, explain_set, explain_shape
from grader.answers.numbers import AnswerFormatError, Number
from grader.answers.results import Mutant, PartResult, Target
from grader.answers.rounding import hand_rounding_note
from grader.answers.verdict import CORRECT, Parsed, incorrect
from grader.answers.tolerance import (Bands, Tolerance, bands, digits_request, fewer_digits_than_asked,
                                     is_exact_answer, precision_asked)
from grader.answers.where import entries_phrase, positions
from grader.texts import Text, joined, say

MAX_ANSWER_CHARS = 20_000


def _numbers_to_arrays(entries: Any) -> tuple[np.ndarray, np.ndarray]:
    def pick(attr: str) -> Any:
        if isinstance(entries, Number):
            return getattr(entries, attr)
        return [pick_row(row, attr) for row in entries]

    def pick_row(row: Any, attr: str) -> Any:
        return getattr(row, attr) if isinstance(row, Number) else [getattr(n, attr) for n in row]

    return np.asarray(pick("value"), dtype=float), np.asarray(pick("resolution"), dtype=float)


def _as_float_array(value: Any) -> np.ndarray:
    if isinstance(value, Fraction):
        return np.asarray(float(value))
    return np.asarray(value, dtype=float)


@dataclass(frozen=True)
class _Accepts:
    """A numeric target's bands under one tolerance: the same for every answer, so worked out once."""

    routes: np.ndarray  # stacked on axis 0, the exact one first
    bands: Bands
    coarsest: np.ndarray  # the coarsest place value a learner may type at the expected value, per entry
    mutants: tuple[tuple[Mutant, np.ndarray, Bands], ...]  # each mistake's exact value and bands

    @classmethod
    def work_out(cls, target: Target, tolerance: Tolerance, integral: bool) -> _Accepts:
        """Stack the routes and widen them by the tolerance, for the answer and for each mistake.

        A mistake's bands are as wide as the answer's (under significant figures at least as wide
        as the mistake's own, `Tolerance.band_half_width`), as a learner making it would type it.
        """
        routes = np.stack([_as_float_array(r) for r in target.routes])
        mutants = []
        for mutant in target.mutants:
            theirs = np.stack([_as_float_array(r) for r in mutant.routes])
            mutants.append((mutant, theirs[0], bands(theirs, tolerance, routes[0], integral)))
        coarsest = tolerance.coarsest_resolution(routes[0], integral)
        accepted = np.stack([_as_float_array(r) for r in target.accepted])
        return cls(routes, bands(accepted, tolerance, integral=integral), coarsest, tuple(mutants))

    @property
    def exact(self) -> np.ndarray:
        """The full-precision answer."""
        return self.routes[0]


def _typed_a_mistake_exactly(values: np.ndarray, accepts: _Accepts) -> bool:
    """Is the answer some mistake's exact value ("0.5" for one FFN matrix)? Then it is that mistake,
    to be named, and asking for more digits would suggest it was right but rounded."""
    return any(is_exact_answer(values, exact).all() for _, exact, _ in accepts.mutants)


def _graded_as_typed(resolution: np.ndarray, coarse: np.ndarray, accepts: _Accepts) -> bool:
    """May an answer with short entries be graded as it is? Yes when each short entry's expected value can
    be written at the place value typed ("0.75" for 3/4, "[4; -8; -4]" for integers, "0.6" or "0.1" for 0.6):
    then a right one is right and a wrong one is a counted attempt, so short guesses test nothing for
    free. Otherwise the answer is a free request for digits. Only the whole answer decides, never one
    entry, so the request does not tell which entries could have been short."""
    place = np.where(coarse, np.asarray(resolution, dtype=float), 1.0)
    steps = np.asarray(accepts.exact, dtype=float) / place
    whole = np.abs(steps - np.round(steps)) <= np.maximum(1e-6, 1e-12 * np.abs(steps))  # float noise only
    return bool((whole | ~coarse).all())


def _zero_or_one_beside_full_entries(values: np.ndarray, resolution: np.ndarray, coarse: np.ndarray) -> np.ndarray:
    """Per entry of a vector or matrix: typed "0" or "1" where other entries are typed to the precision asked.

    Such an entry may be that exact number (a causal mask's 0, a weight of 1), not a rounded one: when the
    answer read so is right or a named mistake, it asks for no digits and is graded, its mistake named
    (which a fully typed answer would say too); else a "1" for 0.98 is a request for digits, as before."""
    unit = (np.asarray(resolution, dtype=float) == 1.0) & np.isin(values, (0.0, 1.0))
    if values.ndim == 0 or not (~coarse & ~unit).any():
        return np.zeros_like(unit)
    return unit


def _matching_mutant(values: np.ndarray, accepts: _Accepts) -> Mutant | None:
    """The mistake whose bands hold every entry, the closest one if several do."""
    best, best_gap = None, np.inf
    for mutant, exact, accepted in accepts.mutants:
        if accepted.contains(values).all():
            gap = float(np.max(np.abs(values - exact)))
            if gap < best_gap:
                best, best_gap = mutant, gap
    return best


def _too_few_digits(coarse: np.ndarray, request: Text, value: Any) -> PartResult:
    """Invalid (no attempt used): the entries typed too short, and the precision asked."""
    where = positions(coarse)
    text = say("Too few digits (%(where)s): %(request)s.", where=entries_phrase(where), request=request) \
        if where else say("Too few digits: %(request)s.", request=request)
    return PartResult.said("invalid", 0.0, text, value=value)


def _outside(wrong: list[Any], tolerance: Tolerance) -> Text:
    """The sentence for an answer outside its bands; an exact part has no width to name."""
    if tolerance.kind == "exact":
        if not wrong:
            return say("Incorrect: this is not exactly the expected value.")
        where = entries_phrase(wrong)
        # One entry or a list of them, not a count: a language's plural rules do not apply.
        if len(wrong) == 1:
            return say("Incorrect: %(where)s is not exactly the expected value.", where=where)
        return say("Incorrect: %(where)s are not exactly the expected values.", where=where)
    width = tolerance.describe()
    if wrong:
        return say("Incorrect: %(where)s not within %(tolerance)s of the expected value.",
                   where=entries_phrase(wrong), tolerance=width)  # fmt: skip
    return say("Incorrect: not within %(tolerance)s of the expected value.", tolerance=width)


@dataclass(frozen=True)
class NumericKind:
    """Scalars, vectors, matrices, integers and fractions: compared entry by entry."""

    name: str
    parse_text: Callable[[str, Any], Any]
    integral: bool = False

    def parse(self, text: str, exact: Any) -> Parsed:
        """Parse learner text; raises AnswerFormatError."""
        values, resolution = _numbers_to_arrays(self.parse_text(text, exact))
        return Parsed(values, resolution, values.tolist())

    def grade(self, parsed: Parsed, target: Target, tolerance: Tolerance, partial: bool) -> PartResult:
        """Compare a parsed answer with the target's accepted bands."""
        accepts, values = self._accepts(target, tolerance), parsed.values
        inside = accepts.bands.contains(values)
        coarse = fewer_digits_than_asked(parsed.resolution, values, accepts.coarsest, tolerance)
        unit = _zero_or_one_beside_full_entries(values, parsed.resolution, coarse)
        rest = coarse & ~unit
        if unit.any() and (rest.any() or inside.all() or _matching_mutant(values, accepts) is not None):
            coarse = rest  # the 0s and 1s are exact: the answer is graded, or asked for digits elsewhere only
        short = coarse.any() and not _typed_a_mistake_exactly(values, accepts)
        if short and not _graded_as_typed(parsed.resolution, coarse, accepts):
            return _too_few_digits(coarse, digits_request(accepts.exact, tolerance, self.integral), parsed.json)
        if inside.all():
            note = hand_rounding_note(values, parsed.resolution, accepts.routes, target.shown)
            return PartResult.said("correct", 1.0, joined([CORRECT, note], " ") if note else CORRECT, value=parsed.json)
        mutant = _matching_mutant(values, accepts)
        wrong = positions(~inside)
        score = float(inside.mean()) if partial else 0.0
        toward = None if mutant else direction(values, inside, accepts.routes, tolerance, self.integral)
        return incorrect(_outside(wrong, tolerance), mutant, wrong, score, parsed.json, entries=True, toward=toward)

    def digits_asked(self, target: Target, tolerance: Tolerance) -> Text | None:
        """The precision a field asks for before any answer; None when the part sets none worth saying."""
        return precision_asked(self._accepts(target, tolerance).exact, tolerance, self.integral)

    def _accepts(self, target: Target, tolerance: Tolerance) -> _Accepts:
        key = ("accepts", tolerance, self.integral)
        found = target.memo.get(key)
        if found is None:
            found = target.memo[key] = _Accepts.work_out(target, tolerance, self.integral)
        return found

    def distinguishable(self, routes: tuple[Any, ...], other: tuple[Any, ...], tol: Tolerance,
                        scale: Any = None) -> bool:  # fmt: skip
        """True when no answer can be accepted for both: some entry's bands do not overlap.

        Band widths are measured at `scale` (the part's right answer), by default at routes[0].
        """
        stacked = np.stack([_as_float_array(r) for r in routes])
        scale = stacked[0] if scale is None else _as_float_array(scale)
        theirs = bands(np.stack([_as_float_array(r) for r in other]), tol, scale)
        return bool(np.any(bands(stacked, tol, scale).disjoint_from(theirs)))

    def to_json(self, value: Any) -> Any:
        """Expected value as JSON (numbers or nested lists)."""
        if self.integral:
            return int(value)
        return _as_float_array(value).tolist()


def _length(exact: Any) -> int:
    return len(np.asarray(exact))


KINDS: dict[str, NumericKind | DiscreteKind] = {
    "scalar": NumericKind("scalar", lambda text, exact: numbers.parse_number(text)),
    "fraction": NumericKind("fraction", lambda text, exact: numbers.parse_fraction(text)),
    "integer": NumericKind("integer", lambda text, exact: numbers.parse_integer(text), integral=True),
    "vector": NumericKind("vector", lambda text, exact: structures.parse_vector(text, _length(exact))),
    "matrix": NumericKind(
        "matrix", lambda text, exact: structures.parse_matrix(text, tuple(np.asarray(exact).shape))
    ),
    "shape": DiscreteKind(
        "shape", structures.parse_shape, lambda v: tuple(int(i) for i in v), explain_shape
    ),
    "index-set": DiscreteKind(
        "index-set", structures.parse_index_set, lambda v: frozenset(int(i) for i in v), explain_set
    ),
}


def grade_part(kind: str, text: str, target: Target, tolerance: Tolerance, partial: bool = False) -> PartResult:
    """Parse and grade one part; malformed text gives status 'invalid' and never raises."""
    if not text or not text.strip():
        return PartResult.said("invalid", 0.0, say("Enter an answer."))
    if len(text) > MAX_ANSWER_CHARS:
        return PartResult.said("invalid", 0.0, say("This answer is too long."))
    part_kind = KINDS[kind]
    try:
        parsed = part_kind.parse(text, target.exact)
    except AnswerFormatError as error:
        return PartResult.said("invalid", 0.0, error.text)
    return part_kind.grade(parsed, target, tolerance, partial)


def render_answer(kind: str, value: Any, syntax_name: str, decimals: int = 3) -> str:
    """Write a value the way a learner would type it in the named syntax."""
    return syntax.render(kind, KINDS[kind].to_json(value), syntax_name, decimals)
