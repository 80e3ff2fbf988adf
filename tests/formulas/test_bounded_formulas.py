"""Operations refused from their shapes before they run: the memory a refused formula takes stays small
(numpy reports its arrays to tracemalloc), however large the array it asked for."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from grader.formulas.evaluate import evaluate
from grader.formulas.expression import FormulaError, parse_formula
from grader.formulas.vocabulary import FUNCTIONS, Function

ROW = "reshape(arange(20000), 1, 20000)"
COLUMN = "reshape(arange(20000), 20000, 1)"
HUGE = {  # formula -> what the refusal names; each would take from 160 KB to terabytes if made
    "outer(arange(20000), arange(20000))": "outer() would make an array of shape (20000, 20000)",
    # three operands broadcast to (20000, 20000, 20000): 58 TiB; numpy's MemoryError went uncaught
    "where(reshape(arange(20000), 20000, 1, 1) > 0, reshape(arange(20000), 1, 20000, 1), "
    "reshape(arange(20000), 1, 1, 20000))": "where() would make an array of shape (20000, 20000, 20000)",
    f"{COLUMN} * {ROW}": "'*' would make an array of shape (20000, 20000)",
    f"{COLUMN} - arange(20000)": "'-' would make an array of shape (20000, 20000)",
    f"{COLUMN} ** arange(20000) / 10**9": "'**' would make an array of shape (20000, 20000)",
    f"{COLUMN} < arange(20000)": "'<' would make an array of shape (20000, 20000)",
    f"{COLUMN} @ {ROW}": "'@' would make an array of shape (20000, 20000)",
    f"matmul({COLUMN}, {ROW})": "matmul() would make an array of shape (20000, 20000)",
    f"maximum({COLUMN}, arange(20000))": "maximum() would make an array of shape (20000, 20000)",
    f"minimum({ROW}, {COLUMN})": "minimum() would make an array of shape (20000, 20000)",
    # nested broadcasts: each operand small, their product large, inside a reduction that would shrink it
    "sum(reshape(arange(30), 30, 1, 1) * reshape(arange(30), 1, 30, 1) * reshape(arange(30), 1, 1, 30))":
        "'*' would make an array of shape (30, 30, 30)",
    "mean(outer(arange(200), arange(200)), keepdims=1)": "outer() would make an array of shape (200, 200)",
    "concat(arange(20000), arange(20000), arange(20000))": "concat() would make an array of shape (60000,)",
    "[arange(20000), arange(20000)]": "a list would make an array of shape (40000,)",
    "arange(10**12)": "would make an array of shape (1000000000000,)",
    "arange(-10**15, 10**15)": "too large",
    "arange(1e300)": "too large",
    "eye(20000)": "would make an array of shape (20000, 20000)",
    "zeros(20000, 20000)": "would make an array of shape (20000, 20000)",
    "causal_mask(20000)": "would make an array of shape (20000, 20000)",
}  # fmt: skip


@pytest.mark.parametrize("text", HUGE)
def test_an_operation_too_large_is_refused_before_numpy_makes_it(text: str) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(FormulaError) as caught:
            evaluate(parse_formula(text), {})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert HUGE[text] in str(caught.value) and "at most 20000" in str(caught.value)
    assert peak < 4_000_000  # the 20,000-entry operands (160 KB each) and no more; not the refused result


def test_an_operation_at_the_limit_is_computed() -> None:
    assert evaluate(parse_formula("sum(outer(arange(100), arange(200)))"), {}) == 4950 * 19900
    assert np.shape(evaluate(parse_formula("reshape(arange(200), 200, 1) * arange(100)"), {})) == (200, 100)
    assert np.shape(evaluate(parse_formula("concat(arange(10000), arange(10000))"), {})) == (20000,)


def test_shapes_that_do_not_fit_say_so_before_running() -> None:
    for text, says in (("arange(3) + arange(4)", "shapes (3,), (4,) do not fit together"),
                       ("reshape(arange(6), 2, 3) @ reshape(arange(6), 2, 3)",
                        "@ cannot multiply shapes (2, 3) and (2, 3)"),
                       ("matmul(2, arange(3))", "multiply arrays, not single numbers")):  # fmt: skip
        with pytest.raises(FormulaError, match="cannot be computed") as caught:
            evaluate(parse_formula(text), {})
        assert says in str(caught.value)


def test_a_memory_error_is_a_refusal_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    # The shape rules leave nothing this large to ask for; the guard behind them is still there.
    def hungry(x: object) -> object:
        raise MemoryError

    monkeypatch.setitem(FUNCTIONS, "sqrt", Function(hungry, 1, 1))
    with pytest.raises(FormulaError, match="more memory than a formula may use"):
        evaluate(parse_formula("sqrt(2)"), {})


def test_deep_and_long_formulas_are_refused_before_they_run() -> None:
    for text, says in (("-" * 399 + "1", "too long"), ("1+" * 200 + "1", "1 to 400 characters"),
                       ("(" * 25 + "1" + ")" * 25, "brackets nest more than 24 deep"),
                       ("s" + "[0]" * 130, "too long")):  # fmt: skip
        with pytest.raises(FormulaError) as caught:
            evaluate(parse_formula(text), {"s": np.zeros(3)})
        assert says in str(caught.value), text
