"""The save check's look at a formula exercise's draws: at the fixed seeds and at random ones, as learners
get, every variant is made within a budget well inside the learners' own, and few draws break a formula.

The self-check proper (grader.catalog.selfcheck) uses fixed seeds, so that a save is repeatable; a file
whose formulas are cheap at those seeds and expensive elsewhere would pass it and fail for everyone else.
Random seeds make that a gamble the file loses.
"""

from __future__ import annotations

import secrets
from typing import Iterable

from grader.catalog.formula_model import FORMULA
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import VARIANT_SECONDS, Draws, VariantError, make_variant
from grader.formulas.budget import time_budget

# A variant must be made in this share of the learners' budget, so that a busier machine than the one
# that saved the file still makes it in time.
SAVE_SECONDS = VARIANT_SECONDS / 2
# The whole save check of one exercise (these draws and the self-check's), so that a hostile file costs an
# instructor's request a few seconds at most; the shipped catalogue's slowest takes about 1 s.
SAVE_CHECK_SECONDS = 5.0
# More broken draws than this share means the formulas fail for many of the numbers they are given.
MAX_BROKEN_SHARE = 0.2


def random_seeds(count: int) -> list[int]:
    """`count` seeds drawn as learners' seeds are (1 to 2**31 - 1)."""
    return [secrets.randbelow(2**31 - 1) + 1 for _ in range(count)]


def check_draws(spec: ExerciseSpec, seeds: Iterable[int], seconds: float = SAVE_SECONDS) -> list[str]:
    """Why the draws of a formula exercise at `seeds` would fail learners (empty: they would not); stops at
    the first seed that fails, so that a hostile file costs one budget, not one per seed."""
    if spec.model != FORMULA:
        return []  # built-in scenarios are the project's own Python, checked by the test suite
    draws = Draws()
    for seed in seeds:
        try:
            with time_budget(seconds):
                make_variant(spec, seed, draws)
        except VariantError as error:
            return [str(error)]
    if draws.broken > MAX_BROKEN_SHARE * draws.made:
        return [f"{spec.id}: the formulas cannot be computed for {draws.broken} of {draws.made} draws "
                f"(for example: {draws.example}); give parameters they can always be computed for"]  # fmt: skip
    return []
