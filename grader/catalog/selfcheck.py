"""The catalogue self-check: for every exercise and seed, the reference grades correct in every
accepted syntax, every named mistake grades incorrect under its own name, and every answer a worked
solution prints (in each language) grades correct."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from grader.answers import syntax
from grader.answers.kinds import KINDS, NumericKind, grade_part, render_answer
from grader.answers.tolerance import decimal_places
from grader.catalog.display import ENGLISH, Notation, fill, notation, quantity_decimals, show
from grader.catalog.fields import Place
from grader.catalog.spec import PLACEHOLDER, ExerciseSpec
from grader.catalog.variants import PartVariant, Variant, VariantError, make_variant
from grader.markup import STRAY_DOLLAR, has_stray_dollar
from grader.texts import Text

SELF_CHECK_SEEDS = 20  # what the editor, the import page and a sync check before a numeric exercise is stored


@dataclass
class SelfCheckReport:
    """Counts of what was checked, a line per failure, and a sentence per note: what is allowed but worth an
    author's look (a code mistake that passes some hidden cases), translatable where the editor shows it."""

    exercises: int = 0
    variants: int = 0
    checks: int = 0
    failures: list[str] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)

    def merge(self, other: SelfCheckReport) -> None:
        """Add another report's counts, failures and notes to this one."""
        self.exercises += other.exercises
        self.variants += other.variants
        self.checks += other.checks
        self.failures.extend(other.failures)
        self.notes.extend(other.notes)

    def summary(self) -> str:
        """One line: what was checked and how many failures."""
        return (f"selfcheck: {self.exercises} exercises, {self.variants} variants, "
                f"{self.checks} checks, {len(self.failures)} failures")  # fmt: skip


def _check_part(where: str, part: PartVariant, report: SelfCheckReport) -> None:
    kind, exact = part.spec.type, part.target.exact
    numeric = isinstance(KINDS[kind], NumericKind)  # shapes and index sets have no decimals
    decimals = (decimal_places(part.tolerance, exact, False) or 0) if numeric else 0
    for style in syntax.syntaxes(kind):
        text = render_answer(kind, exact, style, decimals)
        result = grade_part(kind, text, part.target, part.tolerance, part.spec.partial_credit)
        report.checks += 1
        if result.status != "correct":
            report.failures.append(f"{where}: reference in {style} syntax {text!r} -> {result.status}: {result.message}")
    for mutant in part.target.mutants:
        text = render_answer(kind, mutant.routes[0], syntax.syntaxes(kind)[0], decimals)
        result = grade_part(kind, text, part.target, part.tolerance, part.spec.partial_credit)
        report.checks += 1
        if result.status != "incorrect" or result.misconception != mutant.name:
            report.failures.append(f"{where}: mistake {mutant.name} {text!r} -> {result.status}, named {result.misconception}")


def stray_dollars(exercise_id: str, texts: Iterable[tuple[Place, str]]) -> list[str]:
    """A failure for each text with a `$` that opens no formula."""
    # Checked when an exercise is saved or synced, not each time a stored version is read: a version
    # stored before this rule existed stays readable.
    return [f"{exercise_id} {'.'.join(map(str, where))}: {STRAY_DOLLAR}" for where, text in texts
            if has_stray_dollar(text)]  # fmt: skip


class _Recording(Mapping[str, str]):
    """A variant's numbers as one notation writes them, noting each one a template prints and how it reads."""

    def __init__(self, values: Mapping[str, tuple[Any, int]], style: Notation, read_as: Notation,
                 seen: list[tuple[str, str]]) -> None:  # fmt: skip
        self.numbers, self.style, self.read_as, self.seen = values, style, read_as, seen

    def __getitem__(self, name: str) -> str:
        value, decimals = self.numbers[name]
        self.seen.append((name, show(value, decimals, self.read_as)))  # inside $…$ too, as a learner reads it
        return show(value, decimals, self.style)

    def __iter__(self) -> Iterator[str]:
        return iter(self.numbers)

    def __len__(self) -> int:
        return len(self.numbers)


