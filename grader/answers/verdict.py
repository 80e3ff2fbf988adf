"""What every part kind shares: a parsed answer, and the wording of a right and of a wrong verdict."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grader.answers.results import Mutant, PartResult
from grader.answers.where import entries_phrase
from grader.texts import Text, joined, say

CORRECT = say("Correct.")


@dataclass(frozen=True)
class Parsed:
    """A parsed answer: comparable values, per-entry typed resolution, and its JSON form."""

    values: Any
    resolution: Any
    json: Any


def incorrect(text: Text, mutant: Mutant | None, wrong: list[Any], score: float, value: Any,
              entries: bool = False, toward: Text | None = None) -> PartResult:  # fmt: skip
    """An incorrect verdict; a named mistake replaces the text, keeping which `entries` are wrong.
    `toward` is the direction for an unnamed mistake, kept apart from the text."""
    if mutant is not None:
        # The title is one of the catalogue's fixed phrases, so it is looked up as a text of its own.
        named = say("Not quite: this is the answer you get with %(mistake)s.", mistake=Text(mutant.title))
        text = joined([named, say("Wrong: %(where)s.", where=entries_phrase(wrong))], " ") if entries and wrong else named
    return PartResult.said(
        "incorrect", score, text, misconception=mutant.name if mutant else None,
        hint=mutant.hint if mutant else None, wrong_entries=tuple(wrong), value=value,
        direction=None if mutant else toward,
    )  # fmt: skip
