"""The catalogue self-check: for every exercise and seed, the reference grades correct in every
accepted syntax, and every named mistake grades incorrect under its own name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from grader.answers import syntax
from grader.answers.kinds import KINDS, NumericKind, grade_part, render_answer
from grader.answers.tolerance import decimal_places
from grader.catalog.spec import ExerciseSpec, Place
from grader.catalog.variants import PartVariant, VariantError, make_variant
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
    return report


def check_catalog(specs: Iterable[ExerciseSpec], seeds: int) -> SelfCheckReport:
    """Self-check every exercise over seeds 0 .. seeds-1."""
    report = SelfCheckReport()
    for spec in specs:
        report.merge(check_spec(spec, range(seeds)))
    return report
