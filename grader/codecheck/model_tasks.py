"""Code tasks about whole models: microGPT's forward pass and a modern decoder's parameter count."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from grader.codecheck.base import Case, Mutant, Task, edge, hidden, mutants
from grader.reference.microgpt import MicroConfig, init_state_dict
from grader.reference.microgpt import gpt as reference_gpt
from grader.reference.modern import ModernConfig, ParamCounts, param_counts
from grader.texts import N_

MICRO = MicroConfig(vocab=27, n_embd=16, block_size=16, n_head=4, n_layer=1)
BOS = MICRO.vocab - 1  # microGPT's names model: letters a..z are 0..25, BOS/EOS is 26
EMMA = (BOS, 4, 12, 12, 0)  # "emma", as in microGPT's training data
Cache = list[list[np.ndarray]]
Weights = dict[str, np.ndarray]


def gpt(token_id: int, pos_id: int, keys: Cache, values: Cache, state_dict: Weights) -> np.ndarray:
    """Reference microGPT logits (27,) for one position; appends to keys and values."""
    return reference_gpt(token_id, pos_id, keys, values, state_dict, MICRO)


def _gpt_options(name: str, title: str, **options: Any) -> Mutant:
    """A microGPT mutant: the reference forward pass with one keyword switched."""

    def compute(
        token_id: int, pos_id: int, keys: Cache, values: Cache, state_dict: Weights
    ) -> np.ndarray:
        return reference_gpt(token_id, pos_id, keys, values, state_dict, MICRO, **options)

    return Mutant(name, title, compute)


def _positions(state_dict: Weights, tokens: tuple[int, ...]) -> list[dict[str, Any]]:
    """Run the reference along `tokens`; one call's kwargs per position, caches as they were."""
    keys: Cache = [[] for _ in range(MICRO.n_layer)]
    values: Cache = [[] for _ in range(MICRO.n_layer)]
    calls = []
    for pos, token in enumerate(tokens):
        # Each case gets the cache the reference built, so one wrong position cannot spoil the next.
        calls.append({"token_id": int(token), "pos_id": pos, "keys": copy.deepcopy(keys),
                      "values": copy.deepcopy(values), "state_dict": state_dict})  # fmt: skip
        gpt(int(token), pos, keys, values, state_dict)
    return calls


def _random_tokens(rng: np.random.Generator) -> tuple[int, ...]:
    letters = rng.integers(0, BOS, size=MICRO.block_size - 1)
    return (BOS, *(int(t) for t in letters))


def microgpt_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """Every position of "emma", the last position of a full block, then random positions."""
    state_dict = init_state_dict(MICRO, rng)
    cases = [edge(f"emma-position-{i}", **kw) for i, kw in enumerate(_positions(state_dict, EMMA))]
    full = _positions(state_dict, _random_tokens(rng))
    cases.append(edge(f"last-position-{MICRO.block_size - 1}", **full[-1]))
    sequence: list[dict[str, Any]] = []
    for i in range(n_random):
        if not sequence:
            sequence = _positions(state_dict, _random_tokens(rng))
        cases.append(hidden(i, **sequence.pop(0)))
    return cases


MICROGPT = Task(
    name="microgpt",
    function="gpt",
    params=("token_id", "pos_id", "keys", "values", "state_dict"),
    reference=gpt,
    cases=microgpt_cases,
    mutants=mutants(
        _gpt_options("no-initial-norm", N_("no RMSNorm after the embedding"), initial_norm=False),
        _gpt_options("gelu-mlp", N_("GELU in place of microGPT's ReLU"), activation="gelu"),
        # With n_embd = 16 and d_h = 4, dividing by √n_embd and by d_h are the same mistake: name both.
        _gpt_options("scale-dh", N_("scores divided by 4 (√n_embd, or d_h) instead of √d_h = 2"), scale="dh"),
    ),
    changes=("keys", "values"),
)

COUNT_PARAMS = ("d", "n_head", "n_kv_head", "d_ff", "n_layer", "vocab")
COUNT_KEYS = ("attention", "ffn", "norm", "block", "embeddings", "total")
CountChange = Callable[[ModernConfig], dict[str, int]]


