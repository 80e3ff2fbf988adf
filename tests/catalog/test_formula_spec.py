"""Formula exercises (`model: formula`): read and refused like any exercise file, and graded like the
built-in scenarios, against an independent numpy computation."""

from __future__ import annotations

import re
import time
from pathlib import Path

import numpy as np
import pytest

from grader.catalog.catalog import check_answers
from grader.catalog.loader import spec_from_text
from grader.catalog.selfcheck import check_spec
from grader.catalog.variants import make_variant
from grader.codecheck.selfcheck import check_code_spec
from grader.codecheck.spec import code_spec_from_text

EXAMPLE = (Path(__file__).parent / "formula_examples" / "softmax-temperature.yaml").read_text(encoding="utf-8")


def spec():  # type: ignore[no-untyped-def]
    found, errors = spec_from_text(EXAMPLE, "softmax-temperature.yaml")
    assert errors == [] and found is not None
    return found


def refused(text: str) -> list[str]:
    found, errors = spec_from_text(text, "ex.yaml")
    assert found is None
    return [f"{e.field}: {e.message}" for e in errors]


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def typed(values: np.ndarray) -> str:
    return "[" + "; ".join(f"{v:.4f}" for v in values) + "]"


def test_the_page_example_is_seed_zero() -> None:
    variant = make_variant(spec(), 0)
    assert np.allclose(variant.part("p").answer_json(), softmax(np.array([1.0, 0.5, -0.5, 2.0]) / 2.0))
    assert "[0.500; 0.250; −0.250; 1.000]" in variant.solution[0]  # z = s / T, worked with the learner's numbers


def test_answers_agree_with_numpy_and_mistakes_are_named_over_many_seeds() -> None:
    exercise = spec()
    for seed in range(1, 61):
        variant = make_variant(exercise, seed)
        s, temperature = np.asarray(variant.params["s"], dtype=float), float(variant.params["T"])
        right = softmax(s / temperature)
        assert np.allclose(variant.part("p").answer_json(), right)
        assert check_answers(variant, {"p": typed(right)}).score == 1.0
        for mistake, wrong in (("no-temperature", softmax(s)), ("times-temperature", softmax(s * temperature))):
            result = check_answers(variant, {"p": typed(wrong)}).parts["p"]
            assert (result.status, result.misconception) == ("incorrect", mistake), seed


def test_the_self_check_passes_a_sound_formula_exercise() -> None:
    report = check_spec(spec(), range(0, 30))
    assert report.failures == [] and report.variants == 30


@pytest.mark.parametrize("change, where, says", [
    (("z: s / T", "z: __import__('os').system('id')"), "compute.z", "only the functions formulas know"),
    (("z: s / T", "z: s.__class__"), "compute.z", "the only attribute is .T"),
    (("z: s / T", "z: zeros(10**10)"), "compute.z", "too large"),
    (("p: softmax(z)", "p: z @ ones(3)"), "compute.p", "cannot be computed"),
    (("z: s / T", "z: p"), "compute.z", "not itself, nor later ones"),
    (("p: softmax(z)", "p: softmax(p)"), "compute.p", "not itself, nor later ones"),
    (("replace: {z: s}", "replace: {q: s}"), "mistakes.no-temperature.replace.q", "is not a step of compute"),
    (("replace: {z: s}", "replace: {z: w}"), "mistakes.no-temperature.replace.z", "w: no parameter"),
    (("z: s / T", "z: " + "(" * 30 + "s" + ")" * 30), "compute.z", "brackets nest more than"),
])  # fmt: skip
def test_a_refused_formula_is_reported_at_its_place_fast(change: tuple[str, str], where: str, says: str) -> None:
    started = time.monotonic()
    errors = refused(EXAMPLE.replace(*change, 1))
    assert any(e.startswith(where) and says in e for e in errors), errors
    assert time.monotonic() - started < 10  # refused before anything runs (a very wide margin for a loaded box)


def test_formulas_belong_to_the_formula_model_only() -> None:
    built_in = (Path(__file__).resolve().parents[2] / "exercises" / "gpt2-block" / "block-residual.yaml").read_text()
    assert any("only for model: formula" in e for e in refused(built_in + "compute: {q: x + a}\n"))
    assert any("compute:" in e for e in refused(EXAMPLE.replace("compute:\n  z: s / T\n  p: softmax(z)\n", "")))


def test_a_mistake_needs_words_unless_it_is_a_known_one() -> None:
    no_words = EXAMPLE.replace("    title: the temperature left out\n    hint: Divide every score by T before the softmax.\n", "")
    assert any("give a title and a hint" in e for e in refused(no_words))
    known = no_words.replace("no-temperature", "relu")  # a registered mistake lends its words
    found, errors = spec_from_text(known, "ex.yaml")
    assert errors == [] and found is not None and found.mistake_words("relu")[0] == "ReLU in place of GELU"


def test_a_hand_route_is_accepted_beside_full_precision() -> None:
    handy = EXAMPLE.replace("mistakes:\n", "hand:\n  z: round(z, 1)\nmistakes:\n")
    found, errors = spec_from_text(handy, "ex.yaml")
    assert errors == [] and found is not None
    variant = make_variant(found, 0)
    rounded = softmax(np.round(np.array([1.0, 0.5, -0.5, 2.0]) / 2.0, 1))
    assert check_answers(variant, {"p": typed(rounded)}).score == 1.0


def test_well_posed_conditions_redraw_the_variant() -> None:
    picky = EXAMPLE.replace("mistakes:\n", "well_posed:\n  - s[0] > 1\nmistakes:\n")
    found, errors = spec_from_text(picky, "ex.yaml")
    assert errors == [] and found is not None
    assert all(make_variant(found, seed).params["s"][0] > 1 for seed in range(1, 30))


def test_the_guides_formula_examples_are_valid_and_pass_the_self_check() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "instructors" / "formulas.md"
    guide = page.read_text(encoding="utf-8")
    section = guide.split("# Exercises as formulas\n", 1)[1].split("\n## ", 1)[0]
    examples = re.findall(r"^```yaml\n(.*?)^```", section, re.S | re.M)  # whole files; indented ones are steps
    assert len(examples) == 3
    code, errors = code_spec_from_text(examples[2], "formulas.md")
    assert errors == [] and code is not None and check_code_spec(code, range(5)).failures == []
    for text in examples[:2]:
        found, errors = spec_from_text(text, "formulas.md")
        assert errors == [] and found is not None, errors
        report = check_spec(found, range(20))
        assert report.failures == [], report.failures


@pytest.mark.parametrize("path", sorted((Path(__file__).parent / "formula_examples").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_formula_example_is_valid_and_passes_the_self_check(path: Path) -> None:
    found, errors = spec_from_text(path.read_text(encoding="utf-8"), path.name)
    assert errors == [] and found is not None, errors
    assert check_spec(found, range(20)).failures == []
