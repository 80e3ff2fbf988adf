"""What the learner may see of a variant: the quantities asked, those the prompt prints, and whether
the worked solution is shown."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Seen:
    """Asked and given quantity names; `reveal` when the worked solution is shown, which draws the
    quantities it prints (`printed`, with the prompt's) and no other: not another exercise's answers."""

    asked: frozenset[str]
    given: frozenset[str]
    reveal: bool
    printed: frozenset[str] = frozenset()

    def drawn(self, name: str) -> bool:
        """Is this quantity's number drawn (not another exercise's answer, nor this one's before it is revealed)?"""
        if self.reveal and (name in self.asked or name in self.printed):
            return True
        return name in self.given and name not in self.asked
