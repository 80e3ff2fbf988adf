"""The FFN as key-value memory: which keys fire, what the layer writes, and what an edit changes.

Indices shown to learners are 1-based, like the prompt's k₁ … k_dff.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.catalog.scenarios.base import Params, Quantities, Scenario
from grader.reference.memory import edit_value, ffn_memory, firing_keys, inputs_changed_by_edit

# The worked solutions write the FFN's sum out term by term, for memories of this many keys.
WRITTEN_TERMS = 4
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


def _written_sum(x: np.ndarray, keys: np.ndarray, values: np.ndarray, prefix: str) -> Quantities:
    """The sum a worked solution writes out: each key's weight max(0, k·x) and the weighted values.

    Named `{prefix}weights` and `{prefix}terms`, with the weights one by one as `{prefix}w1` …
    `{prefix}w4`, so that a solution can write w1·v1 + w2·v2 + w3·v3 + w4·v4 for the four memories
    the shipped exercises hold (a memory of more keys would need a longer template).
    """
    weights = np.maximum(keys @ x, 0.0)
    one_by_one = {f"{prefix}w{i + 1}": float(weights[i]) if i < len(weights) else 0.0 for i in range(WRITTEN_TERMS)}
    return {f"{prefix}weights": weights, f"{prefix}terms": weights[:, None] * values, **one_by_one}


def _keys(params: Params, mistake: str | None, hand: Any) -> Quantities:
    x, keys, values = _arrays(params, "x", "keys", "values")
    fired = firing_keys(-x if mistake == "fires-on-negative" else x, keys)
    return {"scores": keys @ x, "active": _one_based(fired, mistake), "out": _read(x, keys, values, mistake),
            "k1_products": keys[0] * x, **_written_sum(x, keys, values, "")}  # fmt: skip


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
    quantities=("scores", "active", "out", "k1_products", "weights", "terms", "w1", "w2", "w3", "w4"),
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
            "scores": xs @ keys.T, "edited_scores": xs @ keys[j], "old_out": ffn_memory(xs[probe], keys, values),
            **_written_sum(xs[probe], keys, edited, "probe_")}  # fmt: skip


def _edit_well_posed(params: Params) -> str | None:
    xs, keys = _arrays(params, "inputs", "keys")
    j = int(params["edited"]) - 1
    changed = inputs_changed_by_edit(xs, keys, j)
    if not changed or len(changed) == len(xs):
        return "the edit must change some inputs but not all"
    # The probed input may be one the edit leaves alone: then its output is the one it had.
    if len({tuple(row) for row in xs.tolist()}) < len(xs):
        return "two inputs are the same row"
    return _scores_clear(xs, keys)


FFN_EDIT = Scenario(
    name="ffn-edit",
    params=("inputs", "keys", "values", "edited", "new_value", "probe"),
    quantities=("changed", "out", "scores", "edited_scores", "old_out", "probe_weights", "probe_terms",
                "probe_w1", "probe_w2", "probe_w3", "probe_w4"),  # fmt: skip
    mistakes=("all-inputs-change", "fires-on-negative", "edit-ignored", "no-activation",
              "unweighted-values", "zero-based"),  # fmt: skip
    compute=_edit,
    well_posed=_edit_well_posed,
)
