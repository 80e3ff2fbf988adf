"""Turn an exercise spec and a seed into a variant: parameters, prompt, targets and mistakes.

Deterministic in (lesson, model, parameter specs, seed). Seed 0 is the lesson page's own example when
the spec gives one (`page:` on every parameter). Other seeds draw parameters until the variant is well
posed: the scenario's own conditions hold, and every required mistake gives an answer that cannot be
confused with the right one (nor with another mistake).

A lesson tells one story: each parameter is drawn from a generator keyed by the lesson, the model and
the parameter's name, not by the exercise. So the exercises of a lesson that compute with one model
and declare a parameter alike (block-residual, block-layernorm, ... all take x and a) show a learner
the same token for the same seed, each starting from where the previous one ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from grader.answers.kinds import KINDS, NumericKind
from grader.answers.results import Mutant, Target
from grader.answers.tolerance import Tolerance
from grader.texts import Text
from grader.catalog.draws import draw_params
from grader.catalog.display import (ENGLISH, Notation, fill, has_reach, notation, quantity_decimals,
                                    show)
from grader.catalog.misconceptions import known_words
from grader.catalog.reach import Reach, route_reach
from grader.catalog.skipped import pick_entry, skipped_problem
from grader.catalog.scenarios import Scenario
from grader.catalog.fields import PartSpec
from grader.catalog.spec import PLACEHOLDER, ExerciseSpec
from grader.formulas.budget import VARIANT_SECONDS, OutOfTime, time_budget
from grader.formulas.expression import FormulaError

MAX_DRAWS = 500


class VariantError(ValueError):
    """No well-posed variant exists for this seed (a spec problem, caught by the self-check)."""


@dataclass(frozen=True)
class PartVariant:
    """One part of a variant: its spec, what it accepts and its tolerance."""

    spec: PartSpec
    target: Target
    tolerance: Tolerance
    # Per language the exercise gives this part a label in: that label.
    labels: Mapping[str, str] = field(default_factory=dict)

    def answer_json(self) -> Any:
        """The expected answer as JSON."""
        return KINDS[self.spec.type].to_json(self.target.exact)

    def label_in(self, locale: str) -> str:
        """The label in `locale` if the exercise gives one there, else as written."""
        return self.labels.get(locale, self.spec.label)

    def digits_asked(self) -> Text | None:
        """The precision a numeric part asks for ("give at least 3 decimal places"); None for shapes and sets."""
        kind = KINDS[self.spec.type]
        return kind.digits_asked(self.target, self.tolerance) if isinstance(kind, NumericKind) else None


@dataclass(frozen=True)
class Variant:
    """A learner's own version of an exercise."""

    exercise_id: str
    seed: int
    params: dict[str, Any]
    quantities: dict[str, Any]
    parts: tuple[PartVariant, ...]
    prompt: str
    solution: tuple[str, ...]
    # Per language the exercise is translated into: its prompt and worked solution, filled in.
    translated: Mapping[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)

    def prompt_in(self, locale: str) -> str:
        """The prompt in `locale` if the exercise is translated into it, else as written."""
        return self.translated[locale][0] if locale in self.translated else self.prompt

    def solution_in(self, locale: str) -> tuple[str, ...]:
        """The worked solution in `locale` if the exercise is translated into it, else as written."""
        return self.translated[locale][1] if locale in self.translated else self.solution

    def hints_in(self, locale: str) -> tuple[str, ...]:
        """The hints in `locale`: the worked solution's steps up to its last, which gives the answers."""
        return self.solution_in(locale)[:-1]

    def part(self, part_id: str) -> PartVariant:
        """The part with this id (KeyError if none)."""
        for part in self.parts:
            if part.spec.id == part_id:
                return part
        raise KeyError(part_id)


def _page_params(spec: ExerciseSpec) -> dict[str, Any] | None:
    if any(p.page is None for p in spec.params.values()):
        return None
    return {name: p.page if np.ndim(p.page) == 0 else np.asarray(p.page)  # type: ignore[arg-type]
            for name, p in spec.params.items()}  # (the check above leaves no page None)


def printed_steps(spec: ExerciseSpec, quantities: Mapping[str, Any]) -> dict[str, int]:
    """Each quantity the prompt or worked solution (hints included) prints, with the decimals it is printed to."""
    names = {name for _, text in spec.texts() for name in PLACEHOLDER.findall(text)}
    decimals = quantity_decimals(spec, quantities)
    return {name: decimals[name] for name in sorted(names) if name not in spec.params}


