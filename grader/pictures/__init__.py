"""Pictures of a learner's own numbers, as plain geometry for server-rendered SVG.

Which pictures an exercise gets depends on its scenario (its `model`) and on what its parts ask,
through the one registry below; the markup is in grader/web/templates/learn/_pictures.html. Nothing
here imports Flask: builders take a variant's values and what the learner may see (Seen), and
return dataclasses of coordinates and numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Collection, Mapping

from grader.catalog.spec import PLACEHOLDER, ExerciseSpec
from grader.catalog.variants import Variant
from grader.pictures.block import BlockDiagram, block_diagram
from grader.pictures.compare import Comparison, comparison
from grader.pictures.curves import GeluCurve, gelu_curve
from grader.pictures.heatmap import KeyHeatmap, edit_picture, keys_picture
from grader.pictures.seen import Seen
from grader.pictures.stations import StationsPath, stations_path

Picture = BlockDiagram | GeluCurve | KeyHeatmap | StationsPath | Comparison


@dataclass(frozen=True)
class Rule:
    """A picture a scenario's exercises get: its builder, the quantities it is about (None: any
    exercise of the scenario), and whether it is also drawn by the prompt, with the prompt's numbers only.
    A picture that would give an answer away (the keys that fire, the count of norms) is `before=False`:
    it appears with the worked solution only."""

    build: Callable[[Mapping[str, Any], Seen], Picture]
    about: frozenset[str] | None = None
    before: bool = True


PICTURES: dict[str, tuple[Rule, ...]] = {
    "gpt2-toy": (Rule(block_diagram), Rule(gelu_curve, frozenset({"gelu_neg", "gelu_pos"}))),
    "ffn-keys": (Rule(keys_picture, before=False),),
    "ffn-edit": (Rule(edit_picture, before=False),),
    "microgpt": (Rule(stations_path, frozenset({"norms", "residual_adds", "fc1_shape", "fc2_shape"}), before=False),),
}


@dataclass(frozen=True)
class Pictures:
    """The pictures beside an exercise's prompt, and those of its worked solution (empty unless revealed)."""

    prompt: tuple[Picture, ...] = ()
    solution: tuple[Picture, ...] = ()


def pictures_for(model: str, values: Mapping[str, Any], asked: Collection[str], given: Collection[str],
                 reveal: bool, printed: Collection[str] | None = None) -> Pictures:  # fmt: skip
    """The pictures of a variant of a `model` exercise: `values` are its parameters and quantities,
    `asked` the quantities its parts ask for, `given` those its prompt prints; the solution's pictures
    only when `reveal`, with the numbers it prints (`printed`; every number when not given)."""
    asked_set, given_set = frozenset(asked), frozenset(given)
    rules = [r for r in PICTURES.get(model, ()) if r.about is None or r.about & asked_set]
    before = Seen(asked_set, given_set, reveal=False)
    prompt = tuple(r.build(values, before) for r in rules if r.before)
    if not reveal:
        return Pictures(prompt)
    after = Seen(asked_set, given_set, reveal=True,
                 printed=frozenset(values) if printed is None else frozenset(printed))  # fmt: skip
    return Pictures(prompt, tuple(r.build(values, after) for r in rules))


def variant_pictures(spec: ExerciseSpec, variant: Variant, reveal: bool) -> Pictures:
    """The pictures of a learner's variant: by the prompt, only the numbers the prompt prints
    (its {{placeholders}}); with the solution's numbers too only when `reveal`, and never a number neither
    prints: in a lesson that follows one token, that would be another exercise's answer."""
    asked = {part.spec.quantity for part in variant.parts}
    given = set(PLACEHOLDER.findall(spec.prompt))
    printed = {name for _, text in spec.texts() for name in PLACEHOLDER.findall(text)}
    return pictures_for(spec.model, {**variant.params, **variant.quantities}, asked, given, reveal, printed)


__all__ = ["PICTURES", "Picture", "Pictures", "Rule", "Seen", "comparison", "pictures_for", "variant_pictures"]
