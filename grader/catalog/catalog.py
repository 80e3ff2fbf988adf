"""The catalogue: validated exercise specs, their cached variants, and answer checking."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Iterator, Mapping

from grader.answers.kinds import grade_part
from grader.answers.results import ExerciseResult, PartResult
from grader.catalog.loader import SpecError, load_specs
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import Variant, make_variant

VARIANT_CACHE_SIZE = 8192
DEFAULT_EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def check_answers(variant: Variant, answers: Mapping[str, str]) -> ExerciseResult:
    """Grade every part of a variant; a missing part is invalid, unknown keys are ignored."""
    results: dict[str, PartResult] = {}
    for part in variant.parts:
        text = answers.get(part.spec.id, "")
        results[part.spec.id] = grade_part(
            part.spec.type, text if isinstance(text, str) else "", part.target, part.tolerance,
            part.spec.partial_credit,
        )  # fmt: skip
    return ExerciseResult(results, {p.spec.id: p.spec.weight for p in variant.parts})


class Catalog:
    """Exercise specs by id, with an LRU cache so a repeated seed never re-runs the reference."""

    def __init__(self, specs: list[ExerciseSpec]) -> None:
        self._specs = {spec.id: spec for spec in specs}
        self.variant = lru_cache(maxsize=VARIANT_CACHE_SIZE)(self._variant)

    @classmethod
    def from_directory(cls, root: Path = DEFAULT_EXERCISES) -> tuple[Catalog, list[SpecError]]:
        """Load every exercise under `root`; invalid files are left out and reported."""
        specs, errors = load_specs(root)
        return cls(specs), errors

    def __iter__(self) -> Iterator[ExerciseSpec]:
        return iter(sorted(self._specs.values(), key=lambda s: (s.lesson, s.id)))

    def __contains__(self, exercise_id: object) -> bool:
        return exercise_id in self._specs

    def get(self, exercise_id: str) -> ExerciseSpec:
        """The spec with this id (KeyError if none)."""
        return self._specs[exercise_id]

    def _variant(self, exercise_id: str, seed: int) -> Variant:
        return make_variant(self._specs[exercise_id], seed)

    def check(self, exercise_id: str, seed: int, answers: Mapping[str, str]) -> ExerciseResult:
        """Grade answers against the learner's variant."""
        return check_answers(self.variant(exercise_id, seed), answers)
