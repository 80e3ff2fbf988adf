"""The lesson's toy block (d = 4): one token's row, worked the way the page works it by hand.

The attention output row `a` is given. The MLP has W1 = [I | -I] and W2 = [I ; I], so
m = gelu(u') + gelu(-u'). LayerNorm keeps gamma = 1 and beta = 0.

A `HandPath` reproduces a learner's pencil-and-paper route: intermediates carried forward at the
lesson's precision. The page itself keeps u' unrounded and rounds each GELU value to 3 decimals
(PAGE_HAND_PATH), which is why it prints m5[1] = 0.640 where full precision gives 0.641. A learner
may round other steps instead (mu and sigma, u', or the GELU values), and may use the page's GELU
constants 0.798 and 0.0447 or the exact sqrt(2/pi) and 0.044715: each mix is a route of its own.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

import numpy as np

from grader.reference.gpt2 import CORRECT, BlockOptions, activate, row_stats

PAGE_X5 = np.array([-0.5, -0.5, -0.5, 1.5])
PAGE_A5 = np.array([-0.739, 1.411, -0.521, -0.520])
TOY_D = 4
# Prompts print reference numbers to 3 decimals (grader/catalog/display.py formats them this way).
PRINTED_DECIMALS = 3


@dataclass(frozen=True)
class HandPath:
    """How a hand computation rounds what it carries forward."""

    decimals: int = 3
    round_stats: bool = False  # also carry mu and sigma rounded
    round_u: bool = True  # carry u' rounded (the page does not: it rounds only the GELU values)
    round_gelu: bool = True  # carry each GELU value rounded
    page_constants: bool = True  # GELU with 0.798 and 0.0447
    printed_z: bool = True  # the single-number GELU check starts from z as the prompt prints it

    def round(self, value: np.ndarray) -> np.ndarray:
        """Round to the lesson's precision."""
        return np.round(value, self.decimals)


# Each step a learner may round or carry exactly (mu and sigma, u', the GELU values), with either
# set of GELU constants: every mix is a route. The page's own comes first.
PAGE_HAND_PATH = HandPath(round_u=False)
# Rounding nothing with the exact constants is the full-precision route itself, not a hand path.
_FULL_PRECISION = HandPath(round_u=False, round_gelu=False, page_constants=False)
_EVERY_MIX = (HandPath(round_stats=stats, round_u=u, round_gelu=gelu, page_constants=page)
              for page, stats, u, gelu in itertools.product((True, False), repeat=4))
LESSON_HAND_PATHS = (PAGE_HAND_PATH, *(p for p in _EVERY_MIX if p not in (PAGE_HAND_PATH, _FULL_PRECISION)))
# The page to the letter: u' unrounded, so its GELU check reads the unrounded z as well (gelu(1.102)
# = 0.952 is gelu(1.10169)). Worked solutions print this route; a learner's routes are those above.
PAGE_ROUTE = replace(PAGE_HAND_PATH, printed_z=False)


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


def _carry(value: np.ndarray, hand: HandPath | None, step: Literal["stats", "u", "gelu"]) -> np.ndarray:
    """`value` as a route carries it on: rounded where the hand path rounds that step."""
    return hand.round(value) if hand is not None and getattr(hand, f"round_{step}") else value


def toy_row(
    x: np.ndarray, a: np.ndarray, opts: BlockOptions = CORRECT, hand: HandPath | None = None
) -> dict[str, np.ndarray | float]:
    """Trace one token through the toy block: h, mu, sigma, u', z, gelu, m, y."""
    opts = _hand_options(opts, hand)
    h = x + a if opts.attn_residual else np.asarray(a, dtype=float)
    norm_input = x if opts.second_norm_of_input else h
    mu, sigma = (float(_carry(s[0], hand, "stats")) for s in row_stats(norm_input, opts))
    u = (norm_input - mu) / sigma if opts.second_norm else np.asarray(norm_input, dtype=float)
    u = _carry(u, hand, "u")
    w1, w2 = toy_weights(len(x))
    z = u @ w1
    g = _carry(activate(z, opts), hand, "gelu")
    m = g @ w2
    stream = x if opts.second_residual_of_input else h
    y = stream + m if opts.mlp_residual else m
    return {"x": x, "a": a, "h": h, "mu": mu, "sigma": sigma, "u": u, "z": z, "gelu": g, "m": m, "y": y}


def gelu_check_z(
    x: np.ndarray, a: np.ndarray, opts: BlockOptions = CORRECT, hand: HandPath | None = None
) -> float:
    """z of the GELU check: |u'[0]| at full precision, or on a hand route as the prompt prints it.

    A learner is handed the printed z, so no hand route may reach another one (rounding mu and
    sigma first would, and would widen what gelu(z) may be). The full-precision route keeps the
    unrounded z, of which the printed one is the rounding: the page's gelu(1.102) = 0.952 is
    gelu(1.10169).
    """
    z = _exact_z(tuple(np.asarray(x, dtype=float).tolist()), tuple(np.asarray(a, dtype=float).tolist()), opts)
    return z if hand is None or not hand.printed_z else float(f"{z:.{PRINTED_DECIMALS}f}")


@lru_cache(maxsize=1024)
def _exact_z(x: tuple[float, ...], a: tuple[float, ...], opts: BlockOptions) -> float:
    # Every hand route of a variant starts from the same printed z: work it out once.
    return abs(float(toy_row(np.array(x), np.array(a), opts)["u"][0]))  # type: ignore[index]


def toy_quantities(
    x: np.ndarray, a: np.ndarray, opts: BlockOptions = CORRECT, hand: HandPath | None = None
) -> dict[str, object]:
    """Everything the block exercises ask about, including the row with attention switched off.

    z1 = |u'[0]| and gelu(-z1), gelu(z1) are the page's single-number GELU check (see gelu_check_z),
    with the steps a worked solution prints: z1 cubed, the tanh argument and the tanh.
    """
    row = toy_row(x, a, opts, hand)
    quiet = toy_row(x, np.zeros_like(x), opts, hand)
    act_opts = _hand_options(opts, hand)
    z1 = gelu_check_z(x, a, opts, hand)
    argument = act_opts.gelu_c * (z1 + act_opts.gelu_k * z1**3)
    return {
        **row,
        "z1": z1,
        "gelu_cube": z1**3,
        "gelu_arg": argument,
        "gelu_tanh": float(np.tanh(argument)),
        "gelu_neg": float(_carry(activate(np.array(-z1), act_opts), hand, "gelu")),
        "gelu_pos": float(_carry(activate(np.array(z1), act_opts), hand, "gelu")),
        "u_no_attention": quiet["u"],
        "m_no_attention": quiet["m"],
        "y_no_attention": quiet["y"],
    }
