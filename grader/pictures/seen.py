"""What the learner may see of a variant: the quantities asked, those the prompt prints, and whether
the worked solution is shown."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Seen:
    """Asked and given quantity names; `reveal` when the worked solution (every answer) is shown."""

    asked: frozenset[str]
    given: frozenset[str]
    reveal: bool
