"""What issue 30 asked validate to refuse, each at its place with a message that names the cause: a page
example that computes NaN, a mistake listed on no part, and a word YAML read as a boolean."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.catalog.loader import spec_from_text
from grader.codecheck.spec import any_spec_from_text, code_spec_from_text

HERE = Path(__file__).resolve().parent
EXAMPLE = (HERE / "formula_examples" / "softmax-temperature.yaml").read_text(encoding="utf-8")
CODE = (HERE.parent / "code" / "formula_examples" / "code-softmax.yaml").read_text(encoding="utf-8")
GELU = (HERE.parents[1] / "exercises" / "gpt2-block" / "block-gelu.yaml").read_text(encoding="utf-8")


def problems(text: str) -> list[str]:
    found, errors = spec_from_text(text, "ex.yaml")
    assert found is None
    return [f"{e.field}: {e.message}" for e in errors]


def with_step(step: str, printed: str = "") -> str:
    """The softmax example with one more step, which no part asks for (printed by the solution if asked)."""
    text = EXAMPLE.replace("  p: softmax(z)\n", f"  p: softmax(z)\n  {step}\n")
    return text.replace('{{p}}."', '{{p}}."\n  - "' + printed + '"') if printed else text


def test_a_page_example_that_computes_nan_is_refused_at_its_step() -> None:
    # The page's s holds -0.5: its square root is NaN, though no part asks for r.
    assert problems(with_step("r: sqrt(s)")) == [
        "compute.r: the page's example gives NaN (not a number) here; change the formula or the parameters' "
        "page values"]  # fmt: skip


def test_an_infinity_on_the_way_is_allowed_but_not_where_it_is_shown() -> None:
    # Row 0 of the mask is 0, then -inf: q holds three -inf on the way to m = [1, 0, 0, 0].
    found, errors = spec_from_text(with_step("q: s + causal_mask(4)[0]\n  m: softmax(q)"), "ex.yaml")
    assert errors == [] and found is not None
    shown = with_step("q: s + causal_mask(4)[0]", printed="Masked: {{q}}.")
    assert problems(shown) == [
        "compute.q: the page's example gives an infinite value here, which a part asks for or a text prints; "
        "change the formula or the parameters' page values"]  # fmt: skip


def test_a_mistake_listed_on_no_part_is_refused_by_name() -> None:
    unlisted = EXAMPLE.replace("mistakes:\n", "mistakes:\n  squared:\n    title: s squared\n    hint: Divide by T.\n"
                                              "    replace: {z: s ** 2}\n")  # fmt: skip
    assert problems(unlisted) == [
        "mistakes.squared: 'squared' is listed on no part, so no answer is ever named by it: add it to a part's "
        "misconceptions, or remove it"]  # fmt: skip


def test_a_code_mistake_listed_in_no_mutants_is_refused_by_name() -> None:
    spec, errors = code_spec_from_text(CODE.replace("mutants: [no-max-subtraction, unnormalised]",
                                                    "mutants: [no-max-subtraction]"), "code.yaml")  # fmt: skip
    assert spec is None
    assert [f"{e.field}: {e.message}" for e in errors] == [
        "reference.mistakes.unnormalised: 'unnormalised' is not listed in mutants, so no submission is ever named "
        "by it: list it, or remove it"]  # fmt: skip


@pytest.mark.parametrize("change, field, word, value", [
    (("- {id: p,", "- {id: no,"), "parts.0.id", "no", "false"),
    (("hint: Divide every score", "hint: off #"), "mistakes.no-temperature.hint", "off", "false"),
    (("  z: s / T\n", "  z: s / T\n  On: z\n"), "compute.On", "On", "true"),
    (("lesson: demo", "lesson: yes"), "lesson", "yes", "true"),
    (("misconceptions: [no-temperature,", "misconceptions: [NO,"), "parts.0.misconceptions.0", "NO", "false"),
])  # fmt: skip
def test_a_word_yaml_read_as_a_boolean_is_named_with_how_to_quote_it(change: tuple[str, str], field: str, word: str,
                                                                     value: str) -> None:  # fmt: skip
    assert problems(EXAMPLE.replace(*change, 1)) == [
        f"{field}: `{word}` was read as {value} by YAML (yes, no, on and off are booleans there); to mean the word, "
        f"quote it: '{word}'"]  # fmt: skip
    quoted = EXAMPLE.replace(change[0], change[1].replace(word, f"'{word}'"), 1)
    assert all("read as" not in problem.message for problem in any_spec_from_text(quoted, "ex.yaml")[1])


def test_a_boolean_where_a_number_is_expected_says_so_too() -> None:
    assert problems(EXAMPLE.replace("choices: [0.5, 2.0]", "choices: [0.5, off]")) == [
        f"params.T.random.choices.1.{kind}: `off` was read as false by YAML (yes, no, on and off are booleans "
        f"there): Input should be a valid {name}" for kind, name in (("int", "integer"), ("float", "number"))]


def test_a_code_exercise_and_a_built_in_model_say_it_as_well() -> None:
    code = any_spec_from_text(CODE.replace("mutants: [no-max-subtraction, unnormalised]", "mutants: [no, on]"), "c.yaml")
    assert [f"{e.field}: {e.message}" for e in code[1]] == [
        f"mutants.{i}: `{w}` was read as {v} by YAML (yes, no, on and off are booleans there); to mean the word, "
        f"quote it: '{w}'" for i, w, v in ((0, "no", "false"), (1, "on", "true"))]  # fmt: skip
    built_in = any_spec_from_text(GELU.replace("title: GELU by hand", "title: Off"), "g.yaml")
    assert [f"{e.field}: {e.message}" for e in built_in[1]] == [
        "title: `Off` was read as false by YAML (yes, no, on and off are booleans there); to mean the word, quote "
        "it: 'Off'"]  # fmt: skip
