"""The save check: the self-check an exercise source passes before the editor, the import page, a
publish or a sync stores it, kept per source in this process once it passes."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from grader.catalog.draw_check import SAVE_CHECK_SECONDS
from grader.catalog.selfcheck import SELF_CHECK_SEEDS, SelfCheckReport, check_spec
from grader.codecheck.selfcheck import CODE_SELF_CHECK_SEEDS, check_code_spec, check_formula_draws
from grader.codecheck.spec import CodeExerciseSpec
from grader.formulas.budget import time_budget
from grader.services.exercises import AnySpec, parse_any_source, source_hash
from grader.texts import Text


@dataclass(frozen=True)
class SelfCheck:
    """What the save check found: failures (the source may not be stored) and notes (it may, but they are
    worth the author's look: a code mistake that some hidden cases do not test)."""

    failures: list[str] = field(default_factory=list)
    notes: tuple[Text, ...] = ()


def _self_check(spec: AnySpec) -> SelfCheckReport:
    # Instructors' formulas are also tried at random seeds, as learners get them, within budgets well
    # inside the learners' (check_formula_draws), and the whole check within one budget.
    with time_budget(SAVE_CHECK_SECONDS):
        draws = check_formula_draws(spec)
        if draws:
            return SelfCheckReport(failures=draws)
        if isinstance(spec, CodeExerciseSpec):
            return check_code_spec(spec, range(CODE_SELF_CHECK_SEEDS))
        return check_spec(spec, range(SELF_CHECK_SEEDS))


class _Failed(Exception):
    """The self-check's failures, raised so that lru_cache keeps only passes."""

    def __init__(self, failures: list[str]) -> None:
        super().__init__(failures)
        self.failures = failures


@lru_cache(maxsize=256)
def _passes_by_hash(digest: str, source: str) -> tuple[Text, ...]:
    # A source that passed is not checked again in this process, so a save after a preview, or a sync
    # after an import, does not repeat it; its notes are kept with the pass, as they would come out the
    # same. A failure is not kept: a draw that ran out of time on a busy machine, or at an unlucky random
    # seed, is tried afresh.
    report = _self_check(parse_any_source(source, "stored"))
    if report.failures:
        raise _Failed(report.failures)
    return tuple(report.notes)


def self_check(source: str) -> SelfCheck:
    """The self-check of a valid source (no failures: it may be stored): on SELF_CHECK_SEEDS variants of a
    numeric exercise, or the cases of CODE_SELF_CHECK_SEEDS seeds of a code one, and for instructors'
    formulas the draws at random seeds too; with the notes of a source that passes."""
    try:
        return SelfCheck(notes=_passes_by_hash(source_hash(source), source))
    except _Failed as failed:
        return SelfCheck(failures=failed.failures)
    except Exception as error:  # noqa: BLE001 - never a 500, nor a stopped sync
        return SelfCheck(failures=[f"the reference computation failed: {error}"])
