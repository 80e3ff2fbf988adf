"""Well posed by construction: a draw where leaving out a step the page teaches, or a declared mistake, gives
an accepted answer is refused (unless the exercise says why it may)."""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from grader.catalog.catalog import Catalog, check_answers
from grader.catalog.loader import spec_from_text
from grader.catalog.skipped import skipped_steps
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import Variant, VariantError, make_variant
from grader.formulas.expression import parse_formula

SEEDS = range(200)


def _texts(formula: str) -> set[str]:
    return {s.formula.text for s in skipped_steps({"step": parse_formula(formula)})}


@pytest.mark.parametrize(("formula", "mutant"), [
    ("gap / wj", "gap"),
    ("w * V", "V"),
    ("x @ W2", "x @ W2.T"),
    ("q @ k.T", "q @ k"),
    ("relu(pre)", "pre"),
    ("sqrt(ms + 1e-05)", "sqrt(ms)"),
    ("layer_norm(h, eps=1e-05)", "layer_norm(h, eps=0.0)"),
    ("nonzero(h > 0) + 1", "nonzero(h > 0)"),
])  # fmt: skip
def test_each_kind_of_skipped_step_is_made(formula: str, mutant: str) -> None:
    assert mutant in _texts(formula)


def test_a_factor_set_to_1_that_leaves_a_bare_number_is_no_mutant() -> None:
    assert _texts("10 * h") == {"h"}


def _answer(value: object) -> str:
    return "[" + "; ".join(f"{v:.3f}" for v in np.ravel(np.asarray(value, dtype=float))) + "]"


def _accepted(catalog: Catalog, exercise: str, part: str, wrong: Callable[[Variant], object], seeds: range = SEEDS) -> list[int]:
    """The seeds at which this wrong answer is graded correct."""
    found = []
    for seed in seeds:
        text = _answer(wrong(catalog.variant(exercise, seed)))
        if check_answers(catalog.variant(exercise, seed), {part: text}).parts[part].status == "correct":
            found.append(seed)
    return found


def test_ffn_design_edit_forgetting_to_divide_by_w_j_is_never_accepted(catalog: Catalog) -> None:
    assert _accepted(catalog, "ffn-design-edit", "v_new", lambda v: v.quantities["gap"]) == []


def test_ffn_threshold_without_relu_is_never_accepted(catalog: Catalog) -> None:
    def no_relu(variant: Variant) -> object:
        q = variant.quantities
        return np.asarray(q["x"]) + np.asarray(q["pre"]) @ np.asarray(q["W2"])

    assert _accepted(catalog, "ffn-threshold", "y", no_relu) == []


def test_swiglu_y_as_w2_times_h_is_never_accepted(catalog: Catalog) -> None:
    def transposed(variant: Variant) -> object:
        q = variant.quantities
        return np.asarray(q["h"]) @ np.asarray(q["W2"]).T

    assert _accepted(catalog, "swiglu-by-hand", "y", transposed) == []


def test_attention_with_s_transposed_is_never_accepted(catalog: Catalog) -> None:
    def transposed(variant: Variant) -> np.ndarray:
        return np.asarray(variant.quantities["s"], dtype=float).T

    found = []
    for seed in SEEDS:
        variant = catalog.variant("attention-by-hand", seed)
        text = "; ".join(", ".join(f"{v:.3f}" for v in row) for row in transposed(variant))
        if check_answers(variant, {"s": text}).parts["s"].status == "correct":
            found.append(seed)
    assert found == []


def test_microgpt_layernorm_sigma_for_rmsnorm_r_is_never_accepted(catalog: Catalog) -> None:
    def sigma(variant: Variant) -> str:
        x = np.asarray(variant.quantities["x"], dtype=float)
        return f"{np.sqrt(x.var() + 1e-5):.4f}"

    found = [seed for seed in SEEDS if check_answers(catalog.variant("microgpt-first-step", seed),
             {"r": sigma(catalog.variant("microgpt-first-step", seed))}).parts["r"].status == "correct"]  # fmt: skip
    assert found == []


DEMO = """
id: divide-demo
title: Divide
lesson: demo
model: formula
params:
  a: {random: {low: 1, high: 9}, page: 6}
  b: {random: {choices: [1, 2, 3]}, page: 2}
compute:
  q: a / b
prompt: "Compute $a / b$ for $a$ = {{a}} and $b$ = {{b}}, to 3 decimals."
parts:
  - {id: q, label: q, type: scalar, quantity: q, tolerance: {abs: 0.0005}}
solution:
  - "Divide: {{q}}."
"""


def _spec(text: str) -> ExerciseSpec:
    spec, errors = spec_from_text(text, "demo.yaml")
    assert errors == [] and spec is not None, errors
    return spec


def test_a_draw_where_the_divisor_is_1_is_refused_and_redrawn() -> None:
    spec = _spec(DEMO)
    assert all(make_variant(spec, seed).params["b"] != 1 for seed in range(1, 60))


def test_a_step_listed_under_unchecked_with_its_reason_may_be_skipped() -> None:
    spec = _spec(DEMO + 'unchecked:\n  q: "dividing by 1 is still dividing"\n')
    assert any(make_variant(spec, seed).params["b"] == 1 for seed in range(1, 60))


def test_unchecked_names_a_step_of_compute() -> None:
    spec, errors = spec_from_text(DEMO + 'unchecked:\n  r: "no such step"\n', "demo.yaml")
    assert spec is None and "'r' is not a step of compute" in str(errors)


OPTIONAL = DEMO.replace("compute:\n  q: a / b", "compute:\n  q: a / b\nmistakes:\n  times:\n    title: multiplied\n"
                        "    hint: Divide.\n    replace: {q: a * b}").replace(
    "tolerance: {abs: 0.0005}}", "tolerance: {abs: 0.0005}, misconceptions: [{name: times, optional: true}]}")  # fmt: skip


def test_an_optional_mistake_that_gives_the_answer_is_refused_without_a_reason() -> None:
    # a * b = a / b only at b = 1, which the skipped divisor refuses already; the page (b = 1) shows the rule.
    spec = _spec(OPTIONAL.replace("page: 2}", "page: 1}") + 'unchecked:\n  q: "b = 1 on the page"\n')
    with pytest.raises(VariantError, match="times gives an accepted answer"):
        make_variant(spec, 0)
    reasoned = _spec(OPTIONAL.replace("page: 2}", "page: 1}").replace("optional: true}", 'optional: true, reason: "b may be 1"}')
                     + 'unchecked:\n  q: "b = 1 on the page"\n')  # fmt: skip
    assert make_variant(reasoned, 0).params["b"] == 1


def test_a_reason_is_only_for_an_optional_mistake() -> None:
    spec, errors = spec_from_text(OPTIONAL.replace("{name: times, optional: true}", '{name: times, reason: "why"}'),
                                  "demo.yaml")  # fmt: skip
    assert spec is None and "only an optional mistake may give the right answer" in str(errors)
