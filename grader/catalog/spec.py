"""Exercise specs, validated with pydantic in strict mode so a typo is an error, never a guess."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

import numpy as np
from pydantic import AfterValidator, Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from grader.answers.kinds import KINDS
from grader.answers.tolerance import Tolerance
from grader.catalog.misconceptions import MISCONCEPTIONS, known_words
from grader.catalog.policy import AttemptPolicy
from grader.catalog.formula_model import FORMULA, FormulaMistake, FormulaText, formula_scenario_of
from grader.catalog.scenarios import SCENARIOS, Scenario
from grader.catalog.skills import MISTAKE_SKILLS, SkillId, distinct
from grader.catalog.strict import Strict
from grader.catalog.translations import Localised, Locale, Translation
from grader.markup import math_problems
from grader.formulas.budget import VARIANT_SECONDS, OutOfTime, time_budget
from grader.formulas.program import ProgramError
from grader.texts import Refusal, Text, say

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
PLACEHOLDER = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
Number = Union[int, float]
Place = tuple[Union[str, int], ...]  # a field's place in an exercise file, as pydantic reports it
# The two kinds of exercise: typed answers (ExerciseSpec below) and code (grader.codecheck).
NUMERIC_KIND = "numeric"
CODE_KIND = "code"
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

    @property
    def printed_decimals(self) -> int:
        """The decimals prompts print this parameter to: its own, or as many as its choices have (0.5 needs 1)."""
        own = [_decimals_of(float(c)) for c in self.random.choices or []]
        return max([self.random.decimals, *own])

    @model_validator(mode="after")
    def _page_fits(self) -> ParamSpec:
        if self.page is not None and list(np.shape(self.page)) != list(self.shape):
            raise Refusal("page value has shape %(found)s, expected %(expected)s", found=str(list(np.shape(self.page))),
                          expected=str(list(self.shape)))
        return self


class ExerciseSpec(Localised, AttemptPolicy):
    """A numeric exercise: prompt, parameters, parts and worked solution."""

    id: Slug
    title: Title
    lesson: Slug
    position: int = Field(default=100, ge=0, le=MAX_POSITION)  # order within the lesson
    kind: Literal["numeric"] = "numeric"
    model: str
    params: dict[str, ParamSpec]
    prompt: str = Field(min_length=1)
    parts: list[PartSpec] = Field(min_length=1)
    solution: list[str] = []
    translations: dict[Locale, Translation] = {}
    # model: formula carries its computation (grader.catalog.formula_model); other models take none.
    compute: dict[str, FormulaText] | None = None  # names checked by grader.formulas.program (NAME_RULE)
    mistakes: dict[Slug, FormulaMistake] | None = None
    hand: dict[str, FormulaText] | None = None
    well_posed: list[FormulaText] | None = None
    # Steps whose skipped-step mutants (grader.catalog.skipped) a draw need not tell apart, with why.
    unchecked: dict[str, Annotated[str, Field(min_length=1, max_length=500)]] | None = None
    skills: list[SkillId] = Field(default=[], max_length=12)  # the skills of parts that name none of their own

    def part_skills(self, part_id: str) -> tuple[str, ...]:
        """The skills a part practises: its own, else the exercise's (none for an unknown part)."""
        part = next((p for p in self.parts if p.id == part_id), None)
        return () if part is None else distinct(part.skills or self.skills)

    def mistake_skills(self, part_id: str, mistake: str) -> tuple[str, ...]:
        """The skills a named mistake on a part shows: the mistake's own, else the catalogue's, else the part's."""
        part = next((p for p in self.parts if p.id == part_id), None)
        ref = next((m for m in part.misconceptions if m.name == mistake), None) if part else None
        if ref and ref.skills:
            return distinct(ref.skills)
        return MISTAKE_SKILLS.get(mistake) or self.part_skills(part_id)

    @property
    def scenario(self) -> Scenario:
        """The computation this exercise asks about: a built-in scenario, or its own formulas."""
        if self.model != FORMULA:
            return SCENARIOS[self.model]
        return formula_scenario_of(list(self.params), self.compute or {}, self.mistakes or {}, self.hand,
                                   self.well_posed, [p.quantity for p in self.parts])  # fmt: skip

    def mistake_words(self, name: str) -> tuple[str, str]:
        """A mistake's title and hint: the exercise's own formula mistake, else the named misconception."""
        if self.mistakes and name in self.mistakes:
            return self.mistakes[name].words(name)
        return known_words(name)

    @model_validator(mode="after")
    def _consistent(self) -> ExerciseSpec:
        self._formulas()
        scenario = self.scenario if self.model == FORMULA else SCENARIOS.get(self.model)
        if scenario is None:
            raise Refusal("model must be one of %(models)s", models=", ".join([*SCENARIOS, FORMULA]))
        missing = set(scenario.params) - set(self.params)
        unknown = set(self.params) - set(scenario.params) - set(scenario.optional)
        if missing or unknown:
            raise Refusal("params: missing %(missing)s, unknown %(unknown)s", missing=str(sorted(missing)),
                          unknown=str(sorted(unknown)))
        self._check_parts(scenario.quantities, scenario.mistakes)
        self._check_labels()
        self._check_placeholders(set(self.params) | set(scenario.quantities))
        return self

    def _formulas(self) -> None:
        formulas = {"compute": self.compute, "mistakes": self.mistakes, "hand": self.hand, "well_posed": self.well_posed,
                    "unchecked": self.unchecked}  # fmt: skip
        if self.model != FORMULA:
            given = [k for k, v in formulas.items() if v is not None]
            if given:
                raise Refusal("%(fields)s: only for model: formula", fields=", ".join(given))
            return
        if not self.compute:
            raise Refusal("compute: a formula exercise computes its answers here, one named step per line")
        try:
            scenario = self.scenario
            page = {name: p.page for name, p in self.params.items()}
            if None not in page.values():  # the page's example runs here, so a step that cannot run is placed
                with time_budget(VARIANT_SECONDS):  # every route together, as for one variant
                    for route in (None, *scenario.mistakes):
                        scenario.routes({k: np.asarray(v) if isinstance(v, list) else v for k, v in page.items()},
                                        route)  # fmt: skip
        except ProgramError as error:
            raise _located(str(error), error.where, "") from None
        except OutOfTime as error:
            raise _located(f"the page's example: {error}", ("compute",), "") from None
        for name, mistake in (self.mistakes or {}).items():
            mistake.words(name)
        for step in self.unchecked or {}:
            if step not in self.compute:
                raise _located(f"{step!r} is not a step of compute", ("unchecked", step), step)

    def label_in(self, part_id: str, locale: str) -> str:
        """Part `part_id`'s label in `locale` if the exercise gives one there, else as written (KeyError if none)."""
        found = self.translations.get(locale)
        if found is not None and part_id in found.labels:
            return found.labels[part_id]
        for part in self.parts:
            if part.id == part_id:
                return part.label
        raise KeyError(part_id)

    def _check_parts(self, quantities: tuple[str, ...], mistakes: tuple[str, ...]) -> None:
        ids = [p.id for p in self.parts]
        if len(set(ids)) != len(ids):
            raise Refusal("part ids must be unique")
        for i, part in enumerate(self.parts):
            if part.quantity not in quantities:
                raise Refusal("part %(part)s: quantity must be one of %(quantities)s", part=part.id,
                              quantities=", ".join(quantities))
            for j, ref in enumerate(part.misconceptions):
                if ref.name not in MISCONCEPTIONS and not (self.mistakes and ref.name in self.mistakes):
                    raise _located(f"unknown misconception {ref.name!r}", ("parts", i, "misconceptions", j), ref.name)
                if ref.name not in mistakes and ref.name != "transposed-shape":
                    raise Refusal("part %(part)s: model %(model)s cannot compute %(mistake)s", part=part.id,
                                  model=self.model, mistake=repr(ref.name))

    def _check_labels(self) -> None:
        ids = {p.id for p in self.parts}
        for locale, translation in self.translations.items():
            for part_id in translation.labels:
                if part_id not in ids:
                    raise Refusal("translations.%(locale)s.labels: no part has the id %(part)s", locale=locale,
                                  part=repr(part_id))

    def _check_placeholders(self, known: set[str]) -> None:
        for locale, translation in self.translations.items():
            if translation.solution is not None and len(translation.solution) != len(self.solution):
                raise Refusal("translations.%(locale)s: the solution needs %(num)d steps, as in English", locale=locale,
                              num=len(self.solution))
        for text in (self.prompt, *self.solution):
            for problem in _text_problems(text, known):
                raise Refusal(problem)
        for where, text in self.texts():
            if where[0] == "translations":
                for problem in _text_problems(text, known):
                    raise _located(str(problem), where, text)

    def texts(self) -> list[tuple[Place, str]]:
        """The prompt, each solution step and each translated one, with its place in the file."""
        found: list[tuple[Place, str]] = [(("prompt",), self.prompt)]
        found.extend((("solution", i), step) for i, step in enumerate(self.solution))
        for locale, translation in self.translations.items():
            if translation.prompt is not None:
                found.append((("translations", locale, "prompt"), translation.prompt))
            steps = enumerate(translation.solution or [])
            found.extend((("translations", locale, "solution", i), step) for i, step in steps)
        return found


def _text_problems(text: str, known: set[str]) -> list[Text]:
    """Why a prompt or solution step cannot be shown: unknown placeholders, then math that cannot render."""
    unknown = [say("placeholder %(placeholder)s names no parameter or quantity", placeholder="{{" + name + "}}")
               for name in PLACEHOLDER.findall(text) if name not in known]  # fmt: skip
    return [*unknown, *map(Text, math_problems(PLACEHOLDER.sub("0", text)))]


def _located(problem: str, where: Place, text: str) -> ValidationError:
    """An error placed at `where` (e.g. translations.pt.prompt), which names the language and the field."""
    # A ValueError raised in a model validator is placed on the whole file; pydantic keeps the places
    # of a ValidationError raised there. The problem goes in as context: it is no message template.
    error = PydanticCustomError("value_error", "{problem}", {"problem": problem})
    details = InitErrorDetails(type=error, loc=where, input=text)
    return ValidationError.from_exception_data("ExerciseSpec", [details])
