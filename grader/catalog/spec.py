"""Exercise specs, validated with pydantic in strict mode so a typo is an error, never a guess."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import Field, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from grader.catalog.misconceptions import MISCONCEPTIONS, known_words
from grader.catalog.plurals import PLURAL, plural_problems
from grader.catalog.policy import AttemptPolicy
from grader.catalog.formula_model import FORMULA, FormulaMistake, FormulaText, formula_scenario_of
from grader.catalog.scenarios import SCENARIOS, Scenario
from grader.catalog.skills import MISTAKE_SKILLS, SkillId, distinct
from grader.catalog.fields import MAX_POSITION, ParamSpec, PartSpec, Place, Slug, Title
from grader.catalog.translations import Localised, Locale, Translation
from grader.markup import math_problems
from grader.formulas.budget import VARIANT_SECONDS, OutOfTime, time_budget
from grader.formulas.program import ProgramError
from grader.texts import Refusal, Text, say

PLACEHOLDER = re.compile(r"\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}")
# The two kinds of exercise: typed answers (ExerciseSpec below) and code (grader.codecheck).
NUMERIC_KIND = "numeric"
CODE_KIND = "code"


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
    # The route the texts print: full precision, or the hand route (a lesson's numbers as it rounds them).
    shown: Literal["exact", "hand"] | None = None
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
                                   self.well_posed, [p.quantity for p in self.parts], self.shown == "hand")  # fmt: skip

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
        self._check_mistakes_listed()
        self._check_labels()
        self._check_placeholders(set(self.params) | set(scenario.quantities))
        return self

    def _formulas(self) -> None:
        formulas = {"compute": self.compute, "mistakes": self.mistakes, "hand": self.hand, "well_posed": self.well_posed,
                    "unchecked": self.unchecked, "shown": self.shown}  # fmt: skip
        if self.model != FORMULA:
            given = [k for k, v in formulas.items() if v is not None]
            if given:
                raise Refusal("%(fields)s: only for model: formula", fields=", ".join(given))
            return
        if not self.compute:
            raise Refusal("compute: a formula exercise computes its answers here, one named step per line")
        if self.shown == "hand" and not self.hand:
            raise Refusal("shown: hand prints the hand route; give that route under hand")
        try:
            example = self._page_example(self.scenario)
        except ProgramError as error:
            raise _located(str(error), error.where, "") from None
        except OutOfTime as error:
            raise _located(f"the page's example: {error}", ("compute",), "") from None
        self._check_page_example(example)
        for name, mistake in (self.mistakes or {}).items():
            mistake.words(name)
        for step in self.unchecked or {}:
            if step not in self.compute:
                raise _located(f"{step!r} is not a step of compute", ("unchecked", step), step)

    def _page_example(self, scenario: Scenario) -> list[dict[str, Any]]:
        """The right routes of the page's example, after running every route (so that a step that cannot run is
        placed); empty when a parameter has no page value."""
        page = {name: p.page for name, p in self.params.items()}
        if None in page.values():
            return []
        values = {k: np.asarray(v) if isinstance(v, list) else v for k, v in page.items()}
        with time_budget(VARIANT_SECONDS):  # every route together, as for one variant
            right = scenario.routes(values, None)
            for route in scenario.mistakes:
                scenario.routes(values, route)
        return right

    def _check_page_example(self, routes: list[dict[str, Any]]) -> None:
        # A NaN anywhere is a slip (0/0, the log of a negative number); an infinity may be on the way to an
        # answer (a causal mask's -inf before the softmax), but not where a part asks for it or a text prints it.
        shown = {p.quantity for p in self.parts} | {n for _, text in self.texts() for n in PLACEHOLDER.findall(text)}
        for quantities in routes:
            for step in self.compute or {}:
                value = np.asarray(quantities[step])
                if not np.issubdtype(value.dtype, np.number):
                    continue
                if np.any(np.isnan(value)):
                    raise _located("the page's example gives NaN (not a number) here; change the formula or the "
                                   "parameters' page values", ("compute", step), step)  # fmt: skip
                if step in shown and not np.all(np.isfinite(value)):
                    raise _located("the page's example gives an infinite value here, which a part asks for or a "
                                   "text prints; change the formula or the parameters' page values",
                                   ("compute", step), step)  # fmt: skip

    def _check_mistakes_listed(self) -> None:
        listed = {ref.name for part in self.parts for ref in part.misconceptions}
        for name in self.mistakes or {}:
            if name not in listed:
                raise _located(f"{name!r} is listed on no part, so no answer is ever named by it: add it to a "
                               "part's misconceptions, or remove it", ("mistakes", name), name)  # fmt: skip

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
            for problem in _text_problems(text, known, "en"):
                raise Refusal(problem)
        for where, text in self.texts():
            if where[0] == "translations":
                for problem in _text_problems(text, known, str(where[1])):
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


def _text_problems(text: str, known: set[str], locale: str) -> list[Text]:
    """Why a prompt or solution step in `locale` cannot be shown: unknown placeholders, plural words that
    miss one of the language's categories, then math that cannot render."""
    unknown = [say("placeholder %(placeholder)s names no parameter or quantity", placeholder="{{" + name + "}}")
               for name in PLACEHOLDER.findall(text) if name not in known]  # fmt: skip
    plain = PLURAL.sub("x", PLACEHOLDER.sub("0", text))
    return [*unknown, *plural_problems(text, locale, known), *map(Text, math_problems(plain))]


def _located(problem: str, where: Place, text: str) -> ValidationError:
    """An error placed at `where` (e.g. translations.pt.prompt), which names the language and the field."""
    # A ValueError raised in a model validator is placed on the whole file; pydantic keeps the places
    # of a ValidationError raised there. The problem goes in as context: it is no message template.
    error = PydanticCustomError("value_error", "{problem}", {"problem": problem})
    details = InitErrorDetails(type=error, loc=where, input=text)
    return ValidationError.from_exception_data("ExerciseSpec", [details])
