"""The runner's reasons for refusing a value or a signature are read back into their templates."""

from __future__ import annotations

import numpy as np
import pytest

from grader.sandbox import outgoing, reasons
from grader.sandbox.runner import signature_problem

REFUSED = [None, "text", object(), {1: 2.0}, np.zeros(2, dtype=object), np.zeros(2, dtype=complex),
           np.zeros((1,) * 40), [[[[[[[[[[[[[[[[[[1.0]]]]]]]]]]]]]]]]]], 2**70, np.zeros(4).view(np.matrix)]


@pytest.mark.parametrize("value", REFUSED, ids=lambda v: type(v).__name__)
def test_every_refused_value_has_a_reason_the_host_recognises(value: object) -> None:
    with pytest.raises(outgoing.BadResult) as refused:
        outgoing.check_value(value)
    found = reasons.recognise(str(refused.value))
    assert found is not None and found[0] % found[1] == str(refused.value)


def f_extra(x, scale): ...  # noqa: E704
def f_renamed(y): ...  # noqa: E704
def f_no_default(x, eps): ...  # noqa: E704


@pytest.mark.parametrize("function, params, optional", [
    (f_extra, ["x"], []), (f_renamed, ["x"], []), (f_no_default, ["x", "eps"], ["eps"]),
])
def test_every_signature_problem_is_recognised(function: object, params: list[str], optional: list[str]) -> None:
    problem = signature_problem(function, "f", params, optional)  # type: ignore[arg-type]
    assert problem is not None
    template, values = reasons.recognise(problem) or ("", {})
    assert template in reasons.TEMPLATES and template % values == problem


def test_text_that_fits_no_template_is_not_recognised() -> None:
    assert reasons.recognise("the function returned None") is None  # a forged or cut reason stays as it came
    assert reasons.recognise("expected the signature f(x)") is None
    assert reasons.recognise("") is None
