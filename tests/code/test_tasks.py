"""Every task: the reference grades as passed, each mutant is named, cases are deterministic."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from grader.codecheck.compare import WithChanges, compare
from grader.codecheck.model_tasks import COUNT_KEYS
from grader.codecheck.prepare import prepare
from grader.codecheck.tasks import TASKS, get_task, visible_edge_count
from tests.code.support import SPECS, all_mutants, grade_values

SEEDS = range(5)


def test_every_task_has_a_shipped_exercise() -> None:
    assert set(SPECS) == set(TASKS)


@pytest.mark.parametrize("name", TASKS)
def test_signatures_of_reference_and_mutants_match_the_task(name: str) -> None:
    task = get_task(name)
    assert tuple(inspect.signature(task.reference).parameters) == task.params
    for mutant in task.mutants.values():
        params = tuple(inspect.signature(mutant.compute).parameters)
        assert params == task.params, mutant.name


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_reference_passes_its_own_grading(name: str, seed: int) -> None:
    spec = SPECS[name]
    prepared = prepare(spec, seed)
    result = grade_values(spec, prepared, prepared.expected)
    assert (result.status, result.score, result.misconception) == ("passed", 1.0, None)
    assert all(case.status == "passed" for case in result.cases)
    assert len(result.cases) == visible_edge_count(name) + spec.cases.random


@pytest.mark.parametrize("name", TASKS)
def test_reference_outputs_are_finite(name: str) -> None:
    for seed in SEEDS:
        for out in prepare(SPECS[name], seed).expected:
            if isinstance(out, WithChanges):  # microGPT: the logits, then the caches it extended
                assert all(np.all(np.isfinite(np.asarray(cache))) for cache in out.after.values())
                out = out.returned
            values = list(out.values()) if isinstance(out, dict) else out
            assert np.all(np.isfinite(values))


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_every_mutant_is_named(name: str, seed: int) -> None:
    spec = all_mutants(SPECS[name])
    prepared = prepare(spec, seed)
    for mutant, outputs in prepared.mutant_outputs.items():
        result = grade_values(spec, prepared, outputs)
        assert result.status == "failed", mutant
        assert result.misconception == mutant
        assert get_task(name).mutants[mutant].title in result.message


@pytest.mark.parametrize("name", TASKS)
def test_shipped_specs_list_every_mutant_of_their_task(name: str) -> None:
    assert SPECS[name].mutants == list(get_task(name).mutants)


@pytest.mark.parametrize("name", TASKS)
@pytest.mark.parametrize("seed", SEEDS)
def test_mutants_are_distinguishable_from_the_reference(name: str, seed: int) -> None:
    spec = all_mutants(SPECS[name])
    prepared = prepare(spec, seed)
    tol = spec.tolerance
    for mutant, outputs in prepared.mutant_outputs.items():
        pairs = zip(prepared.expected, outputs)
        differs = [compare(e, o, tol.rtol, tol.atol) is not None for e, o in pairs]
        assert any(differs), mutant


@pytest.mark.parametrize("name", TASKS)
def test_cases_are_deterministic_per_seed(name: str) -> None:
    spec = SPECS[name]
    first, again, other = prepare(spec, 7), prepare(spec, 7), prepare(spec, 8)
    assert [c.name for c in first.cases] == [c.name for c in again.cases]
    for a, b in zip(first.expected, again.expected):
        assert compare(a, b, 0.0, 0.0) is None
    differs = [compare(a, b, 0.0, 0.0) is not None for a, b in zip(first.expected, other.expected)]
    assert any(differs)


def test_seed_offset_changes_the_cases() -> None:
    spec = SPECS["gelu"]
    moved = spec.model_copy(update={"cases": spec.cases.model_copy(update={"seed_offset": 1})})
    pairs = zip(prepare(spec, 0).expected, prepare(moved, 0).expected)
    assert any(compare(a, b, 0.0, 0.0) is not None for a, b in pairs)


def test_negative_seeds_are_refused() -> None:
    with pytest.raises(ValueError, match="seed"):
        prepare(SPECS["gelu"], -1)


@pytest.mark.parametrize("name", TASKS)
def test_edge_cases_come_first_and_are_visible(name: str) -> None:
    cases = get_task(name).cases(np.random.default_rng(0), 3)
    flags = [case.visible for case in cases]
    edges = visible_edge_count(name)
    assert flags == [True] * edges + [False] * 3
    assert len({case.name for case in cases}) == len(cases)


def test_layer_norm_edge_cases() -> None:
    cases = {c.name: c.kwargs for c in get_task("layer-norm").cases(np.random.default_rng(3), 0)}
    constant = cases["constant-row"]["x"]
    assert np.any(np.all(constant == constant[:, :1], axis=1))
    scaled = cases["row-times-10"]["x"]
    assert np.allclose(scaled[1], 10 * scaled[0])
    assert np.abs(cases["large-magnitudes"]["x"]).max() > 1e4
    assert cases["single-row"]["x"].shape[0] == 1
    assert cases["gpt2-width-768"]["x"].shape[1] == 768
    assert cases["gpt2-width-768"]["gamma"].shape == (768,)


def test_eps_decides_the_constant_row() -> None:
    spec = SPECS["layer-norm"]
    prepared = prepare(spec, 0)
    index = [c.name for c in prepared.cases].index("constant-row")
    assert np.isnan(prepared.mutant_outputs["no-eps"][index]).any()
    assert np.isfinite(prepared.expected[index]).all()


def test_gelu_cases_cover_a_scalar_and_several_ranks() -> None:
    cases = get_task("gelu").cases(np.random.default_rng(0), 0)
    ranks = {np.ndim(c.kwargs["z"]) for c in cases}
    assert isinstance(cases[0].kwargs["z"], float)
    assert {0, 1, 3} <= ranks


def test_attention_edge_cases_have_one_token_and_overflowing_scores() -> None:
    generated = get_task("causal-attention").cases(np.random.default_rng(0), 0)
    cases = {c.name: c.kwargs for c in generated}
    assert cases["single-token"]["q"].shape[1] == 1
    q, k = cases["large-scores"]["q"], cases["large-scores"]["k"]
    assert (q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])).max() > 709  # exp() overflows


def test_microgpt_cases_walk_a_sequence_with_growing_caches() -> None:
    cases = get_task("microgpt").cases(np.random.default_rng(0), 20)
    emma = [c for c in cases if c.name.startswith("emma")]
    assert [c.kwargs["pos_id"] for c in emma] == list(range(len(emma)))
    assert all(len(c.kwargs["keys"][0]) == c.kwargs["pos_id"] for c in cases)
    assert cases[len(emma)].kwargs["pos_id"] == 15
    assert len(cases[len(emma) + 1].kwargs["keys"]) == 1  # one layer


def test_param_count_reference_matches_llama_3_8b() -> None:
    task = get_task("param-count")
    counts = task.reference(d=4096, n_head=32, n_kv_head=8, d_ff=14336, n_layer=32, vocab=128256)
    assert counts["total"] == 8_030_261_248
    assert counts["block"] == counts["attention"] + counts["ffn"] + counts["norm"]
    assert counts["embeddings"] == 2 * 128256 * 4096
    assert tuple(counts) == COUNT_KEYS
