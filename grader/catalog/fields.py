"""The fields an exercise file is made of: ids, titles, numbers within bounds, tolerances, the parts that take an
answer and the parameters a seed draws. grader.catalog.spec puts them together into a whole exercise."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

import numpy as np
from pydantic import AfterValidator, Field, field_validator, model_validator

from grader.answers.kinds import KINDS
from grader.answers.tolerance import Tolerance
from grader.catalog.skills import SkillId
from grader.catalog.strict import Strict
from grader.texts import Refusal

SLUG = r"^[a-z0-9][a-z0-9-]*$"
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _one_line(text: str) -> str:
    if CONTROL.search(text):
        raise Refusal("a title is one line of text, without tabs or control characters")
    return text


# An exercise's id, lesson and title are also database columns of these widths.
Slug = Annotated[str, Field(pattern=SLUG, max_length=80)]
Title = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_one_line)]
PART_ID = r"^[a-z][a-z0-9_]*$"
Number = Union[int, float]
Place = tuple[Union[str, int], ...]  # a field's place in an exercise file, as pydantic reports it
# Bounds that keep every number an instructor writes finite and within reach of the reference models
# and of the database: an infinite weight or a parameter of 1e300 makes every learner's score NaN.
MAX_MAGNITUDE = 1e6  # parameters, and an absolute tolerance
MAX_WEIGHT = 1000.0
MAX_DIMENSION = 100  # entries along one axis of a parameter
MAX_ENTRY = 9999
MAX_POSITION = 2**31 - 1  # a 32-bit integer column


def _in_range(value: Number) -> Number:
    # Compared, not math.isfinite: an int too large for a float would raise OverflowError there.
    if not -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:  # NaN fails every comparison
        raise Refusal("give a finite number between %(low)s and %(high)s", low=f"{-MAX_MAGNITUDE:g}", high=f"{MAX_MAGNITUDE:g}")
    return value


BoundedNumber = Annotated[Number, AfterValidator(_in_range)]
Dimension = Annotated[int, Field(ge=1, le=MAX_DIMENSION)]


class ToleranceSpec(Strict):
    """Exactly one of abs, rel, sigfigs or exact."""

    abs: float | None = Field(default=None, gt=0, le=MAX_MAGNITUDE, allow_inf_nan=False)
    rel: float | None = Field(default=None, gt=0, le=1, allow_inf_nan=False)
    sigfigs: int | None = Field(default=None, ge=1, le=12)
    exact: Literal[True] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ToleranceSpec:
        given = [k for k in ("abs", "rel", "sigfigs", "exact") if getattr(self, k) is not None]
        if len(given) != 1:
            raise Refusal("give exactly one of abs, rel, sigfigs or exact")
        return self

    def rule(self) -> Tolerance:
        """The Tolerance this spec describes."""
        for kind in ("abs", "rel", "sigfigs"):
            value = getattr(self, kind)
            if value is not None:
                return Tolerance(kind, float(value))  # type: ignore[arg-type]
        return Tolerance("exact")


class MisconceptionRef(Strict):
    """A mistake a part recognises; optional ones are dropped where they cannot be told apart."""

    name: str = Field(pattern=SLUG, max_length=80)
    optional: bool = False
    # Why a draw may give this mistake's answer and still be right (the erf GELU agrees with the tanh one
    # to 3 decimals for many inputs); without a reason such a draw is refused, as it does not test the step.
    reason: str | None = Field(default=None, min_length=1, max_length=500)
    skills: list[SkillId] = Field(default=[], max_length=12)  # the skills this mistake shows; none: the part's

    @model_validator(mode="after")
    def _reason_for_optional(self) -> MisconceptionRef:
        if self.reason is not None and not self.optional:
            raise Refusal("reason: only an optional mistake may give the right answer")
        return self


def _as_ref(value: Any) -> Any:
    return {"name": value} if isinstance(value, str) else value


class PartSpec(Strict):
    """One answer field: what it asks for and how it is checked."""

    id: Annotated[str, Field(pattern=PART_ID, max_length=80)]  # also a column of wrong_parts
    label: str
    type: str
    quantity: str
    tolerance: ToleranceSpec = ToleranceSpec(exact=True)
    misconceptions: list[MisconceptionRef] = []
    partial_credit: bool = False
    weight: float = Field(default=1.0, gt=0, le=MAX_WEIGHT, allow_inf_nan=False)
    entry: int | None = Field(default=None, ge=0, le=MAX_ENTRY)  # pick one entry of a vector quantity
    skills: list[SkillId] = Field(default=[], max_length=12)  # grader.catalog.skills; none: the exercise's

    @model_validator(mode="before")
    @classmethod
    def _refs(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("misconceptions"), list):
            data = {**data, "misconceptions": [_as_ref(m) for m in data["misconceptions"]]}
        if isinstance(data, dict) and isinstance(data.get("tolerance"), str):
            data = {**data, "tolerance": {data["tolerance"]: True}}
        return data

    @model_validator(mode="after")
    def _known_type(self) -> PartSpec:
        if self.type not in KINDS:
            raise Refusal("type must be one of %(kinds)s", kinds=", ".join(KINDS))
        return self


class RandomSpec(Strict):
    """How a seed draws a value: uniform on [low, high] at `decimals`, or one of `choices`."""

    low: BoundedNumber | None = None
    high: BoundedNumber | None = None
    decimals: int = Field(default=0, ge=0, le=6)
    choices: list[BoundedNumber] | None = Field(default=None, min_length=1)
    exclude_zero: bool = False

    @model_validator(mode="after")
    def _one_way(self) -> RandomSpec:
        ranged = self.low is not None and self.high is not None
        if ranged == (self.choices is not None):
            raise Refusal("give either low and high, or choices")
        if ranged and self.low > self.high:  # type: ignore[operator]
            raise Refusal("low must not exceed high")
        return self


def _numbers(value: Any) -> list[Any]:
    """Every number of a scalar, list or list of lists."""
    return [n for item in value for n in _numbers(item)] if isinstance(value, list) else [value]


def _decimals_of(number: float) -> int:
    """The decimals a number needs to be written exactly (0.5 -> 1, 2.0 -> 0), up to 6."""
    return next((d for d in range(7) if round(number, d) == number), 6)


class ParamSpec(Strict):
    """A parameter: a scalar, vector or matrix of random numbers, and the page's own value."""

    shape: list[Dimension] = Field(default=[], max_length=2)
    random: RandomSpec
    page: Number | list[Number] | list[list[Number]] | None = None
    show: bool = True

    @field_validator("page")
    @classmethod
    def _page_in_range(cls, value: Any) -> Any:
        for number in _numbers(value) if value is not None else []:
            _in_range(number)
        return value

    def printed_decimals(self, value: Any) -> int:
        """The decimals prompts print `value` of this parameter to: its own for a drawn range; for one of the
        choices, as many as the value needs (0.5 needs 1, 5.67 two: not 5.670), at least `decimals`."""
        if self.random.choices is None:
            return self.random.decimals
        return max([self.random.decimals, *(_decimals_of(float(n)) for n in np.ravel(value))])

    @model_validator(mode="after")
    def _page_fits(self) -> ParamSpec:
        if self.page is not None and list(np.shape(self.page)) != list(self.shape):
            raise Refusal("page value has shape %(found)s, expected %(expected)s", found=str(list(np.shape(self.page))),
                          expected=str(list(self.shape)))
        return self
