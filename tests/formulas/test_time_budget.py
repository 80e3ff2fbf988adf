"""One time budget for a whole piece of work (a variant and all its draws, the cases of a submission),
looked at inside each formula; and the save check, which tries random seeds as learners get them."""

from __future__ import annotations

import pytest

from grader.catalog.catalog import Catalog
from grader.catalog.draw_check import random_seeds
from grader.catalog.formula_model import FORMULA
from grader.catalog.loader import spec_from_text
from grader.catalog.selfcheck import check_spec
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import MAX_DRAWS, Draws, VariantError, make_variant
from grader.codecheck.prepare import prepare
from grader.codecheck.spec import CodeExerciseSpec, code_spec_from_text
from grader.formulas.budget import OutOfTime, time_budget
from grader.formulas.program import build_program
from grader.services.save_check import self_check
from tests.formulas.hostile import BREAKING, HEAVY_STEPS, LURKING, SLOW, SLOW_CODE, heavy_steps, numeric


def spec_of(source: str) -> ExerciseSpec:
    found, errors = spec_from_text(source, "hostile.yaml")
    assert errors == [] and found is not None, errors
    return found


def test_the_budget_stops_a_formula_in_the_middle_not_between_steps() -> None:
    heavy = HEAVY_STEPS.splitlines()[0].split(": ", 1)[1]  # one step of about 35 ms
    program = build_program(["n"], {"a": heavy}, {})
    with time_budget(0.005), pytest.raises(OutOfTime, match="more than 0.005 s"):
        program.run({"n": 20000})  # the only step: a check between steps would never see the time


def test_every_draw_of_a_variant_shares_one_budget() -> None:
    draws = Draws()
    with pytest.raises(VariantError, match="take too long to compute") as caught:
        make_variant(spec_of(SLOW), 1, draws)
    # Without one budget, each of MAX_DRAWS draws had its own 0.5 s: minutes of a worker per page.
    assert draws.made < MAX_DRAWS / 10, draws
    assert "no well-posed variant" not in str(caught.value)


def test_the_page_example_run_when_the_file_is_read_shares_one_budget() -> None:
    # Read on every save, preview keystroke and sync: 41 routes (the answer and 40 mistakes) of 0.1 s each,
    # each under the old 0.5 s per run.
    mistakes = "".join(f"  m{i}:\n    title: t{i}\n    hint: h{i}\n    replace: {{y: n + {i}}}\n" for i in range(40))
    source = numeric("page-heavy", "hostile", "  n: {random: {low: 19999, high: 20000}, page: 20000}\n",
                     heavy_steps(10)).replace("mistakes:\n", "mistakes:\n" + mistakes)  # fmt: skip
    found, errors = spec_from_text(source, "page-heavy.yaml")
    assert found is None
    assert [(e.field, e.message) for e in errors] == [
        ("compute", "the page's example: the formulas take too long to compute (more than 1 s)")]


def test_the_save_check_tries_random_seeds_as_learners_get_them() -> None:
    lurking = spec_of(LURKING)
    assert check_spec(lurking, range(20)).failures == []  # the file passes at the fixed seeds alone
    failures = self_check(LURKING).failures
    assert any("take too long to compute (more than 0.5 s)" in f for f in failures), failures
    seeds = random_seeds(20)
    assert len(set(seeds)) > 1 and all(1 <= s < 2**31 for s in seeds)


def test_the_save_check_refuses_formulas_that_break_at_most_draws() -> None:
    breaking = spec_of(BREAKING)
    assert check_spec(breaking, range(20)).failures == []  # every variant is found, by redrawing
    [failure] = self_check(BREAKING).failures
    assert "the formulas cannot be computed for" in failure and "too large (at most 20000)" in failure


def test_a_slow_draw_is_refused_by_the_save_check_within_its_budget() -> None:
    [failure] = self_check(SLOW).failures  # stops at the first seed: one budget, not one per seed
    assert "slow-formulas: no variant for seed 0: the formulas take too long to compute (more than 0.5 s)" in failure


def code_spec(source: str) -> CodeExerciseSpec:
    found, errors = code_spec_from_text(source, "hostile.yaml")
    assert errors == [] and found is not None, errors
    return found


def test_a_formula_reference_shares_one_budget_for_a_submissions_cases() -> None:
    with pytest.raises(OutOfTime, match="more than 2 s"):
        prepare(code_spec(SLOW_CODE), 1)  # 40 cases of about 0.2 s each, each under the old 0.5 s


def test_the_save_check_refuses_a_slow_formula_reference() -> None:
    [failure] = self_check(SLOW_CODE).failures
    assert failure.startswith("slow-code seed 0: the formulas take too long to compute (more than 1 s)"), failure


def test_the_shipped_formula_exercises_find_a_well_posed_draw_with_room() -> None:
    # Counted in draws, not timed: a time limit fired on a loaded CI box (the processor time a draw takes grows when
    # two workers share a core's caches). A draw costs about 1 ms (ffn-design-edit: 138 draws, 0.13 s, seed 22);
    # at seeds 0-199 the most any exercise needs is 220 (swiglu-by-hand, seed 133), and half of MAX_DRAWS leaves
    # room for unluckier seeds.
    catalog, errors = Catalog.from_directory()
    assert errors == []
    formulas = [spec for spec in catalog if spec.model == FORMULA]
    assert len(formulas) >= 10
    for spec in formulas:
        for seed in range(200):
            draws = Draws()
            make_variant(spec, seed, draws)
            assert draws.made <= MAX_DRAWS // 2, (spec.id, seed, draws.made)
