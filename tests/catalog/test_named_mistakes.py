"""The common wrong answers issue 30 found unnamed are named, in en, pt and ru.

Each wrong answer is worked out here from the variant's parameters, the way a learner making the
mistake would, and typed as a learner would type it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from babel.messages.pofile import read_po

from grader.catalog.catalog import Catalog, check_answers
from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.catalog.variants import Variant

SEEDS = range(20)
TRANSLATIONS = Path(__file__).resolve().parents[2] / "grader" / "web" / "translations"


def _vector(value: Any) -> str:
    return "[" + "; ".join(f"{v:.3f}" for v in np.ravel(np.asarray(value, dtype=float))) + "]"


def _p(variant: Variant, name: str) -> Any:
    return variant.params[name]


def _gib_as(divisor: float) -> Callable[[Variant], str]:
    def answer(v: Variant) -> str:
        per_token = 2 * _p(v, "h_kv") * _p(v, "d_h") * _p(v, "L") * (_p(v, "bits") // 8)
        return f"{per_token * _p(v, 'ctx') / divisor:.4g}"
    return answer


def _one_layer_bytes(v: Variant) -> str:
    return str(2 * _p(v, "h_kv") * _p(v, "d_h") * (_p(v, "bits") // 8))


def _llama(v: Variant, final_norm: bool = True, norms: int = 2, kv_width: int | None = None) -> str:
    d, L, V = _p(v, "d"), _p(v, "L"), _p(v, "V")
    f = 256 * _p(v, "f_units")
    width = kv_width if kv_width is not None else _p(v, "n_kv_head") * (d // _p(v, "n_head"))
    block = 2 * d * d + 2 * d * width + 3 * d * f + norms * d
    return str(L * block + 2 * V * d + (d if final_norm else 0))


def _sigmoid_gate(v: Variant) -> str:
    z = np.asarray(_p(v, "x"), dtype=float) @ np.asarray(_p(v, "W1"), dtype=float)
    return _vector(1 / (1 + np.exp(-z)))


def _o2_from_row(row: int) -> Callable[[Variant], str]:
    def answer(v: Variant) -> str:
        q, k, vv = (np.asarray(_p(v, n), dtype=float) for n in ("q", "k", "v"))
        s = q @ k.T / np.sqrt(2) + np.triu(np.full((3, 3), -np.inf), 1)
        a = np.exp(s - s.max(axis=1, keepdims=True))
        return _vector((a / a.sum(axis=1, keepdims=True))[row] @ vv)
    return answer


def _ten_y(v: Variant) -> str:
    return _vector(10 * np.asarray(v.quantities["y"], dtype=float))


def _rows(first: Callable[[int], int], last: Callable[[int, int], int]) -> Callable[[Variant], str]:
    def answer(v: Variant) -> str:
        n, j = _p(v, "n"), _p(v, "j")
        return "{" + ", ".join(str(i) for i in range(first(j), last(j, n) + 1)) + "}"
    return answer


def _gflop(per_weight: int, scale: float = 1.0) -> Callable[[Variant], str]:
    def answer(v: Variant) -> str:
        return f"{per_weight * float(_p(v, 'N_b')) * scale:.4g}"
    return answer


def _first_step_x(v: Variant) -> Any:
    return np.asarray(_p(v, "tok"), dtype=float) + np.asarray(_p(v, "pos"), dtype=float)


def _mean_square(v: Variant) -> float:
    return float(np.mean(_first_step_x(v) ** 2) + 1e-5)


def _swiglu_width(rounding: Callable[[int], int]) -> Callable[[Variant], str]:
    def answer(v: Variant) -> str:
        return str(rounding(_p(v, "d")))
    return answer


CASES: list[tuple[str, str, str, Callable[[Variant], str]]] = [
    ("gqa-kv-cache", "cache_gib", "gb-for-gib", _gib_as(1e9)),
    ("gqa-kv-cache", "cache_gib", "mib-for-gib", _gib_as(2**20)),
    ("gqa-kv-cache", "per_token", "kv-cache-one-layer", _one_layer_bytes),
    ("llama3-params", "total", "final-norm-forgotten", lambda v: _llama(v, final_norm=False)),
    ("llama3-params", "total", "one-norm", lambda v: _llama(v, norms=1)),
    ("llama3-params", "total", "kv-width-full-d", lambda v: _llama(v, kv_width=_p(v, "n_kv_head") * _p(v, "d"))),
    ("swiglu-by-hand", "gate", "sigmoid-gate", _sigmoid_gate),
    ("attention-by-hand", "o2", "o2-from-row-3", _o2_from_row(2)),
    ("attention-by-hand", "o2", "o2-from-row-1", _o2_from_row(0)),
    ("layernorm-scale", "y_big", "output-times-ten", _ten_y),
    ("causal-rows", "changed", "rows-after-j", _rows(lambda j: j + 1, lambda j, n: n)),
    ("causal-rows", "changed", "rows-up-to-j", _rows(lambda j: 1, lambda j, n: j)),
    ("causal-rows", "changed", "rows-before-j", _rows(lambda j: 1, lambda j, n: j - 1)),
    ("cost-per-token", "train", "training-backward-only", _gflop(4)),
    ("cost-per-token", "train", "training-8n", _gflop(8)),
    ("cost-per-token", "fwd", "flops-for-gflops", lambda v: str(round(2 * float(_p(v, "N_b")) * 10**9))),
    ("cost-per-token", "adam", "adam-with-gradients", lambda v: str(4 * _p(v, "P"))),
    ("microgpt-first-step", "loss", "log-base-2", lambda v: f"{np.log2(_p(v, 'vocab')):.3f}"),
    ("microgpt-first-step", "loss", "loss-is-probability", lambda v: f"{1 / _p(v, 'vocab'):.4f}"),
    ("microgpt-first-step", "r", "rms-no-sqrt", lambda v: f"{_mean_square(v):.4f}"),
    ("microgpt-first-step", "xn", "rms-no-sqrt", lambda v: _vector(_first_step_x(v) / _mean_square(v))),
    ("swiglu-why", "f", "swiglu-unrounded", _swiglu_width(lambda d: round(8 * d / 3))),
    ("swiglu-why", "f", "swiglu-floor-128", _swiglu_width(lambda d: 8 * d // 3 // 128 * 128)),
    ("swiglu-why", "swiglu", "swiglu-count-unrounded", _swiglu_width(lambda d: 8 * d * d)),
]


@pytest.mark.parametrize(("exercise", "part", "mistake", "wrong"), CASES, ids=[f"{c[2]}:{c[1]}" for c in CASES])
def test_the_common_wrong_answer_is_named(catalog: Catalog, exercise: str, part: str, mistake: str,
                                          wrong: Callable[[Variant], str]) -> None:  # fmt: skip
    verdicts = []
    for seed in SEEDS:
        variant = catalog.variant(exercise, seed)
        result = check_answers(variant, {part: wrong(variant)}).parts[part]
        verdicts.append((seed, result.status, result.misconception))
    assert verdicts == [(seed, "incorrect", mistake) for seed in SEEDS]


@pytest.mark.parametrize("locale", ["pt", "ru"])
def test_each_new_mistake_has_its_title_and_hint_translated(locale: str) -> None:
    with (TRANSLATIONS / locale / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        catalogue = read_po(handle)
    texts = [text for _, _, name, _ in CASES for text in (MISCONCEPTIONS[name].title, MISCONCEPTIONS[name].hint)]
    missing = [text for text in texts if not getattr(catalogue.get(text), "string", "")]
    assert missing == []
