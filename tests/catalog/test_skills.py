"""Skills in exercise files: every shipped part has some, an unknown one is refused as file: field: message."""

from __future__ import annotations

from pathlib import Path

from grader.catalog.loader import load_specs, spec_from_text
from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.catalog.skills import MISTAKE_SKILLS, SKILLS
from grader.codecheck.spec import code_spec_from_text, load_code_specs

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
RESIDUAL = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
CODE_GELU = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")


def test_every_part_of_the_shipped_catalogue_practises_a_known_skill() -> None:
    specs, errors = load_specs(EXERCISES)
    assert errors == [] and specs
    for spec in specs:
        for part in spec.parts:
            assert spec.part_skills(part.id), f"{spec.id}: part {part.id} names no skill"
            assert set(spec.part_skills(part.id)) <= set(SKILLS)


def test_every_shipped_code_exercise_names_a_skill_and_every_skill_is_practised() -> None:
    code, errors = load_code_specs(EXERCISES)
    assert errors == [] and code
    assert all(spec.skills for spec in code)
    numeric, _ = load_specs(EXERCISES)
    used = {s for spec in numeric for p in spec.parts for s in spec.part_skills(p.id)} | {
        s for spec in code for s in spec.skills}
    assert used == set(SKILLS)


def test_an_unknown_skill_on_a_part_is_refused_with_its_file_and_field() -> None:
    text = RESIDUAL.replace("  - id: h\n", "  - id: h\n    skills: [residual-stream, gellu]\n")
    spec, errors = spec_from_text(text, "ex.yaml")
    assert spec is None
    assert [str(e).split(": ")[:2] for e in errors] == [["ex.yaml", "parts.0.skills.1"]]
    assert "unknown skill 'gellu'" in str(errors[0])


def test_an_unknown_skill_of_an_exercise_or_a_code_exercise_is_refused() -> None:
    _, errors = spec_from_text(RESIDUAL.replace("skills: [residual-stream]", "skills: [attention]"), "ex.yaml")
    assert [e.field for e in errors] == ["skills.0"] and "unknown skill 'attention'" in errors[0].message
    _, errors = code_spec_from_text(CODE_GELU.replace("skills: [gelu]", "skills: [gelu, glue]"), "code.yaml")
    assert [str(e) for e in errors][0].startswith("code.yaml: skills.1: ")


def test_a_mistake_that_belongs_to_one_skill_counts_there_wherever_it_is_made() -> None:
    spec, errors = spec_from_text((EXERCISES / "gpt2-block" / "block-output.yaml").read_text(encoding="utf-8"), "o")
    assert errors == [] and spec is not None
    assert spec.part_skills("y") == ("residual-stream",)
    assert spec.mistake_skills("y", "relu") == ("gelu",) and spec.mistake_skills("y", "sample-variance") == (
        "layernorm-stats",)
    assert spec.mistake_skills("y", "normalise-x") == ("residual-stream",)  # not listed: the part's
    assert set(MISTAKE_SKILLS) <= set(MISCONCEPTIONS) and {s for v in MISTAKE_SKILLS.values() for s in v} <= set(SKILLS)


def test_a_mistake_shows_its_own_skills_else_the_parts_and_a_part_its_own_else_the_exercises() -> None:
    text = RESIDUAL.replace("  - id: h\n", "  - id: h\n    skills: [residual-stream, layernorm-stats]\n").replace(
        "{name: subtracted-residual, optional: true}", "{name: subtracted-residual, optional: true, skills: [gelu]}")
    spec, errors = spec_from_text(text, "ex.yaml")
    assert errors == [] and spec is not None
    assert spec.part_skills("h") == ("residual-stream", "layernorm-stats")
    assert spec.mistake_skills("h", "subtracted-residual") == ("gelu",)
    assert spec.mistake_skills("h", "no-residual-attention") == ("residual-stream",)  # the catalogue's
    assert spec.mistake_skills("h", "zero-based") == ("residual-stream", "layernorm-stats")  # the part's
    plain, _ = spec_from_text(RESIDUAL, "ex.yaml")
    assert plain is not None and plain.part_skills("h") == ("residual-stream",)
    assert plain.part_skills("nope") == ()
