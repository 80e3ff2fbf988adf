"""One token through a lesson: the exercises of a lesson that declare a parameter alike show a learner
the same numbers for the same seed, in the catalogue and on the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from grader.catalog.catalog import Catalog

BLOCK = ("block-residual", "block-layernorm", "block-gelu", "block-mlp", "block-output")
MICROGPT = ("microgpt-stations", "microgpt-params")


@pytest.mark.parametrize("lesson", [BLOCK, MICROGPT], ids=["gpt2-block", "microgpt"])
def test_every_seed_gives_the_lessons_exercises_one_draw(catalog: Catalog, lesson: tuple[str, ...]) -> None:
    for seed in range(0, 301):
        first, *others = (catalog.variant(e, seed).params for e in lesson)
        for other in others:
            assert all(np.array_equal(first[name], other[name]) for name in first), (lesson, seed)


def test_other_seeds_give_other_tokens(catalog: Catalog) -> None:
    tokens = {tuple(catalog.variant("block-residual", seed).params["x"]) for seed in range(1, 41)}
    assert len(tokens) > 30


def test_each_later_prompt_starts_where_the_previous_exercise_ended(catalog: Catalog) -> None:
    residual, layernorm = catalog.variant("block-residual", 11), catalog.variant("block-layernorm", 11)
    h = np.asarray(next(p for p in residual.parts if p.spec.id == "h").answer_json())
    assert np.allclose(layernorm.quantities["h"], h)
    assert layernorm.prompt.count("; ") >= 6  # x₅ and h₅, as vectors
    shown_h = "[" + "; ".join(f"{v:.3f}".replace("-", "−") for v in h) + "]"
    assert shown_h in layernorm.prompt


@pytest.mark.parametrize("seed", [1, 7, 123])
def test_the_command_line_shows_the_same_token(seed: int) -> None:
    def variant(exercise: str) -> dict:  # type: ignore[type-arg]
        out = subprocess.run([sys.executable, "-m", "grader", "variant", exercise, "--seed", str(seed), "--json"],
                             capture_output=True, text=True, check=True).stdout  # fmt: skip
        return json.loads(out)

    residual, layernorm = variant("block-residual"), variant("block-layernorm")
    assert residual["params"] == layernorm["params"]
    assert len(layernorm["hints"]) >= 2 and len(layernorm["solution"]) == len(layernorm["hints"]) + 1
