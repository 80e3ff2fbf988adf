"""The catalogue self-check: for every exercise and seed, the reference grades correct in every
accepted syntax, every named mistake grades incorrect under its own name, and every answer a worked
solution prints (in each language) grades correct."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from grader.answers import syntax
from grader.answers.kinds import KINDS, NumericKind, grade_part, render_answer
from grader.answers.tolerance import decimal_places
from grader.catalog.spec import PLACEHOLDER, ExerciseSpec, Place
from grader.catalog.variants import PartVariant, Variant, VariantError, make_variant
from grader.markup import STRAY_DOLLAR, has_stray_dollar


@dataclass
class SelfCheckReport:
    """Counts of what was checked and a line per failure."""

    exercises: int = 0
    variants: int = 0
    checks: int = 0
    failures: list[str] = field(default_factory=list)

    def merge(self, other: SelfCheckReport) -> None:
        """Add another report's counts and failures to this one."""
        self.exercises += other.exercises
        self.variants += other.variants
        self.checks += other.checks
        self.failures.extend(other.failures)

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


# A number written inside $…$ math, as display.Notation.in_math writes it, and as a learner reads it.
_FROM_MATH = (("{,}", ","), ("\\,", "\u202f"), ("\\;", " "))


def printed_values(template: str, filled: str) -> list[tuple[str, str]] | None:
    """Each placeholder of `template` with the text it became in `filled`; None if `filled` is not the template filled in."""
    # Filling replaces the placeholders and nothing else, so the literal text around them finds them.
    names, pattern, start = [], "", 0
    for found in PLACEHOLDER.finditer(template):
        pattern += re.escape(template[start : found.start()]) + "(.+?)"
        names.append(found.group(1))
        start = found.end()
    match = re.fullmatch(pattern + re.escape(template[start:]), filled, re.S)
    if match is None:
        return None
    return [(name, _as_read(text)) for name, text in zip(names, match.groups())]


def _as_read(text: str) -> str:
    for latex, plain in _FROM_MATH:
        text = text.replace(latex, plain)
    return text


def _templates(spec: ExerciseSpec) -> dict[str, list[str]]:
    """The worked solution's templates in English and in each language the exercise is translated into."""
    found = {"en": list(spec.solution)}
    for locale, translation in spec.translations.items():
        found[locale] = list(translation.solution or spec.solution)
    return found


def check_printed(spec: ExerciseSpec, variant: Variant, report: SelfCheckReport) -> None:
    """Each answer a worked solution prints, in each language, must grade correct for its part."""
    asked = {p.spec.quantity: p for p in variant.parts if p.spec.entry is None}
    for locale, templates in _templates(spec).items():
        filled = variant.solution_in(locale) if locale != "en" else variant.solution
        for step, (template, text) in enumerate(zip(templates, filled), start=1):
            where = f"{spec.id} seed {variant.seed} {locale} solution step {step}"
            values = printed_values(template, text)
            if values is None:
                report.failures.append(f"{where}: the printed step does not match its template")
                continue
            # A parameter of the same name is what a placeholder prints; no part asks for it.
            for name, printed in ((n, t) for n, t in values if n in asked and n not in spec.params):
                part = asked[name]
                result = grade_part(part.spec.type, printed, part.target, part.tolerance, part.spec.partial_credit)
                report.checks += 1
                if result.status != "correct":
                    report.failures.append(f"{where} part {part.spec.id}: printed {printed!r} -> {result.status}: "
                                           f"{result.message}")  # fmt: skip


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
    return report


def check_catalog(specs: Iterable[ExerciseSpec], seeds: int) -> SelfCheckReport:
    """Self-check every exercise over seeds 0 .. seeds-1."""
    report = SelfCheckReport()
    for spec in specs:
        report.merge(check_spec(spec, range(seeds)))
    return report
