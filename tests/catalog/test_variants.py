"""Variants: deterministic per (exercise, seed), the page's example at seed 0, well posed elsewhere."""

from __future__ import annotations

import re

import numpy as np
import pytest

from grader.catalog import variants as variants_module
from grader.catalog.catalog import Catalog
from grader.catalog.scenarios.base import Scenario
from grader.catalog.scenarios.toy_block import MIN_SIGMA
from grader.catalog.fields import PartSpec
from grader.catalog.selfcheck import check_catalog
from grader.catalog.variants import VariantError, make_variant
from grader.reference.gpt2 import row_stats


def test_same_exercise_and_seed_give_the_same_variant(catalog: Catalog) -> None:
    spec = catalog.get("block-output")
    a, b = make_variant(spec, 17), make_variant(spec, 17)
    assert a.prompt == b.prompt
    assert all(np.array_equal(a.params[k], b.params[k]) for k in a.params)


def test_other_seeds_give_other_numbers(catalog: Catalog) -> None:
    prompts = {make_variant(catalog.get("block-output"), seed).prompt for seed in range(1, 21)}
    assert len(prompts) == 20


def test_seed_zero_is_the_page_example(catalog: Catalog) -> None:
    variant = catalog.variant("block-output", 0)
    assert variant.params["x"].tolist() == [-0.5, -0.5, -0.5, 1.5]
    assert "[−0.739; 1.411; −0.521; −0.520]" in variant.prompt
    assert catalog.variant("modern-params", 0).params == {"d": 4096, "n_head": 32, "n_kv_head": 8, "n_layer": 32}


def test_drawn_numbers_never_carry_a_negative_zero(catalog: Catalog) -> None:
    """np.round(-0.04, 1) is -0.0, which the JSON variant and a picture's label would show as "−0.0"."""
    for exercise in ("block-residual", "block-layernorm", "ffn-keys"):
        for seed in range(1, 200):
            for value in catalog.variant(exercise, seed).params.values():
                zeros = np.asarray(value, dtype=float)
                assert not np.any((zeros == 0) & np.signbit(zeros)), (exercise, seed)


def test_random_rows_never_have_a_tiny_sigma(catalog: Catalog) -> None:
    for seed in range(1, 200):
        params = catalog.variant("block-layernorm", seed).params
        for row in (params["x"], params["x"] + params["a"]):
            assert float(row_stats(np.asarray(row))[1][0]) >= MIN_SIGMA


def test_ffn_key_scores_are_never_near_zero(catalog: Catalog) -> None:
    for seed in range(1, 100):
        scores = catalog.variant("ffn-keys", seed).quantities["scores"]
        assert np.min(np.abs(scores)) >= 1


def test_optional_mistake_is_dropped_where_it_cannot_be_told_apart(catalog: Catalog) -> None:
    # gelu(1.102) with erf instead of tanh differs by 2e-4: inside the tolerance.
    names = [m.name for m in catalog.variant("block-gelu", 0).part("pos").target.mutants]
    assert names == ["relu", "gelu-no-half"]


def test_negative_seed_is_refused(catalog: Catalog) -> None:
    with pytest.raises(VariantError):
        make_variant(catalog.get("block-gelu"), -1)


def test_warm_check_does_not_recompute_the_reference(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = Catalog([catalog.get("block-mlp")])
    calls = []
    real = variants_module.make_variant
    monkeypatch.setattr("grader.catalog.catalog.make_variant", lambda spec, seed: calls.append(seed) or real(spec, seed))
    for _ in range(5):
        fresh.check("block-mlp", 42, {"m": "1 2 3 4"})
    assert calls == [42]


def test_selfcheck_passes_on_the_shipped_catalogue(catalog: Catalog) -> None:
    report = check_catalog(list(catalog), seeds=30)
    assert report.failures == []
    assert report.variants == 30 * len(list(catalog))


def test_selfcheck_reports_a_mistake_the_tolerance_cannot_tell_apart(catalog: Catalog) -> None:
    loose = catalog.get("block-gelu").model_copy(deep=True)
    object.__setattr__(loose.parts[0].tolerance, "abs", 0.5)
    report = check_catalog([loose], seeds=3)
    assert len(report.failures) == 3
    assert "relu cannot be told apart from the answer" in report.failures[0]


def _named_on_a_count(numbers: dict[str, int], optional: set[str]) -> list[str]:
    """The mistakes a count part names when each listed mistake gives the number in `numbers` (answer 100)."""
    scenario = Scenario(name="counts", params=(), quantities=("n",), mistakes=tuple(numbers),
                        compute=lambda params, mistake, hand: {"n": numbers.get(mistake or "", 100)})  # fmt: skip
    part = PartSpec.model_validate({"id": "n", "label": "n", "type": "integer", "quantity": "n", "misconceptions": [
        {"name": name, "optional": name in optional} for name in numbers]})  # fmt: skip
    built = variants_module._Builder(scenario, {}).part(part, {})
    assert not isinstance(built, str), built
    return [m.name for m in built.target.mutants]


def test_optional_mistakes_that_give_the_same_number_are_none_of_them_named() -> None:
    three = {"forget-layers": 8, "count-biases": 8, "tied-head": 8, "one-ffn-matrix": 50}
    assert _named_on_a_count(three, set(three)) == ["one-ffn-matrix"]
    # A required one stays named (its author asked for it); an optional one with its number does not.
    required_first = {"forget-layers": 8, "count-biases": 8, "tied-head": 50}
    assert _named_on_a_count(required_first, {"count-biases", "tied-head"}) == ["forget-layers", "tied-head"]
    # A required one must be told apart from the optional ones before it: else the numbers are redrawn.
    clash = {"forget-layers": 8, "count-biases": 8}
    scenario_reason = "part n: count-biases cannot be told apart from ['forget-layers']"
    with pytest.raises(AssertionError, match=re.escape(scenario_reason)):
        _named_on_a_count(clash, {"forget-layers"})


def test_the_shown_parameters_read_back_give_the_same_variant(catalog: Catalog) -> None:
    """What a simulated learner (benchmarks/adaptive.py) does with the parameters the API shows."""
    spec = catalog.get("attention-by-hand")
    drawn = make_variant(spec, 23)
    shown = {name: np.asarray(value.tolist()) if hasattr(value, "tolist") else value for name, value in drawn.params.items()}
    rebuilt = variants_module.variant_from_params(spec, shown)
    assert rebuilt.prompt == drawn.prompt
    for again, part in zip(rebuilt.parts, drawn.parts):
        assert np.array_equal(again.target.exact, part.target.exact)
        assert [m.name for m in again.target.mutants] == [m.name for m in part.target.mutants]


def test_ill_posed_parameters_are_refused_when_read_back(catalog: Catalog) -> None:
    spec = catalog.get("block-layernorm")
    flat = {**make_variant(spec, 5).params, "x": np.zeros(4), "a": np.zeros(4)}  # sigma 0: no LayerNorm
    with pytest.raises(VariantError, match="ill-posed"):
        variants_module.variant_from_params(spec, flat)
