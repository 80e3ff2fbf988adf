"""Code tasks for the two normalisations: GPT-2's LayerNorm and the modern RMSNorm."""

from __future__ import annotations

import numpy as np

from grader.codecheck.base import Case, Mutant, Task, about_row, edge, hidden, mutants
from grader.reference.gpt2 import LN_EPS, BlockOptions
from grader.reference.gpt2 import layer_norm as reference_layer_norm
from grader.reference.modern import rms_norm as reference_rms_norm
from grader.texts import N_

RMS_EPS = 1e-6
# A constant row of 3.0 over a power-of-two width has an exactly representable mean, so
# x - mean is exactly 0 and any implementation without eps divides 0 by 0 in the same way.
CONSTANT = 3.0


def layer_norm(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = LN_EPS
) -> np.ndarray:
    """Reference LayerNorm (population variance, eps = 1e-5)."""
    if eps != LN_EPS:
        # grader.reference fixes eps; cases never pass another value.
        raise ValueError("the layer_norm reference only supports eps = 1e-5")
    return reference_layer_norm(np.asarray(x, dtype=float), gamma, beta)


def _ln_options(name: str, title: str, opts: BlockOptions) -> Mutant:
    """A LayerNorm mutant that reruns the reference with a BlockOptions switch flipped."""

    def compute(
        x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = LN_EPS
    ) -> np.ndarray:
        return reference_layer_norm(np.asarray(x, dtype=float), gamma, beta, opts)

    return Mutant(name, title, compute)


def _ln_no_eps(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = LN_EPS
) -> np.ndarray:
    """LayerNorm dividing by the bare standard deviation."""
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / x.std(axis=-1, keepdims=True) * gamma + beta


def _ln_eps_outside(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = LN_EPS
) -> np.ndarray:
    """LayerNorm adding eps to the standard deviation instead of under the square root."""
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / (x.std(axis=-1, keepdims=True) + LN_EPS) * gamma + beta


def _ln_no_gain_shift(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = LN_EPS
) -> np.ndarray:
    """LayerNorm that normalises but never applies gamma and beta."""
    return reference_layer_norm(np.asarray(x, dtype=float))


def _ln_over_columns(
    x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = LN_EPS
) -> np.ndarray:
    """LayerNorm whose mean and variance run down each column (axis 0) instead of along rows."""
    x = np.asarray(x, dtype=float)
    mu = x.mean(axis=0, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=0, keepdims=True) + LN_EPS) * gamma + beta


def _ln_inputs(rng: np.random.Generator, n: int, d: int) -> dict[str, np.ndarray]:
    """x (n, d) with gains near 1 and small shifts, so forgetting gamma or beta shows."""
    return {"x": rng.normal(size=(n, d)), "gamma": 1.0 + 0.5 * rng.normal(size=d),
            "beta": 0.5 * rng.normal(size=d)}  # fmt: skip


def layer_norm_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """Constant row, a row times 10, large magnitudes, one row, GPT-2's width, then random."""
    constant = _ln_inputs(rng, 3, 8)
    constant["x"][1] = CONSTANT
    scaled = _ln_inputs(rng, 2, 6)
    scaled["x"][1] = 10.0 * scaled["x"][0]
    large = _ln_inputs(rng, 3, 8)
    large["x"] = 1e4 * large["x"]
    cases = [
        about_row(1, N_("every entry is 3.0, so its variance is 0"), edge("constant-row", **constant)),
        about_row(1, N_("it is row 0 times 10, so it normalises to the same values"), edge("row-times-10", **scaled)),
        edge("large-magnitudes", **large),
        edge("single-row", **_ln_inputs(rng, 1, 5)),
        edge("gpt2-width-768", **_ln_inputs(rng, 3, 768)),
    ]
    for i in range(n_random):
        n, d = int(rng.integers(2, 7)), int(rng.integers(4, 65))
        cases.append(hidden(i, **_ln_inputs(rng, n, d)))
    return cases


LAYER_NORM = Task(
    name="layer-norm",
    function="layer_norm",
    params=("x", "gamma", "beta", "eps"),
    reference=layer_norm,
    cases=layer_norm_cases,
    mutants=mutants(
        Mutant("no-eps", "no ε under the square root", _ln_no_eps),
        Mutant("eps-outside-sqrt", "ε added after the square root", _ln_eps_outside),
        _ln_options("sample-variance", N_("the sample variance (dividing by d − 1)"),
                    BlockOptions(ddof=1)),
        _ln_options("no-centering", N_("the mean left in (dividing x by its RMS)"),
                    BlockOptions(center=False)),
        Mutant("no-gain-shift", "γ and β left out", _ln_no_gain_shift),
        Mutant("column-statistics", "the mean and variance taken down each column (axis 0), not along the row",
               _ln_over_columns),
    ),
)


def rms_norm(x: np.ndarray, weight: np.ndarray, eps: float = RMS_EPS) -> np.ndarray:
    """Reference RMSNorm over the last axis, times the gain."""
    return reference_rms_norm(x, weight, eps)


def _rms_no_eps(x: np.ndarray, weight: np.ndarray, eps: float = RMS_EPS) -> np.ndarray:
    return reference_rms_norm(x, weight, 0.0)


def _rms_eps_outside(x: np.ndarray, weight: np.ndarray, eps: float = RMS_EPS) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return x / (np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) + eps) * weight


def _rms_centred(x: np.ndarray, weight: np.ndarray, eps: float = RMS_EPS) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    return reference_rms_norm(x - x.mean(axis=-1, keepdims=True), weight, eps)


def _rms_no_weight(x: np.ndarray, weight: np.ndarray, eps: float = RMS_EPS) -> np.ndarray:
    return reference_rms_norm(x, None, eps)


def _rms_inputs(
    rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0
) -> dict[str, np.ndarray]:
    return {"x": scale * rng.normal(size=shape), "weight": 1.0 + 0.5 * rng.normal(size=shape[-1])}


def rms_norm_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """Zero row, tiny and huge values, an explicit eps, one row, a 3-D input, then random."""
    zero = _rms_inputs(rng, (3, 8))
    zero["x"][0] = 0.0
    cases = [
        about_row(0, N_("every entry is 0, so its mean square is 0"), edge("zero-row", **zero)),
        # mean(x²) = 1e-8 is far below eps, so where eps goes decides the answer.
        edge("tiny-values", **_rms_inputs(rng, (2, 8), scale=1e-4)),
        edge("large-magnitudes", **_rms_inputs(rng, (3, 8), scale=1e4)),
        edge("explicit-eps", eps=1e-2, **_rms_inputs(rng, (2, 6), scale=0.1)),
        edge("single-row", **_rms_inputs(rng, (1, 5))),
        edge("batch-3d", **_rms_inputs(rng, (2, 3, 8))),
    ]
    for i in range(n_random):
        n, d = int(rng.integers(2, 7)), int(rng.integers(4, 65))
        cases.append(hidden(i, **_rms_inputs(rng, (n, d))))
    return cases


RMS_NORM = Task(
    name="rms-norm",
    function="rms_norm",
    params=("x", "weight", "eps"),
    reference=rms_norm,
    cases=rms_norm_cases,
    mutants=mutants(
        Mutant("no-eps", "no ε under the square root", _rms_no_eps),
        Mutant("eps-outside-sqrt", "ε added after the square root", _rms_eps_outside),
        Mutant("mean-subtracted", "the mean subtracted first (as in LayerNorm)", _rms_centred),
        Mutant("no-weight", "the gain left out", _rms_no_weight),
    ),
)
