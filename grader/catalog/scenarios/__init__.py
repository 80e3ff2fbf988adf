"""Scenarios: which reference computation an exercise asks about, and how each mistake re-runs it.

An exercise names a scenario (its `model`). The scenario turns the variant's parameters into the
named quantities its parts ask for, correctly, along each lesson hand path, and with a named
mistake switched on. One registry, so nothing else branches on scenario names.
"""

from __future__ import annotations

from grader.catalog.scenarios.base import Scenario
from grader.catalog.scenarios.counting import MICROGPT, MODERN, FFN_SHARE, SWIGLU_WIDTH
from grader.catalog.scenarios.memory import FFN_EDIT, FFN_KEYS
from grader.catalog.scenarios.toy_block import TOY_BLOCK

SCENARIOS: dict[str, Scenario] = {
    s.name: s for s in (TOY_BLOCK, MODERN, SWIGLU_WIDTH, FFN_SHARE, MICROGPT, FFN_KEYS, FFN_EDIT)
}

__all__ = ["SCENARIOS", "Scenario"]