def _config(
    d: int, n_head: int, n_kv_head: int, d_ff: int, n_layer: int, vocab: int
) -> ModernConfig:
    return ModernConfig(d=d, n_head=n_head, n_kv_head=n_kv_head, n_layer=n_layer, vocab=vocab,
                        ffn_width=d_ff)  # fmt: skip


def _summary(c: ParamCounts) -> dict[str, int]:
    # The exercise counts the untied token embedding and LM head together as "embeddings".
    return {"attention": c.attention, "ffn": c.ffn, "norm": c.norm, "block": c.block,
            "embeddings": c.embeddings + c.head, "total": c.total}  # fmt: skip


def _counts(cfg: ModernConfig) -> dict[str, int]:
    return _summary(param_counts(cfg))


def count_params(
    d: int, n_head: int, n_kv_head: int, d_ff: int, n_layer: int, vocab: int
) -> dict[str, int]:
    """Reference counts for a bias-free GQA + SwiGLU decoder with an untied head and final norm."""
    return _counts(_config(d, n_head, n_kv_head, d_ff, n_layer, vocab))


def _count_mutant(name: str, title: str, change: CountChange) -> Mutant:
    """A counting mutant: `change` computes the mistaken counts from the model's config."""

    def compute(
        d: int, n_head: int, n_kv_head: int, d_ff: int, n_layer: int, vocab: int
    ) -> dict[str, int]:
        return change(_config(d, n_head, n_kv_head, d_ff, n_layer, vocab))

    return Mutant(name, title, compute)


def _two_matrices(cfg: ModernConfig) -> dict[str, int]:
    return _summary(param_counts(cfg, ffn_matrices=2))


def _no_final_norm(cfg: ModernConfig) -> dict[str, int]:
    counts = _counts(cfg)
    counts["total"] -= cfg.d
    return counts


def _shape(*values: int) -> dict[str, int]:
    return dict(zip(COUNT_PARAMS, values))


def _random_shape(rng: np.random.Generator) -> dict[str, int]:
    head_dim, n_head = int(rng.choice([32, 64, 128])), int(rng.choice([4, 8, 16, 32, 40, 64]))
    n_kv_head = int(rng.choice([h for h in range(1, n_head + 1) if n_head % h == 0]))
    d = head_dim * n_head
    d_ff = 64 * int(rng.integers(2 * d // 64, 4 * d // 64 + 1))
    n_layer, vocab = int(rng.integers(1, 49)), int(rng.integers(1000, 160_001))
    return _shape(d, n_head, n_kv_head, d_ff, n_layer, vocab)


def count_cases(rng: np.random.Generator, n_random: int) -> list[Case]:
    """Llama-like shapes (multi-head, GQA, multi-query), a one-layer toy, then random shapes."""
    cases = [
        edge("llama-2-7b", **_shape(4096, 32, 32, 11008, 32, 32000)),
        edge("llama-3-8b", **_shape(4096, 32, 8, 14336, 32, 128256)),
        edge("multi-query", **_shape(2048, 16, 1, 5632, 22, 32000)),
        edge("one-layer", **_shape(64, 4, 2, 172, 1, 100)),
    ]
    cases.extend(hidden(i, **_random_shape(rng)) for i in range(n_random))
    return cases


PARAM_COUNT = Task(
    name="param-count",
    function="count_params",
    params=COUNT_PARAMS,
    reference=count_params,
    cases=count_cases,
    output="dict",
    mutants=mutants(
        _count_mutant("full-kv-heads", N_("a full set of K/V heads instead of GQA"),
                      lambda cfg: _counts(replace(cfg, n_kv_head=cfg.n_head))),
        _count_mutant("count-biases", N_("biases (and norm betas) counted"),
                      lambda cfg: _summary(param_counts(cfg, biases=True))),
        _count_mutant("tied-embeddings", N_("the LM head tied to the token embedding"),
                      lambda cfg: _summary(param_counts(cfg, tied_head=True))),
        _count_mutant("forget-layers", N_("only one block counted in the total"),
                      lambda cfg: _counts(replace(cfg, n_layer=1))),
        _count_mutant("two-matrix-ffn", N_("two FFN matrices, not SwiGLU's three"), _two_matrices),
        _count_mutant("no-final-norm", N_("the final RMSNorm left out of the total"), _no_final_norm),
    ),
)
