"""The simulated learners of benchmarks/adaptive.py answer as their hidden knowledge says, graded by the
service's own rules: a learner who knows is right, one who does not makes a named mistake or a slip."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import pytest

import adaptive_model as model
from adaptive import simulated
from grader.catalog.catalog import check_answers
from grader.catalog.loader import load_specs
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import make_variant

SPECS, _ = simulated(load_specs(Path(__file__).resolve().parents[2] / "exercises")[0])
SKILLS = sorted({s for spec in SPECS for ids in model.part_skills(spec).values() for s in ids})
MISTAKES = sorted({m.name for spec in SPECS for part in spec.parts for m in part.misconceptions})


def learner(known: float, guess: float = 0.0, slip: float = 0.0, mistake: float = 1.0) -> model.Learner:
    traits = model.Traits({s: known for s in SKILLS}, {s: 0.0 for s in SKILLS}, {s: guess for s in SKILLS},
                          {s: slip for s in SKILLS}, {m: mistake for m in MISTAKES})  # fmt: skip
    return model.Learner.start(traits, seed=1, index=0)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_a_learner_who_knows_every_skill_answers_every_part_right(spec: ExerciseSpec) -> None:
    variant = make_variant(spec, 11)
    result = check_answers(variant, learner(1.0).answer(spec, variant))
    assert {p: r.status for p, r in result.parts.items()} == {p.spec.id: "correct" for p in variant.parts}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_a_learner_who_knows_nothing_makes_the_parts_named_mistakes(spec: ExerciseSpec) -> None:
    variant = make_variant(spec, 11)
    result = check_answers(variant, learner(0.0).answer(spec, variant))
    for part in variant.parts:
        named: set[str | None] = {m.name for m in part.target.mutants} or {None}  # None: a slip, none to make
        verdict = result.parts[part.spec.id]
        assert verdict.status == "incorrect"
        assert verdict.misconception in named


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_a_slip_is_a_wrong_answer_no_mistake_explains(spec: ExerciseSpec) -> None:
    variant = make_variant(spec, 12)
    result = check_answers(variant, learner(0.0, mistake=0.0).answer(spec, variant))
    assert all(r.status == "incorrect" for r in result.parts.values())
    assert sum(r.misconception is None for r in result.parts.values()) >= len(result.parts) - 1


def test_knowledge_grows_with_each_practice_and_fades_each_simulated_night() -> None:
    spec = next(s for s in SPECS if s.id == "block-residual")
    (skill,) = model.part_skills(spec)["h"]
    one = learner(0.5)
    one = replace(one, traits=replace(one.traits, learn={s: 0.2 for s in SKILLS}))
    one.answer(spec, make_variant(spec, 3))
    assert one.known[skill] == pytest.approx(0.6)
    assert one.known[next(s for s in SKILLS if s != skill)] == 0.5  # not practised
    for seed in range(model.ATTEMPTS_PER_DAY - 1):
        one.answer(spec, make_variant(spec, seed + 20))
    grown = 1 - 0.5 * 0.8**model.ATTEMPTS_PER_DAY
    assert one.known[skill] == pytest.approx(grown * math.exp(-1 / model.FORGET_DAYS))


def test_the_same_seed_and_index_draw_the_same_learner_for_every_tutor() -> None:
    assert model.draw_traits(33, 4, SKILLS, MISTAKES) == model.draw_traits(33, 4, SKILLS, MISTAKES)
    assert model.draw_traits(33, 4, SKILLS, MISTAKES) != model.draw_traits(33, 5, SKILLS, MISTAKES)
    assert random.Random(0).random() == random.Random(0).random()