def printed_values(spec: ExerciseSpec, variant: Variant, locale: str) -> list[list[tuple[str, str]] | None]:
    """Per step of the worked solution in `locale`: each placeholder and the number it prints (None for a
    step that is not its template filled with the variant's numbers)."""
    # Written as variants.py writes them: quantities to 3 decimals (or the figures asked), parameters to their own.
    decimals = quantity_decimals(spec, variant.quantities)
    values = {name: (value, decimals[name]) for name, value in variant.quantities.items()}
    values.update({name: (value, spec.params[name].printed_decimals(value)) for name, value in variant.params.items()
                   if name in spec.params})  # fmt: skip
    translation = spec.translations.get(locale)
    style = ENGLISH if translation is None else notation(locale)  # an untranslated exercise shows its English
    templates = (translation.solution if translation is not None else None) or spec.solution
    found: list[list[tuple[str, str]] | None] = []
    for template, filled in zip(templates, variant.solution_in(locale)):
        seen: list[tuple[str, str]] = []
        text = fill(template, _Recording(values, style, style, seen), _Recording(values, style.in_math(), style, seen),
                    locale if translation is not None else "en")
        found.append(seen if text == filled else None)
    return found


def check_printed(spec: ExerciseSpec, variant: Variant, report: SelfCheckReport) -> None:
    """Each answer a worked solution prints, in each language, must grade correct for its part."""
    asked = {p.spec.quantity: p for p in variant.parts if p.spec.entry is None}
    for locale in ("en", *spec.translations):
        for step, values in enumerate(printed_values(spec, variant, locale), start=1):
            where = f"{spec.id} seed {variant.seed} {locale} solution step {step}"
            if values is None:
                report.failures.append(f"{where}: the step is not its template filled with this variant's numbers")
                continue
            # A parameter of the same name is what a placeholder prints; no part asks for it.
            for name, printed in ((n, t) for n, t in values if n in asked and n not in spec.params):
                part = asked[name]
                result = grade_part(part.spec.type, printed, part.target, part.tolerance, part.spec.partial_credit)
                report.checks += 1
                if result.status != "correct":
                    report.failures.append(f"{where} part {part.spec.id}: printed {printed!r} -> {result.status}: "
                                           f"{result.message}")  # fmt: skip


def check_params_shown(spec: ExerciseSpec, variant: Variant, report: SelfCheckReport) -> None:
    """Each parameter a text prints must show its drawn value: 0.5 is not printed "0"."""
    printed = {name for _, text in spec.texts() for name in PLACEHOLDER.findall(text)}
    for name in sorted(printed & set(spec.params)):
        drawn = variant.params[name]
        value, decimals = np.asarray(drawn, dtype=float), spec.params[name].printed_decimals(drawn)
        report.checks += 1
        if not np.allclose(np.round(value, decimals), value, rtol=0.0, atol=1e-9):
            report.failures.append(f"{spec.id} seed {variant.seed}: parameter {name} = {variant.params[name]} is "
                                   f"printed {show(variant.params[name], decimals)}")  # fmt: skip


def check_spec(spec: ExerciseSpec, seeds: Iterable[int]) -> SelfCheckReport:
    """Self-check one exercise over the given seeds."""
    report = SelfCheckReport(exercises=1, failures=stray_dollars(spec.id, spec.texts()))
    for seed in seeds:
        try:
            variant = make_variant(spec, seed)
        except VariantError as error:
            report.failures.append(f"{spec.id} seed {seed}: {error}")
            continue
        report.variants += 1
        for part in variant.parts:
            _check_part(f"{spec.id} seed {seed} part {part.spec.id}", part, report)
        check_printed(spec, variant, report)
        check_params_shown(spec, variant, report)
    return report


def check_catalog(specs: Iterable[ExerciseSpec], seeds: int) -> SelfCheckReport:
    """Self-check every exercise over seeds 0 .. seeds-1."""
    report = SelfCheckReport()
    for spec in specs:
        report.merge(check_spec(spec, range(seeds)))
    return report
