"""Code tasks for the feed-forward pieces: GPT-2's tanh GELU and the SwiGLU FFN."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.codecheck.base import Case, Mutant, Task, edge, hidden, mutants, weight
from grader.reference.common import gelu_tanh, relu, silu
from grader.reference.gpt2 import BlockOptions, activate, gelu_erf
from grader.reference.modern import swiglu_ffn as reference_swiglu

# The lesson's hand computation rounds the constants; in code they must be exact.
ROUNDED_C, ROUNDED_K = 0.798, 0.0447


def gelu(z: Any) -> np.ndarray:
    """Reference GELU, tanh form, elementwise."""
    return gelu_tanh(z)


def _relu(z: Any) -> np.ndarray:
    return relu(z)


def _gelu_rounded(z: Any) -> np.ndarray:
    return gelu_tanh(z, ROUNDED_C, ROUNDED_K)


def _gelu_no_half(z: Any) -> np.ndarray:
    return activate(np.asarray(z, dtype=float), BlockOptions(gelu_halved=False))


def gelu_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """A scalar, a hand-picked vector, a 3-D array, huge inputs, then random shapes."""
    cases = [
        # A plain float: the function must work elementwise on any shape, even none.
        edge("scalar", z=-1.5),
        edge("vector", z=np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])),
        edge("array-3d", z=2.0 * rng.normal(size=(2, 3, 4))),
        edge("large-magnitudes", z=np.array([-40.0, -12.0, 12.0, 40.0])),
    ]
    for i in range(n_random):
        shape = tuple(int(s) for s in rng.integers(1, 6, size=int(rng.integers(1, 4))))
        cases.append(hidden(i, z=3.0 * rng.normal(size=shape)))
    return cases


GELU = Task(
    name="gelu",
    function="gelu",
    params=("z",),
    reference=gelu,
    cases=gelu_cases,
    mutants=mutants(
        Mutant("erf-gelu", "the exact (erf) GELU instead of GPT-2's tanh form", gelu_erf),
        Mutant("relu", "ReLU in place of GELU", _relu),
        Mutant("rounded-constants", "the rounded constants 0.798 and 0.0447", _gelu_rounded),
        Mutant("no-half", "the factor ½ left out", _gelu_no_half),
    ),
)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    # The tanh form of the logistic function never overflows.
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def swiglu_ffn(x: np.ndarray, w1: np.ndarray, w3: np.ndarray, w2: np.ndarray) -> np.ndarray:
    """Reference SwiGLU: (silu(x @ w1) * (x @ w3)) @ w2."""
    return reference_swiglu(x, w1, w3, w2)


def _gelu_gate(x: np.ndarray, w1: np.ndarray, w3: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (gelu_tanh(x @ w1) * (x @ w3)) @ w2


def _relu_gate(x: np.ndarray, w1: np.ndarray, w3: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (relu(x @ w1) * (x @ w3)) @ w2


def _sigmoid_gate(x: np.ndarray, w1: np.ndarray, w3: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (_sigmoid(x @ w1) * (x @ w3)) @ w2


def _swapped_gate(x: np.ndarray, w1: np.ndarray, w3: np.ndarray, w2: np.ndarray) -> np.ndarray:
    return (silu(x @ w3) * (x @ w1)) @ w2


def _ffn_inputs(
    rng: np.random.Generator, n: int, d: int, f: int, scale: float = 1.0
) -> dict[str, np.ndarray]:
    return {"x": scale * rng.normal(size=(n, d)), "w1": weight(rng, d, f), "w3": weight(rng, d, f),
            "w2": weight(rng, f, d)}  # fmt: skip


def swiglu_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """One token, a hidden width that is not 8d/3, large activations, then random."""
    cases = [
        edge("single-token", **_ffn_inputs(rng, 1, 8, 21)),
        edge("odd-hidden-width", **_ffn_inputs(rng, 4, 6, 7)),
        # Pre-activations in the thousands overflow exp(): z * e^z / (1 + e^z) gives inf / inf.
        edge("large-activations", **_ffn_inputs(rng, 3, 8, 16, scale=1000.0)),
    ]
    for i in range(n_random):
        n, d, f = int(rng.integers(2, 7)), int(rng.integers(4, 17)), int(rng.integers(4, 49))
        cases.append(hidden(i, **_ffn_inputs(rng, n, d, f)))
    return cases


SWIGLU = Task(
    name="swiglu",
    function="swiglu_ffn",
    params=("x", "w1", "w3", "w2"),
    reference=swiglu_ffn,
    cases=swiglu_cases,
    mutants=mutants(
        Mutant("gelu-gate", "GELU in place of SiLU on the gate", _gelu_gate),
        Mutant("sigmoid-gate", "a plain sigmoid in place of SiLU on the gate", _sigmoid_gate),
        Mutant("relu-gate", "ReLU in place of SiLU on the gate", _relu_gate),
        Mutant("swapped-gate", "W1 and W3 swapped (SiLU on x·W3)", _swapped_gate),
    ),
)
