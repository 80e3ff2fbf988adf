"""What issue 30 asked of the formula language: sin and cos (for RoPE), keepdims on the reductions,
upper-case names, and a causal_mask() that says what it takes."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from grader.catalog.loader import parse_yaml, spec_from_text
from grader.catalog.variants import make_variant
from grader.codecheck.spec import code_spec_from_text
from grader.formulas.evaluate import evaluate
from grader.formulas.expression import FormulaError, parse_formula
from grader.formulas.program import ProgramError, build_program
from tests.formulas.hostile import numeric

CODE_SOFTMAX = (Path(__file__).resolve().parents[1] / "code" / "formula_examples" / "code-softmax.yaml").read_text(
    encoding="utf-8")
X = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def value(text: str, **values: object) -> object:
    return evaluate(parse_formula(text), values)


def test_sin_and_cos_rotate_a_pair_as_rope_does() -> None:
    rotated = value("[q[0] * cos(t) - q[1] * sin(t), q[0] * sin(t) + q[1] * cos(t)]", q=np.array([1.0, 0.0]), t=np.pi / 2)
    assert np.allclose(rotated, [0.0, 1.0])
    assert np.allclose(value("sin(x) ** 2 + cos(x) ** 2", x=X), np.ones((2, 3)))


def test_the_guides_rope_steps_turn_each_pair_as_numpy_does() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "instructors" / "formulas.md").read_text(encoding="utf-8")
    [block] = re.findall(r"^    ```yaml\n(.*?)^    ```", guide, re.S | re.M)
    steps = parse_yaml(textwrap.dedent(block))  # as the steps of compute: read
    q, m = np.array([0.3, -1.2, 2.0, 0.7]), 5
    rotated = build_program(["q", "m"], steps, {}).run({"q": q, "m": m})["rotated"]
    angle = m * 10000.0 ** (-np.arange(0, 4, 2) / 4)
    expected = np.empty(4)
    expected[0::2] = q[0::2] * np.cos(angle) - q[1::2] * np.sin(angle)
    expected[1::2] = q[0::2] * np.sin(angle) + q[1::2] * np.cos(angle)
    assert np.allclose(rotated, expected)
    assert np.isclose(np.linalg.norm(rotated), np.linalg.norm(q))  # a rotation keeps the length


@pytest.mark.parametrize("reduction", ["sum", "mean", "var", "std", "max", "min", "prod", "argmax", "argmin"])
def test_keepdims_keeps_the_reduced_axis_for_broadcasting(reduction: str) -> None:
    kept = value(f"{reduction}(x, axis=1, keepdims=1)", x=X)
    assert np.shape(kept) == (2, 1)
    assert np.allclose(kept, getattr(np, reduction)(X, axis=1, keepdims=True))
    assert np.shape(value(f"{reduction}(x, axis=1)", x=X)) == (2,)


def test_centering_rows_with_keepdims() -> None:
    assert np.allclose(value("x - mean(x, axis=-1, keepdims=1)", x=X), [[-1, 0, 1], [-1, 0, 1]])


def test_upper_case_names_work_in_an_exercise_file() -> None:
    source = numeric("upper-case", "demo", "  T: {random: {choices: [2, 4]}, page: 2}\n",
                     "  H: T * 3\n  n: H + 1\n").replace("{{n}}", "{{T}} and H = {{H}}")  # fmt: skip
    spec, errors = spec_from_text(source, "upper-case.yaml")
    assert errors == [] and spec is not None, errors
    variant = make_variant(spec, 0)
    assert variant.quantities["H"] == 6 and variant.part("y").answer_json() == 14
    assert "from n = 2 and H = 6" in variant.prompt


@pytest.mark.parametrize("name", ["2x", "a b", "z'", "_hidden", "ü"])
def test_a_name_outside_the_rule_is_refused_with_the_rule(name: str) -> None:
    with pytest.raises(ProgramError) as caught:
        build_program(["s"], {name: "s + 1"}, {})
    assert caught.value.where == ("compute", name)
    assert "a name is letters, digits and _, starting with a letter (such as z, T, h_2)" in str(caught.value)


@pytest.mark.parametrize("name, says", [
    ("e", "'e' cannot name a value: it is the constant e = 2.71828…"),
    ("pi", "'pi' cannot name a value: it is the constant pi = 3.14159…"),
    *((word, f"{word!r} cannot name a value: it is a reserved word (True, False, None, and, if, ...)")
      for word in ("True", "False", "None", "lambda", "if")),
])  # fmt: skip
def test_a_name_that_collides_with_a_constant_or_a_reserved_word_is_refused(name: str, says: str) -> None:
    for params, compute, where in (([name], {"y": "1"}, ("params", name)), (["s"], {name: "s + 1"}, ("compute", name))):
        with pytest.raises(ProgramError) as caught:
            build_program(params, compute, {})
        assert (caught.value.where, str(caught.value)) == (where, says)


def test_upper_case_names_are_their_own_beside_the_constants_and_functions() -> None:
    program = build_program(["E", "PI", "Sum"], {"T": "E * e", "H": "PI + pi", "S": "sum([Sum, T])"}, {})
    values = program.run({"E": 2, "PI": 3, "Sum": 1})
    assert (values["T"], values["H"], values["S"]) == (pytest.approx(2 * np.e), pytest.approx(3 + np.pi),
                                                       pytest.approx(1 + 2 * np.e))  # fmt: skip


def test_an_exercise_file_reports_a_bad_step_name_at_its_place() -> None:
    source = numeric("bad-name", "demo", "  n: {random: {choices: [2, 4]}, page: 2}\n", '  "a b": n + 1\n')
    spec, errors = spec_from_text(source, "bad-name.yaml")
    assert spec is None
    assert [(e.field, e.message) for e in errors] == [
        ("compute.a b", "'a b' cannot name a value: a name is letters, digits and _, starting with a letter "
                        "(such as z, T, h_2)")]  # fmt: skip


@pytest.mark.parametrize("argument", ["S", "2.5", "1 < 2"])
def test_causal_mask_of_anything_but_a_count_says_what_it_takes(argument: str) -> None:
    with pytest.raises(FormulaError) as caught:
        value(f"causal_mask({argument})", S=np.zeros((3, 3)))
    assert "causal_mask(n) takes the number of tokens" in str(caught.value)
    assert "zero-size array" not in str(caught.value)


def test_causal_mask_of_a_score_matrix_as_the_message_suggests() -> None:
    masked = value("S + causal_mask(size(S[0]))", S=np.zeros((3, 3)))
    assert np.array_equal(np.isinf(masked), np.triu(np.ones((3, 3), dtype=bool), k=1))


def test_a_code_exercise_reference_may_name_and_return_an_upper_case_step() -> None:
    source = (CODE_SOFTMAX.replace("returns: p", "returns: P").replace("    p: exp(x - m)", "    P: exp(x - m)")
              .replace("replace: {p: exp(x - m)}", "replace: {P: exp(x - m)}"))  # fmt: skip
    spec, errors = code_spec_from_text(source, "code-softmax.yaml")
    assert errors == [] and spec is not None, errors
    assert np.allclose(spec.task_object.reference(x=np.array([0.0, 0.0])), [0.5, 0.5])
