"""No picture answers another exercise: giving up on one exercise of a lesson that follows one token draws
only what its own prompt and worked solution print, never another exercise's answer at the same numbers."""

from __future__ import annotations

import numpy as np

from grader.catalog.catalog import Catalog
from grader.catalog.spec import PLACEHOLDER, ExerciseSpec
from grader.pictures import variant_pictures

SEEDS = range(10)


def _printed(spec: ExerciseSpec) -> set[str]:
    return {name for _, text in spec.texts() for name in PLACEHOLDER.findall(text)} | {p.quantity for p in spec.parts}


def _drawn(catalog: Catalog, spec: ExerciseSpec, seed: int) -> list[tuple[float, ...]]:
    """The vectors the give-up page's pictures draw."""
    pictures = variant_pictures(spec, catalog.variant(spec.id, seed), reveal=True)
    return [station.values for picture in (*pictures.prompt, *pictures.solution)
            for station in getattr(picture, "stations", ()) if station.values]  # fmt: skip


def _key(values: object) -> tuple[float, ...]:
    return tuple(np.round(np.asarray(values, dtype=float), 3).tolist())


def test_no_give_up_picture_draws_another_exercises_answer(catalog: Catalog) -> None:
    numeric = [spec for spec in catalog if spec.kind == "numeric"]
    found = []
    for spec in numeric:
        others = [o for o in numeric if o.lesson == spec.lesson and o.id != spec.id]
        for seed in SEEDS:
            drawn = {_key(v) for v in _drawn(catalog, spec, seed)}
            variant = catalog.variant(spec.id, seed)
            # A number this exercise prints itself may equal another's answer (LN(10h) is LN(h)): no giveaway.
            own = {_key(variant.quantities[n]) for n in _printed(spec) if n in variant.quantities and np.ndim(variant.quantities[n]) == 1}
            for other in others:
                for part in catalog.variant(other.id, seed).parts:
                    if part.spec.quantity in _printed(spec) or np.ndim(part.target.exact) != 1:
                        continue
                    if _key(part.target.exact) in drawn - own:
                        found.append((spec.id, seed, other.id, part.spec.id))
    assert found == []


def test_giving_up_on_block_layernorm_draws_neither_m5_nor_y5(catalog: Catalog) -> None:
    pictures = variant_pictures(catalog.get("block-layernorm"), catalog.variant("block-layernorm", 0), reveal=True)
    shown = {s.symbol for picture in pictures.solution for s in getattr(picture, "stations", ()) if s.values}
    assert "u′₅" in shown and not shown & {"m₅", "y₅"}
