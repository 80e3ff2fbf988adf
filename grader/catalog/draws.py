"""Drawing an exercise's parameters for a seed: each from its own generator, keyed by the lesson's story, so that
a lesson's exercises declaring a parameter alike show a learner the same numbers for the same seed."""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np

from grader.catalog.fields import ParamSpec
from grader.catalog.spec import ExerciseSpec


def draw_param(spec: ParamSpec, rng: np.random.Generator) -> Any:
    """One draw of a parameter: uniform at its decimals (never 0 when asked), or one of its choices."""
    rule = spec.random
    size = tuple(spec.shape) or None
    value: Any
    if rule.choices is not None:
        value = rng.choice(np.asarray(rule.choices), size=size)
    else:
        assert rule.low is not None and rule.high is not None  # the spec gives choices or both ends
        value = np.round(rng.uniform(rule.low, rule.high, size=size), rule.decimals) + 0.0  # no −0.0
        if rule.exclude_zero:
            value = np.where(value == 0, rule.high, value)
    whole = rule.choices is None or all(float(c).is_integer() for c in rule.choices)  # 5.67 stays 5.67
    if rule.decimals == 0 and whole and np.issubdtype(np.asarray(value).dtype, np.number):
        value = np.asarray(value).astype(int)
    return value.item() if np.ndim(value) == 0 else value


def story_key(spec: ExerciseSpec, param: str) -> str:
    """What a parameter's draws are keyed by: a lesson's exercises declaring it alike share its numbers."""
    return f"{spec.lesson}/{param}"


def draw_params(spec: ExerciseSpec, seed: int, draw: int) -> dict[str, Any]:
    """One draw of every parameter, each from its own generator keyed by story_key."""
    return {name: draw_param(p, np.random.default_rng([seed, draw, zlib.crc32(story_key(spec, name).encode())]))
            for name, p in spec.params.items()}  # fmt: skip
