"""Code tasks for causal attention and the whole GPT-2 block."""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.codecheck.base import Case, Mutant, Task, edge, hidden, mutants
from grader.reference.common import causal_mask, softmax
from grader.reference.gpt2 import BlockOptions, init_gpt2_weights
from grader.reference.gpt2 import causal_attention as reference_attention
from grader.reference.gpt2 import gpt2_block as reference_block
from grader.texts import N_

# Diagonal scores of this size overflow exp() (above ~709) unless the row max is subtracted.
LARGE_SCORE = 1500.0


def causal_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Reference causal attention on (h, n, d_h) arrays."""
    return reference_attention(q, k, v)


def _attention_options(name: str, title: str, opts: BlockOptions) -> Mutant:
    """An attention mutant that reruns the reference with one switch flipped."""

    def compute(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
        return reference_attention(q, k, v, opts)

    return Mutant(name, title, compute)


def _masked_scores(q: np.ndarray, k: np.ndarray, divisor: float) -> np.ndarray:
    return q @ k.transpose(0, 2, 1) / divisor + causal_mask(q.shape[1])


def _no_scale(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    return softmax(_masked_scores(q, k, 1.0)) @ v


def _mask_on_the_wrong_side(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    # -inf below the diagonal: each token attends to itself and the later tokens.
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1]) + causal_mask(q.shape[1]).T
    return softmax(scores) @ v


def _softmax_over_queries(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    return softmax(_masked_scores(q, k, np.sqrt(q.shape[-1])), axis=-2) @ v


def _unstable_softmax(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    e = np.exp(_masked_scores(q, k, np.sqrt(q.shape[-1])))
    return e / e.sum(axis=-1, keepdims=True) @ v


def _qkv(rng: np.random.Generator, h: int, n: int, d_h: int) -> dict[str, np.ndarray]:
    return {name: rng.normal(size=(h, n, d_h)) for name in ("q", "k", "v")}


def _large_scores(rng: np.random.Generator, h: int, n: int, d_h: int) -> dict[str, np.ndarray]:
    """Keys close to their queries, with q·q/sqrt(d_h) = LARGE_SCORE on the diagonal."""
    q = rng.normal(size=(h, n, d_h))
    q *= np.sqrt(LARGE_SCORE * np.sqrt(d_h)) / np.linalg.norm(q, axis=-1, keepdims=True)
    return {"q": q, "k": q + 0.1 * rng.normal(size=q.shape), "v": rng.normal(size=(h, n, d_h))}


def attention_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """One token, one head, two tokens, huge scores, then random sizes (d_h >= 2)."""
    cases = [
        edge("single-token", **_qkv(rng, 2, 1, 4)),
        edge("one-head", **_qkv(rng, 1, 4, 3)),
        edge("two-tokens", **_qkv(rng, 2, 2, 4)),
        edge("large-scores", **_large_scores(rng, 2, 5, 8)),
    ]
    for i in range(n_random):
        # d_h = 1 would make sqrt(d_h) = d_h, hiding the scale mistakes.
        h, n, d_h = int(rng.integers(1, 5)), int(rng.integers(2, 9)), int(rng.integers(2, 17))
        cases.append(hidden(i, **_qkv(rng, h, n, d_h)))
    return cases


CAUSAL_ATTENTION = Task(
    name="causal-attention",
    function="causal_attention",
    params=("q", "k", "v"),
    reference=causal_attention,
    cases=attention_cases,
    mutants=mutants(
        _attention_options("no-causal-mask", N_("no causal mask"), BlockOptions(causal=False)),
        _attention_options("scale-dh", N_("scores divided by d_h instead of √d_h"),
                           BlockOptions(scale="dh")),
        Mutant("no-scale", "scores not divided by √d_h", _no_scale),
        Mutant("softmax-axis", "the softmax taken over queries (axis −2)", _softmax_over_queries),
        Mutant("unstable-softmax", "a softmax that does not subtract the row maximum",
               _unstable_softmax),
        _attention_options("mask-zero", N_("future scores set to 0 instead of −∞"), BlockOptions(mask="zero")),
        _attention_options("mask-after-softmax", N_("the mask applied after the softmax, so rows no longer sum to 1"),
                           BlockOptions(mask="after-softmax")),
        Mutant("mask-wrong-side", "the mask on the wrong side: each token sees itself and the later ones",
               _mask_on_the_wrong_side),
        _attention_options("diagonal-masked", N_("the diagonal masked too, so a token cannot attend to itself"),
                           BlockOptions(mask="strict")),
    ),
)


def _split_params(p: dict[str, Any]) -> tuple[dict[str, np.ndarray], int]:
    weights = {name: value for name, value in p.items() if name != "n_head"}
    return weights, int(p["n_head"])


def gpt2_block(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """Reference pre-LN GPT-2 block output y for x (n, d); p holds the weights and n_head."""
    weights, n_head = _split_params(p)
    return reference_block(np.asarray(x, dtype=float), weights, n_head)["y"]


def _block_options(name: str, title: str, opts: BlockOptions) -> Mutant:
    """A block mutant: the reference block with one BlockOptions switch flipped."""

    def compute(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
        weights, n_head = _split_params(p)
        return reference_block(np.asarray(x, dtype=float), weights, n_head, opts)["y"]

    return Mutant(name, title, compute)


def _block_inputs(rng: np.random.Generator, n: int, d: int, n_head: int) -> dict[str, Any]:
    p: dict[str, Any] = dict(init_gpt2_weights(d, rng))
    p["n_head"] = n_head
    return {"x": rng.normal(size=(n, d)), "p": p}


def block_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """One token, one head, many small heads, then random widths and head counts."""
    cases = [
        edge("single-token", **_block_inputs(rng, 1, 8, 2)),
        edge("one-head", **_block_inputs(rng, 4, 8, 1)),
        edge("many-heads", **_block_inputs(rng, 3, 16, 8)),
    ]
    for i in range(n_random):
        d = int(rng.choice([8, 12, 16, 24, 32]))
        # Heads of size >= 2 only, so that d_h and sqrt(d_h) differ.
        n_head = int(rng.choice([h for h in range(1, d // 2 + 1) if d % h == 0]))
        cases.append(hidden(i, **_block_inputs(rng, int(rng.integers(2, 7)), d, n_head)))
    return cases


GPT2_BLOCK = Task(
    name="gpt2-block",
    function="gpt2_block",
    params=("x", "p"),
    reference=gpt2_block,
    cases=block_cases,
    mutants=mutants(
        _block_options("no-residual-attention", N_("the first residual forgotten (h = a)"),
                       BlockOptions(attn_residual=False)),
        _block_options("no-residual-mlp", N_("the second residual forgotten (y = m)"),
                       BlockOptions(mlp_residual=False)),
        _block_options("normalise-x", N_("the second LayerNorm applied to x instead of h"),
                       BlockOptions(second_norm_of_input=True)),
        _block_options("residual-from-x", N_("the second residual added to x instead of h (y = x + m)"),
                       BlockOptions(second_residual_of_input=True)),
        _block_options("sample-variance", N_("the sample variance in LayerNorm"), BlockOptions(ddof=1)),
        _block_options("relu", N_("ReLU in place of GELU"), BlockOptions(activation="relu")),
        _block_options("erf-gelu", N_("the exact (erf) GELU"), BlockOptions(activation="erf")),
        _block_options("no-causal-mask", N_("no causal mask"), BlockOptions(causal=False)),
        _block_options("scale-dh", N_("scores divided by d_h instead of √d_h"),
                       BlockOptions(scale="dh")),
        _block_options("post-norm", N_("LayerNorm after each residual sum (post-LN) instead of before each sublayer"),
                       BlockOptions(post_norm=True)),
        _block_options("no-output-projection", N_("the attention output projection W_O, b_O left out"),
                       BlockOptions(output_projection=False)),
    ),
)
