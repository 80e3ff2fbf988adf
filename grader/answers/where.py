"""Naming places in an answer: which entries of a vector or matrix a verdict is about."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.answers.structures import entry
from grader.texts import Text, say


def positions(mask: np.ndarray) -> list[Any]:
    """0-based positions where `mask` holds: ints in a vector, (row, column) pairs in a matrix; none in a scalar."""
    if mask.ndim == 0:
        return []
    return [tuple(int(i) for i in idx) if mask.ndim > 1 else int(idx[0]) for idx in np.argwhere(mask)]


def _label(position: Any) -> str:
    if isinstance(position, tuple):
        return "(" + ", ".join(str(i + 1) for i in position) + ")"
    return str(position + 1)


def entries_phrase(places: Sequence[Any]) -> Text:
    """'entry 3' or 'entries 1, 2 and 4' for 0-based positions (row-column pairs in a matrix)."""
    labels = [_label(p) for p in places]
    if len(labels) == 1:
        return entry(labels[0])
    return say("entries %(first)s and %(last)s", first=", ".join(labels[:-1]), last=labels[-1])
