"""The FFN as key-value memory: which keys fire, what the layer writes, and what an edit changes.

Indices shown to learners are 1-based, like the prompt's k₁ … k_dff.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.catalog.scenarios.base import Params, Quantities, Scenario
from grader.reference.memory import edit_value, ffn_memory, firing_keys, inputs_changed_by_edit

# Integer scores closer to zero than this would make "does it fire?" a coin toss for a learner.
MIN_SCORE_MAGNITUDE = 1.0


def _one_based(indices: list[int], mistake: str | None) -> frozenset[int]:
    shift = 0 if mistake == "zero-based" else 1
    return frozenset(i + shift for i in indices)


def _read(x: np.ndarray, keys: np.ndarray, values: np.ndarray, mistake: str | None) -> np.ndarray:
    scores = keys @ x
    if mistake == "no-activation":
        return scores @ values
    if mistake == "unweighted-values":
        return (scores > 0).astype(float) @ values
    if mistake == "fires-on-negative":
        return np.maximum(-scores, 0.0) @ values
    if mistake == "keys-as-values":
        return np.maximum(scores, 0.0) @ keys
    return ffn_memory(x, keys, values)


def _arrays(params: Params, *names: str) -> list[np.ndarray]:
    return [np.asarray(params[n], dtype=float) for n in names]


def _keys(params: Params, mistake: str | None, hand: Any) -> Quantities:
    x, keys, values = _arrays(params, "x", "keys", "values")
    fired = firing_keys(-x if mistake == "fires-on-negative" else x, keys)
    return {"scores": keys @ x, "active": _one_based(fired, mistake),
            "out": _read(x, keys, values, mistake)}  # fmt: skip


def _scores_clear(x: np.ndarray, keys: np.ndarray) -> str | None:
    scores = keys @ x.T
    if np.any(np.abs(scores) < MIN_SCORE_MAGNITUDE):
        return "a key score is too close to zero"
    return None


def _keys_well_posed(params: Params) -> str | None:
    x, keys = _arrays(params, "x", "keys")
    fired = len(firing_keys(x, keys))
    if fired in (0, len(keys)):
        return "some keys must fire and some must not"
    return _scores_clear(x, keys)


FFN_KEYS = Scenario(
    name="ffn-keys",
    params=("x", "keys", "values"),
    quantities=("scores", "active", "out"),
    mistakes=("fires-on-negative", "no-activation", "unweighted-values", "keys-as-values", "zero-based"),
    compute=_keys,
    well_posed=_keys_well_posed,
)


def _edit(params: Params, mistake: str | None, hand: Any) -> Quantities:
    xs, keys, values, new_value = _arrays(params, "inputs", "keys", "values", "new_value")
    j, probe = int(params["edited"]) - 1, int(params["probe"]) - 1
    changed = inputs_changed_by_edit(-xs if mistake == "fires-on-negative" else xs, keys, j)
    if mistake == "all-inputs-change":
        changed = list(range(len(xs)))
    edited = values if mistake == "edit-ignored" else edit_value(values, j, new_value)
    return {"changed": _one_based(changed, mistake), "out": _read(xs[probe], keys, edited, mistake),
            "scores": xs @ keys.T}  # fmt: skip


def _edit_well_posed(params: Params) -> str | None:
    xs, keys = _arrays(params, "inputs", "keys")
    j, probe = int(params["edited"]) - 1, int(params["probe"]) - 1
    changed = inputs_changed_by_edit(xs, keys, j)
    if not changed or len(changed) == len(xs):
        return "the edit must change some inputs but not all"
    if probe not in changed:
        return "the probed input must be one the edit changes"
    return _scores_clear(xs, keys)


FFN_EDIT = Scenario(
    name="ffn-edit",
    params=("inputs", "keys", "values", "edited", "new_value", "probe"),
    quantities=("changed", "out", "scores"),
    mistakes=("all-inputs-change", "fires-on-negative", "edit-ignored", "no-activation",
              "unweighted-values", "zero-based"),  # fmt: skip
    compute=_edit,
    well_posed=_edit_well_posed,
)
