"""The registry of code tasks: what an exercise's `task:` may name."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from grader.codecheck.attention_tasks import CAUSAL_ATTENTION, GPT2_BLOCK
from grader.codecheck.base import Case, Mutant, Task
from grader.codecheck.ffn_tasks import GELU, SWIGLU
from grader.codecheck.model_tasks import MICROGPT, PARAM_COUNT
from grader.codecheck.norm_tasks import LAYER_NORM, RMS_NORM

__all__ = ["TASKS", "Case", "Mutant", "Task", "get_task", "visible_edge_count"]

_ALL = (LAYER_NORM, GELU, CAUSAL_ATTENTION, GPT2_BLOCK, RMS_NORM, SWIGLU, MICROGPT, PARAM_COUNT)
TASKS: dict[str, Task] = {task.name: task for task in _ALL}


def get_task(name: str) -> Task:
    """The task with this name, or KeyError naming the known ones."""
    try:
        return TASKS[name]
    except KeyError:
        raise KeyError(f"unknown task {name!r}; expected one of {', '.join(TASKS)}") from None


@lru_cache(maxsize=None)
def visible_edge_count(name: str) -> int:
    """How many of the task's cases are visible edge cases (the same for every seed)."""
    cases = get_task(name).cases(np.random.default_rng(0), 0)
    return sum(case.visible for case in cases)
