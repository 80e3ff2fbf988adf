"""Counting scenarios: modern-block shapes and parameters, SwiGLU width, FFN share, microGPT."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from typing import Any

from grader.catalog.scenarios.base import Params, Quantities, Scenario
from grader.reference.memory import ffn_share
from grader.reference.microgpt import MicroConfig, param_table, station_counts
from grader.reference.modern import ModernConfig, param_counts, stage_shapes, swiglu_width


def _modern_config(params: Params, mistake: str | None, hand: Any = None) -> ModernConfig:
    d, h = int(params["d"]), int(params["n_head"])
    cfg = ModernConfig(d=d, n_head=h, n_kv_head=int(params["n_kv_head"]),
                       n_layer=int(params.get("n_layer", 1)), vocab=int(params.get("vocab", 0)))  # fmt: skip
    if mistake == "full-kv-heads":
        return replace(cfg, n_kv_head=h)
    if mistake == "ffn-4d":
        return replace(cfg, ffn_width=4 * d)
    if mistake == "swiglu-ceil":
        return replace(cfg, ffn_width=_rounded_up(d))
    if mistake == "swiglu-unrounded":
        return replace(cfg, ffn_width=_unrounded(d, hand))
    if mistake == "forget-layers":
        return replace(cfg, n_layer=1)
    return cfg


def _rounded_up(d: int) -> int:
    # Llama's reference code rounds 8d/3 up to the next multiple of 256; this course rounds to the nearest.
    return math.ceil(Fraction(8 * d, 3 * 256)) * 256


def _unrounded(d: int, hand: Any) -> int:
    # 8d/3 left as it is: cut to a whole number, or (the "nearest" hand path) a calculator's
    # 1706.67 rounded to one.
    exact = Fraction(8 * d, 3)
    return round(exact) if hand == "nearest" else int(exact)


def _transposed(shapes: dict[str, tuple[int, ...]]) -> dict[str, tuple[int, ...]]:
    # Every shape's first two axes swapped, the 2-D ones included.
    return {name: (s[1], s[0], *s[2:]) for name, s in shapes.items()}


# The tensors that carry a head axis: a learner who keeps tokens first writes them (n, h, …).
HEAD_TENSORS = ("q", "kv", "kv_cache", "scores")


def _mistaken_shapes(shapes: dict[str, tuple[int, ...]], cfg: ModernConfig,
                     mistake: str | None) -> dict[str, tuple[int, ...]]:  # fmt: skip
    """The stage shapes as a learner making `mistake` gives them."""
    n, h, d = shapes["x"][0], cfg.n_head, cfg.d
    changed: dict[str, dict[str, tuple[int, ...]]] = {
        "kv-not-repeated": {"kv": shapes["kv_cache"]},
        "scores-without-heads": {"scores": shapes["scores"][1:]},
        "heads-not-split": {"q": (n, d), "kv": (n, d)},
        "head-size-d": {"q": (h, n, d), "kv": (h, n, d)},
    }
    shapes = {**shapes, **changed.get(mistake or "", {})}
    if mistake == "heads-not-first":  # Q reshaped to (n, h, d_h) and never transposed
        return {**shapes, **{name: s for name, s in _transposed(shapes).items() if name in HEAD_TENSORS}}
    return _transposed(shapes) if mistake == "transposed-shape" else shapes


def _modern(params: Params, mistake: str | None, hand: Any) -> Quantities:
    cfg = _modern_config(params, mistake, hand)
    shapes = _mistaken_shapes(stage_shapes(int(params.get("n", 1)), cfg), cfg, mistake)
    matrices = 2 if mistake == "two-matrix-ffn" else 3
    gains = {"one-norm": 1, "norm-without-gain": 0}.get(mistake or "", 2)
    counts = param_counts(cfg, biases=mistake == "count-biases", ffn_matrices=matrices,
                          output_projection=mistake != "no-wo", norm_gains=gains)
    kv_width = cfg.n_kv_head * cfg.head_dim
    return {**shapes, "d_h": cfg.head_dim, "f": cfg.f, "attention": counts.attention,
            "ffn": counts.ffn, "norm": counts.norm, "block": counts.block, "model": counts.blocks,
            "with_embeddings": counts.total,
            # printed by worked solutions only
            "kv_width": kv_width, "attn_square": 2 * cfg.d * cfg.d, "attn_kv": 2 * cfg.d * kv_width,
            "kv_repeat": cfg.n_head // cfg.n_kv_head, "eight_d_thirds": 8 * cfg.d / 3}  # fmt: skip


def _modern_well_posed(params: Params) -> str | None:
    d, h, h_kv = int(params["d"]), int(params["n_head"]), int(params["n_kv_head"])
    if d % h or h % h_kv:
        return "d must divide into heads and heads into K/V groups"
    if h_kv >= h:
        return "grouped-query attention needs fewer K/V heads than query heads"
    dims = [int(params.get("n", 0)), h, d // h]
    if "n" in params and len(set(dims)) < 3:
        return "n, h and d_h must differ so a transposition shows"
    return None


MODERN = Scenario(
    name="modern-block",
    params=("d", "n_head", "n_kv_head"),
    optional=("n", "n_layer", "vocab"),
    quantities=("x", "q", "kv", "kv_cache", "scores", "hidden", "out", "d_h", "f", "attention",
                "ffn", "norm", "block", "model", "with_embeddings",
                "kv_width", "attn_square", "attn_kv", "kv_repeat", "eight_d_thirds"),  # fmt: skip
    mistakes=("full-kv-heads", "ffn-4d", "swiglu-ceil", "forget-layers", "count-biases", "kv-not-repeated",
              "heads-not-first", "transposed-shape", "two-matrix-ffn", "scores-without-heads", "heads-not-split",
              "head-size-d", "no-wo", "swiglu-unrounded", "one-norm", "norm-without-gain"),  # fmt: skip
    compute=_modern,
    hand_paths=("nearest",),  # only swiglu-unrounded reads it
    well_posed=_modern_well_posed,
)


def _swiglu(params: Params, mistake: str | None, hand: Any) -> Quantities:
    d = int(params["d"])
    exact = Fraction(8 * d, 3)
    widths = {
        None: swiglu_width(d),
        "ffn-4d": 4 * d,
        "swiglu-floor": int(exact // 256) * 256,
        "swiglu-ceil": _rounded_up(d),
        "swiglu-unrounded": _unrounded(d, hand),
    }
    f = widths[mistake]
    # The steps of the worked solution: why 8d/3 (three d x f matrices cost what two d x 4d did),
    # then 8d/3 in units of 256 and its nearest whole number.
    return {"f": f, "d": d, "eight_d_thirds": float(exact), "in_256": float(exact / 256),
            "multiples": round(exact / 256), "classic_ffn": 2 * d * 4 * d, "swiglu_ffn": 3 * d * f}  # fmt: skip


SWIGLU_WIDTH = Scenario(
    name="swiglu-width",
    params=("d",),
    quantities=("f", "d", "eight_d_thirds", "in_256", "multiples", "classic_ffn", "swiglu_ffn"),
    mistakes=("ffn-4d", "swiglu-floor", "swiglu-ceil", "swiglu-unrounded"),
    compute=_swiglu,
    hand_paths=("nearest",),
)


def _share(params: Params, mistake: str | None, hand: Any) -> Quantities:
    d, k = int(params["d"]), int(params["ffn_mult"])
    d_ff = k * d
    share = ffn_share(d, d_ff)
    if mistake == "attention-share":
        share = 1 - share
    if mistake == "one-ffn-matrix":
        share = Fraction(d * d_ff, 4 * d * d + d * d_ff)
    # d cancels: 2·d·(k·d) / (4d² + 2·d·(k·d)) = 2k / (4 + 2k) = k / (2 + k).
    return {"share": share, "d_ff": d_ff, "attention": 4 * d * d, "ffn": 2 * d * d_ff,
            "large": 4 * d * d + 2 * d * d_ff, "two_plus_k": 2 + k, "share_decimal": float(share)}  # fmt: skip


FFN_SHARE = Scenario(
    name="ffn-share",
    params=("d", "ffn_mult"),
    quantities=("share", "d_ff", "attention", "ffn", "large", "two_plus_k", "share_decimal"),
    mistakes=("attention-share", "one-ffn-matrix"),
    compute=_share,
)


def _micro_config(params: Params, mistake: str | None) -> MicroConfig:
    cfg = MicroConfig(vocab=int(params["vocab"]), n_embd=int(params["n_embd"]),
                      block_size=int(params["block_size"]), n_head=int(params["n_head"]),
                      n_layer=int(params["n_layer"]))  # fmt: skip
    one_layer = mistake in ("forget-layers", "norms-of-one-layer")
    return replace(cfg, n_layer=1) if one_layer else cfg


def _microgpt(params: Params, mistake: str | None, hand: Any) -> Quantities:
    cfg = _micro_config(params, mistake)
    table, stations = param_table(cfg), station_counts(cfg)
    e, layers = cfg.n_embd, cfg.n_layer
    if mistake == "count-biases":
        table["attention"] += 4 * e * layers
        table["mlp"] += 5 * e * layers
        table["lm_head"] += cfg.vocab
    if mistake == "tied-head":
        table["lm_head"] = 0
    if mistake == "one-ffn-matrix":
        table["mlp"] //= 2
    if mistake == "no-wo":
        table["attention"] = 3 * e * e * layers
    table["total"] = sum(v for k, v in table.items() if k != "total")
    outside = Fraction(table["wte"] + table["wpe"] + table["lm_head"], table["total"])
    if mistake == "inside-share":
        outside = 1 - outside
    if mistake == "forget-initial-norm":
        stations["norms"] -= 1
    if mistake == "extra-final-norm":
        stations["norms"] += 1
    # Each matrix [in][out]: fc1 reads as fc2's shape and back. Exercises saved before the mistake
    # had its own name call it transposed-shape, so that name still computes it.
    if mistake in ("weight-in-out", "transposed-shape"):
        stations["fc1_shape"], stations["fc2_shape"] = stations["fc2_shape"], stations["fc1_shape"]
    outside_count = table["wte"] + table["wpe"] + table["lm_head"]
    return {**table, **stations, "outside_share": outside, "head_dim": cfg.head_dim,
            # printed by worked solutions only
            "outside": outside_count, "outside_decimal": float(outside), "hidden_width": 4 * e,
            "layer_attention": 4 * e * e, "layer_mlp": 8 * e * e}  # fmt: skip


MICROGPT = Scenario(
    name="microgpt",
    params=("vocab", "n_embd", "block_size", "n_head", "n_layer"),
    quantities=("wte", "wpe", "lm_head", "attention", "mlp", "total", "outside_share", "norms",
                "residual_adds", "fc1_shape", "fc2_shape", "head_dim", "outside", "outside_decimal",
                "hidden_width", "layer_attention", "layer_mlp"),  # fmt: skip
    mistakes=("forget-layers", "count-biases", "tied-head", "one-ffn-matrix", "no-wo", "inside-share",
              "forget-initial-norm", "extra-final-norm", "norms-of-one-layer", "weight-in-out",
              "transposed-shape"),  # fmt: skip
    compute=_microgpt,
    well_posed=lambda p: None if int(p["n_embd"]) % int(p["n_head"]) == 0 else "n_head must divide n_embd",
)
