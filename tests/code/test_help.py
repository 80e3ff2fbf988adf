"""Hints and worked solutions of code exercises: every shipped one has them in en, pt and ru, the
spec refuses malformed ones, and the solutions' code and numbers agree with the grader's reference."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
import yaml

from grader.codecheck.compare import compare
from grader.codecheck.model_tasks import count_params
from grader.codecheck.prepare import prepare
from grader.codecheck.spec import CodeExerciseSpec, code_spec_from_text
from grader.codecheck.tasks import get_task
from tests.code.support import EXERCISES, SPECS

LOCALES = ("en", "pt", "ru")
SNIPPET = re.compile(r"```python\n(.*?)```", re.DOTALL)
# Tasks whose last solution step is the whole function body; the others show only the tricky part.
WHOLE_BODIES = ("layer-norm", "gelu", "rms-norm", "causal-attention", "swiglu", "param-count")
GELU = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("task", sorted(SPECS))
def test_every_shipped_code_exercise_has_hints_and_a_solution_in_each_language(task: str) -> None:
    spec = SPECS[task]
    for locale in LOCALES:
        hints, steps = spec.hints_in(locale), spec.solution_in(locale)
        assert len(hints) >= 2 and len(steps) >= 2, locale
        assert all(text.strip() for text in (*hints, *steps))
    for locale in ("pt", "ru"):  # written in that language, not the English shown as a fallback
        translation = spec.translations[locale]
        assert translation.hints is not None and translation.solution is not None
        assert not set(translation.hints) & set(spec.hints or []) and translation.solution != spec.solution


@pytest.mark.parametrize("task", sorted(SPECS))
def test_a_solutions_code_is_the_same_in_every_language_but_for_its_comments(task: str) -> None:
    def code(locale: str) -> list[str]:
        blocks = SNIPPET.findall("\n".join(SPECS[task].solution_in(locale)))
        return [re.sub(r"\s*#.*", "", line) for block in blocks for line in block.splitlines()]

    assert code("en") and code("en") == code("pt") == code("ru")


@pytest.mark.parametrize("task", WHOLE_BODIES)
def test_the_solutions_code_passes_every_case(task: str) -> None:
    spec, function = SPECS[task], get_task(task).function
    [body] = SNIPPET.findall(spec.solution_in("en")[-1])
    signature = re.search(rf"^def {function}\(.*?\):$", spec.stub, re.MULTILINE | re.DOTALL)
    assert signature is not None
    namespace: dict[str, object] = {}
    exec(f"import numpy as np\n\n{signature.group()}\n{textwrap.indent(body, '    ')}", namespace)  # noqa: S102
    prepared = prepare(spec, seed=5)
    for case, expected in zip(prepared.cases, prepared.expected, strict=True):
        with np.errstate(over="ignore"):  # SwiGLU's exp(-g) overflows to inf on purpose, and gives -0 there
            got = namespace[function](**case.kwargs)  # type: ignore[operator]
        assert compare(expected, got, spec.tolerance.rtol, spec.tolerance.atol) is None, case.name


def _figures(text: str) -> list[float]:
    """The numbers a step writes, with thin-space, comma or dot grouping read back."""
    text = re.sub(r"(?<=\d)(?:\{,\}|,|\\,|\s)(?=\d{3}(?!\d))", "", text)
    return [float(x) for x in re.findall(r"\d+\.\d+|\d+", text)]


def test_the_gelu_and_count_solutions_print_the_references_numbers() -> None:
    from grader.codecheck.ffn_tasks import gelu

    steps = SPECS["gelu"].solution_in("en")
    c = np.sqrt(2 / np.pi)
    a = c * (1 + 0.044715)
    assert round(a, 6) in _figures(steps[0]) and round(float(np.tanh(a)), 6) in _figures(steps[1])
    assert round(float(gelu(1.0)), 6) in _figures(steps[2])
    counts = count_params(4096, 32, 32, 11008, 32, 32000)
    written = set(_figures("\n".join(SPECS["param-count"].solution_in("en"))))
    assert set(counts.values()) <= written
    for locale in ("pt", "ru"):  # the same figures, grouped the language's way
        assert set(counts.values()) <= set(_figures("\n".join(SPECS["param-count"].solution_in(locale))))


def _with(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


def _refusal(text: str) -> str:
    spec, errors = code_spec_from_text(text, "ex.yaml")
    assert spec is None and errors
    return " ".join(str(error) for error in errors)


def test_hints_and_solutions_are_optional_and_read_in_each_language() -> None:
    bare = re.sub(r"\nhints:\n.*?(?=\ntranslations:)", "", GELU, flags=re.DOTALL)
    bare = re.sub(r"\n    hints:\n.*?(?=\n  ru:|\Z)", "", bare, flags=re.DOTALL)
    spec, errors = code_spec_from_text(bare, "ex.yaml")
    assert errors == [] and isinstance(spec, CodeExerciseSpec)
    assert (spec.hints, spec.solution, spec.hints_in("pt"), spec.solution_in("ru")) == (None, None, [], [])
    full = SPECS["gelu"]
    assert full.hints_in("de") == full.hints_in("en") == full.hints  # a language without them shows English


def test_a_malformed_hint_or_solution_is_refused() -> None:
    one_hint = re.sub(r"(\nhints:\n  - \|\n(?:    .*\n)+)(?:  - \|\n(?:    .*\n)+)+", r"\1", GELU, count=1)
    assert "at least 2 items" in _refusal(one_hint)
    assert "blank" in _refusal(_with(GELU, "hints:\n  - |\n", "hints:\n  - ' '\n  - |\n"))
    bad_math = _with(GELU, "solution:\n  - |\n", "solution:\n  - 'an $\\notacommand x$ step'\n  - |\n")
    assert "cannot render" in _refusal(bad_math)
    data = yaml.safe_load(GELU)
    data["translations"]["pt"]["solution"].pop()
    assert "translations.pt.solution: give 4, as in English" in _refusal(yaml.safe_dump(data, allow_unicode=True))
