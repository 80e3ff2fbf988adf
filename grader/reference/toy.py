"""The lesson's toy block (d = 4): one token's row, worked the way the page works it by hand.

The attention output row `a` is given. The MLP has W1 = [I | -I] and W2 = [I ; I], so
m = gelu(u') + gelu(-u'). LayerNorm keeps gamma = 1 and beta = 0.

The page itself keeps u' unrounded and rounds each GELU value to 3 decimals (PAGE_HAND_PATH), which
is why it prints m5[1] = 0.640 where full precision gives 0.641; worked solutions print that route.
Each step is computed the way a worked solution prints it (the sum, the mean, the deviations, the
variance, sigma, u', the GELU values, their sums), and any of them can be fixed at a given value
(`fixed`): a learner carrying a printed number on. grader.catalog.reach moves each printed one in
turn to find every result a learner can reach from the printed numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Callable, Mapping

import numpy as np

from grader.reference.gpt2 import CORRECT, LN_EPS, BlockOptions, activate

PAGE_X5 = np.array([-0.5, -0.5, -0.5, 1.5])
PAGE_A5 = np.array([-0.739, 1.411, -0.521, -0.520])
TOY_D = 4


@dataclass(frozen=True)
class HandPath:
    """How a hand computation rounds what it carries forward, and which GELU constants it uses."""

    decimals: int = 3
    round_gelu: bool = True  # carry each GELU value rounded
    page_constants: bool = True  # GELU with 0.798 and 0.0447

    def round(self, value: np.ndarray) -> np.ndarray:
        """Round to the lesson's precision."""
        return np.round(value, self.decimals)


# The page to the letter: u' unrounded, each GELU value rounded, the page's constants. Worked
# solutions print this route; what a learner reaches otherwise is the route interval's business.
PAGE_HAND_PATH = PAGE_ROUTE = HandPath()
# The full-precision route with the page's constants 0.798 and 0.0447 in place of sqrt(2/pi), 0.044715.
PAGE_CONSTANTS = HandPath(round_gelu=False)


@lru_cache(maxsize=8)
def toy_weights(d: int = TOY_D) -> tuple[np.ndarray, np.ndarray]:
    """W1 = [I | -I] (d x 2d) and W2 = [I ; I] (2d x d), read-only (they are shared)."""
    eye = np.eye(d)
    w1, w2 = np.hstack([eye, -eye]), np.vstack([eye, eye])
    w1.flags.writeable = w2.flags.writeable = False
    return w1, w2


@lru_cache(maxsize=256)
def _hand_options(opts: BlockOptions, hand: HandPath | None) -> BlockOptions:
    return replace(opts, gelu_c=0.798, gelu_k=0.0447) if hand and hand.page_constants else opts


def _carry(value: np.ndarray, hand: HandPath | None) -> np.ndarray:
    """A GELU value as a route carries it on: rounded when the hand path rounds them."""
    return hand.round(value) if hand is not None and hand.round_gelu else value


Fixed = Mapping[str, Any]


def _keeper(fixed: Fixed | None, suffix: str) -> Callable[[str, Any], Any]:
    """A step's value as computed, or as `fixed` gives it (under its name plus `suffix`)."""
    return lambda name, value: fixed[name + suffix] if fixed and name + suffix in fixed else value


def toy_row(x: np.ndarray, a: np.ndarray, opts: BlockOptions = CORRECT, hand: HandPath | None = None,
            fixed: Fixed | None = None, suffix: str = "") -> dict[str, Any]:  # fmt: skip
    """Trace one token through the toy block in the order a worked solution prints it: h, the sum, mu,
    the deviations, the variance, sigma, u', z, gelu, m, y (each may be `fixed`, named with `suffix`)."""
    opts, keep = _hand_options(opts, hand), _keeper(fixed, suffix)
    h = keep("h", x + a if opts.attn_residual else np.asarray(a, dtype=float))
    norm_input = np.asarray(x if opts.second_norm_of_input else h, dtype=float)
    n = norm_input.shape[-1]
    total = keep("h_sum", float(norm_input.sum()))
    mu = keep("mu", total / n if opts.center else 0.0)
    dev = keep("dev", norm_input - mu)
    var = keep("var", float((np.asarray(dev) ** 2).sum() / (n - opts.ddof)))
    sigma = keep("sigma", float(np.sqrt(var + LN_EPS)))
    u = keep("u", np.asarray(dev) / sigma if opts.second_norm else norm_input)
    w1, w2 = toy_weights(len(x))
    z = keep("z", np.asarray(u) @ w1)
    g = keep("gelu", _carry(activate(z, opts), hand))
    m = keep("m", np.asarray(g) @ w2)
    stream = x if opts.second_residual_of_input else h
    y = keep("y", stream + m if opts.mlp_residual else m)
    return {"x": x, "a": a, "h": h, "h_sum": total, "mu": mu, "dev": dev, "var": var, "sigma": sigma,
            "u": u, "z": z, "gelu": g, "m": m, "y": y}  # fmt: skip


def gelu_check(z1: float, opts: BlockOptions, hand: HandPath | None, fixed: Fixed | None) -> dict[str, Any]:
    """The single-number GELU check at z = |u'[0]|, step by step as worked solutions print it: the cube,
    the tanh argument, its tanh, then gelu(-z) = -z(1 - t)/2 and gelu(z) = z(1 + t)/2."""
    keep = _keeper(fixed, "")
    z1 = keep("z1", z1)
    cube = keep("gelu_cube", z1**3)
    argument = keep("gelu_arg", opts.gelu_c * (z1 + opts.gelu_k * cube))
    tanh = keep("gelu_tanh", float(np.tanh(argument)))
    if opts.activation == "gelu":  # the tanh form, through the printed tanh
        half = 0.5 if opts.gelu_halved else 1.0
        neg, pos = -half * z1 * (1.0 - tanh), half * z1 * (1.0 + tanh)
    else:
        neg, pos = float(activate(np.array(-z1), opts)), float(activate(np.array(z1), opts))
    return {"z1": z1, "gelu_cube": cube, "gelu_arg": argument, "gelu_tanh": tanh,
            "gelu_neg": keep("gelu_neg", float(_carry(np.asarray(neg), hand))),
            "gelu_pos": keep("gelu_pos", float(_carry(np.asarray(pos), hand)))}  # fmt: skip


def toy_quantities(x: np.ndarray, a: np.ndarray, opts: BlockOptions = CORRECT, hand: HandPath | None = None,
                   fixed: Fixed | None = None) -> dict[str, Any]:  # fmt: skip
    """Everything the block exercises ask about, including the row with attention switched off.

    z1 = |u'[0]| and gelu(-z1), gelu(z1) are the page's single-number GELU check (gelu_check).
    """
    row = toy_row(x, a, opts, hand, fixed)
    quiet = toy_row(x, np.zeros_like(x), opts, hand, fixed, suffix="_no_attention")
    check = gelu_check(abs(float(np.asarray(row["u"])[0])), _hand_options(opts, hand), hand, fixed)
    return {**row, **check, **{f"{name}_no_attention": quiet[name] for name in QUIET}}


# What the row with attention switched off gives, named with "_no_attention".
QUIET = ("mu", "sigma", "u", "gelu", "m", "y")