class _Builder:
    """Computes routes once per mistake, and the route interval once, for one parameter set."""

    def __init__(self, scenario: Scenario, params: Mapping[str, Any],
                 words: Callable[[str], tuple[str, str]] = known_words,
                 printed: Mapping[str, int] | None = None) -> None:  # fmt: skip
        self.scenario, self.params, self.words, self.printed = scenario, params, words, printed or {}
        self._routes: dict[str | None, list[dict[str, Any]]] = {}
        self._reach: Reach | None = None

    def routes(self, mistake: str | None) -> list[dict[str, Any]]:
        if mistake not in self._routes:
            self._routes[mistake] = self.scenario.routes(self.params, mistake)
        return self._routes[mistake]

    def reach(self, parts: list[PartSpec]) -> Reach:
        """Every result the printed numbers lead to, per real-valued part's quantity (worked out once)."""
        if self._reach is None:
            routes, retrace, params = self.routes(None), self.scenario.retrace, self.params
            wanted = [p.quantity for p in parts if has_reach(p)] if retrace else []
            alternatives = [self.scenario.constants(params)] if self.scenario.constants and wanted else []
            # Step by step only where the scenario declares its prompt's rounded constants (see route_reach).
            self._reach = route_reach(lambda fixed: retrace(params, fixed, routes[0]) if retrace else {}, routes[0],
                                      routes[self.scenario.shown_route], self.printed, wanted, alternatives,
                                      stepped=self.scenario.constants is not None)  # fmt: skip
        return self._reach

    def part(self, part: PartSpec, labels: Mapping[str, str], reach: Reach | None = None) -> PartVariant | str:
        """The part's variant (with its translated `labels`), or why these parameters make it ill-posed."""
        kind, tol = KINDS[part.type], part.tolerance.rule()
        right = tuple(pick_entry(q[part.quantity], part) for q in self.routes(None))
        found = reach.of(part.quantity) if reach is not None else None
        ends = (pick_entry(found[0], part), pick_entry(found[1], part)) if found is not None else None
        accepted = (*right, *(ends or ()))
        mutants: list[Mutant] = []
        # Optional mistakes left unnamed because another gives the same number: naming any of them
        # would be a guess, so a later one with that number is left unnamed too.
        unnamed: list[Mutant] = []
        optional = {ref.name for ref in part.misconceptions if ref.optional}
        reasons = {ref.name for ref in part.misconceptions if ref.reason}
        for ref in part.misconceptions:
            title, hint = self.words(ref.name)
            mutant = Mutant(ref.name, title, hint,
                            tuple(pick_entry(q[part.quantity], part) for q in self.routes(ref.name)))  # fmt: skip
            clashes = [m for m in mutants if not kind.distinguishable(mutant.routes, m.routes, tol, right[0])]
            if not ref.optional:
                if clashes or not kind.distinguishable(accepted, mutant.routes, tol):
                    names = [m.name for m in clashes] or "the answer"
                    return f"part {part.id}: {ref.name} cannot be told apart from {names}"
                mutants.append(mutant)
                continue
            clashes += [m for m in unnamed if not kind.distinguishable(mutant.routes, m.routes, tol, right[0])]
            if clashes:
                unnamed += [mutant, *(m for m in clashes if m.name in optional)]
                dropped = {m.name for m in unnamed}
                mutants = [m for m in mutants if m.name not in dropped]
            elif kind.distinguishable(accepted, mutant.routes, tol):
                mutants.append(mutant)
            elif ref.name not in reasons:
                return f"part {part.id}: {ref.name} gives an accepted answer (an optional mistake may, with a reason)"
        target = Target(right, tuple(mutants), shown=self.scenario.shown_route, reach=ends)
        return PartVariant(part, target, tol, labels)


def _build(spec: ExerciseSpec, seed: int, params: dict[str, Any]) -> Variant | str:
    scenario = spec.scenario
    reason = scenario.well_posed(params)
    if reason:
        return reason
    builder = _Builder(scenario, params, spec.mistake_words)
    quantities = builder.routes(None)[scenario.shown_route]
    decimals = quantity_decimals(spec, quantities)
    builder.printed = {**{name: decimals[name] for name in scenario.carried}, **printed_steps(spec, quantities)}
    reach = builder.reach(spec.parts)
    parts = [builder.part(p, _labels(spec, p.id), reach) for p in spec.parts]
    problems = [p for p in parts if isinstance(p, str)]
    if problems:
        return problems[0]
    skipped = skipped_problem(spec, _page_params(spec), params, parts)  # type: ignore[arg-type]
    if skipped:
        return skipped
    values = {name: (value, decimals[name]) for name, value in quantities.items()}
    values.update({name: (params[name], p.printed_decimals(params[name])) for name, p in spec.params.items()})
    written: dict[Notation, Shown] = {}
    for style in {ENGLISH, *(notation(locale) for locale in spec.translations)}:
        written[style] = (_Written(values, style), _Written(values, style.in_math()))
    english = written[ENGLISH]
    return Variant(
        exercise_id=spec.id, seed=seed, params=params, quantities=quantities,
        parts=tuple(parts),  # type: ignore[arg-type]
        prompt=fill(spec.prompt, *english), solution=tuple(fill(s, *english) for s in spec.solution),
        translated={locale: _filled(spec, locale, written[notation(locale)]) for locale in spec.translations},
    )  # fmt: skip


class _Written(dict[str, str]):
    """Quantities and parameters as written in one notation, each worked out when a template first uses it."""

    def __init__(self, values: Mapping[str, tuple[Any, int]], style: Notation) -> None:
        super().__init__()
        self.sources, self.style = values, style

    def __missing__(self, name: str) -> str:
        value, decimals = self.sources[name]
        self[name] = text = show(value, decimals, self.style)
        return text


Shown = tuple[_Written, _Written]


def _labels(spec: ExerciseSpec, part_id: str) -> dict[str, str]:
    """The part's label in each language the exercise translates it into."""
    return {locale: spec.label_in(part_id, locale) for locale in spec.translations}


def _filled(spec: ExerciseSpec, locale: str, shown: Shown) -> tuple[str, tuple[str, ...]]:
    """The prompt and solution of one translation with this variant's numbers in."""
    steps = spec.translations[locale].solution
    steps_filled = tuple(fill(s, *shown, locale) for s in (steps or spec.solution))
    return fill(spec.prompt_in(locale), *shown, locale), steps_filled


@dataclass
class Draws:
    """A tally over the variants made with it: draws made, and draws whose formulas could not be computed."""

    made: int = 0
    broken: int = 0
    example: str = ""  # why one broken draw broke


def make_variant(spec: ExerciseSpec, seed: int, draws: Draws | None = None) -> Variant:
    """The variant of `spec` for `seed`, its draws tallied in `draws`; raises VariantError when none is
    well posed within MAX_DRAWS draws and VARIANT_SECONDS (or a shorter budget already open)."""
    if seed < 0:
        raise VariantError("seeds are non-negative integers")
    try:
        with time_budget(VARIANT_SECONDS):
            return _make(spec, seed, draws or Draws())
    except OutOfTime as error:  # not a reason to redraw: the next draw would be as slow
        raise VariantError(f"{spec.id}: no variant for seed {seed}: {error}") from None


def variant_from_params(spec: ExerciseSpec, params: Mapping[str, Any]) -> Variant:
    """The variant that drawn parameters make (a learner's shown numbers read back); raises VariantError when
    they are not well posed."""
    with time_budget(VARIANT_SECONDS):
        built = _build(spec, 0, dict(params))
    if isinstance(built, str):
        raise VariantError(f"{spec.id}: these parameters are ill-posed: {built}")
    return built


def _make(spec: ExerciseSpec, seed: int, draws: Draws) -> Variant:
    page = _page_params(spec) if seed == 0 else None
    if page is not None:
        built = _drawn(spec, seed, page, draws, story=False)
        if isinstance(built, str):
            raise VariantError(f"{spec.id}: the page's example is ill-posed: {built}")
        return built
    last = ""
    for draw in range(MAX_DRAWS):
        built = _drawn(spec, seed, draw_params(spec, seed, draw), draws, story=True)
        if not isinstance(built, str):
            return built
        last = built
    raise VariantError(f"{spec.id}: no well-posed variant for seed {seed} in {MAX_DRAWS} draws ({last})")


def _drawn(spec: ExerciseSpec, seed: int, params: dict[str, Any], draws: Draws, story: bool) -> Variant | str:
    """The variant of one draw of parameters, or why it is redrawn."""
    draws.made += 1
    try:
        unsuited = spec.scenario.suits_story(params) if story else None
        return unsuited or _build(spec, seed, params)
    except OutOfTime:
        raise
    except FormulaError as error:  # these numbers break a formula (an index past the end, ...): redraw
        draws.broken += 1
        draws.example = draws.example or str(error)
        return f"the formulas cannot be computed for these numbers: {error}"
