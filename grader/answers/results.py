"""Plain result types returned by grading: no web or database types here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from grader.texts import Text, say

Status = Literal["correct", "incorrect", "invalid", "unchecked"]
UNCHECKED = say("Not checked yet: answers are checked once every field can be read.")


@dataclass(frozen=True)
class Mutant:
    """A named mistake's answer: its routes (exact first, then hand paths) and the hint to show."""

    name: str
    title: str
    hint: str
    routes: tuple[Any, ...]


@dataclass(frozen=True)
class Target:
    """What a part accepts (routes: exact first, then hand paths) and the mistakes it recognises."""

    routes: tuple[Any, ...]
    mutants: tuple[Mutant, ...] = ()
    # The route the worked solution prints (an index into routes); None when not known, and then a
    # right answer along another route gets no word on why it differs from the page.
    shown: int | None = None
    # The route interval (low, high): every result a learner reaches from the printed numbers
    # (grader.catalog.reach), accepted with the routes; None when the part has none.
    reach: tuple[Any, Any] | None = None
    # What grading derives from the target alone (bands per tolerance), kept so it is worked out once.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def exact(self) -> Any:
        """The full-precision reference value."""
        return self.routes[0]

    @property
    def accepted(self) -> tuple[Any, ...]:
        """The routes and the ends of the route interval: what the accepted band is the hull of."""
        return (*self.routes, *(self.reach or ()))


@dataclass(frozen=True)
class PartResult:
    """The verdict on one part of an answer."""

    status: Status
    score: float
    message: str
    misconception: str | None = None
    hint: str | None = None
    wrong_entries: tuple[Any, ...] = ()
    value: Any = None  # the parsed answer as JSON-ready data
    # Which way a wrong number is off when no named mistake explains it (the sign, a factor, the
    # order): kept apart from the message, since a page may show it only for counted attempts.
    direction: Text | None = None
    # The message as a sentence with its values, so a page can show it in the reader's language.
    text: Text | None = field(default=None, compare=False, repr=False)

    @classmethod
    def said(cls, status: Status, score: float, text: Text, **more: Any) -> PartResult:
        """A result whose message is the given sentence (kept, so pages can translate it)."""
        return cls(status=status, score=score, message=str(text), text=text, **more)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PartResult:
        """Rebuild a stored part result (as to_record wrote it, or the older shape without text)."""
        text = Text.from_json(data["text"]) if data.get("text") else None
        direction = Text.from_json(data["direction"]) if data.get("direction") else None
        return cls(status=data["status"], score=data["score"], message=data["message"],
                   misconception=data.get("misconception"), hint=data.get("hint"),
                   wrong_entries=tuple(tuple(e) if isinstance(e, list) else e for e in data.get("wrong_entries", ())),
                   text=text, direction=direction)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        """The CLI/API shape of a part result."""
        return {
            "status": self.status,
            "score": self.score,
            "message": self.message,
            "misconception": self.misconception,
            "hint": self.hint,
            "wrong_entries": list(self.wrong_entries),
        }

    def to_record(self) -> dict[str, Any]:
        """What is stored with an attempt: the CLI/API shape, the message's sentence and the direction's."""
        return {**self.to_json(), "text": self.text.to_json() if self.text else None,
                "direction": self.direction.to_json() if self.direction else None}  # fmt: skip


@dataclass(frozen=True)
class ExerciseResult:
    """The verdict on a whole answer: per-part results and the overall score."""

    parts: dict[str, PartResult] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_json(cls, parts: dict[str, Any]) -> ExerciseResult:
        """Rebuild stored per-part results (weights are not needed to show them)."""
        return cls({pid: PartResult.from_json(data) for pid, data in parts.items()})

    @property
    def score(self) -> float:
        """Weighted mean of the part scores."""
        total = sum(self.weights.get(pid, 1.0) for pid in self.parts)
        got = sum(self.weights.get(pid, 1.0) * r.score for pid, r in self.parts.items())
        return round(got / total, 6) if total else 0.0

    @property
    def counted(self) -> bool:
        """An answer with any malformed part is reported but does not use up an attempt."""
        return all(r.status != "invalid" for r in self.parts.values())

    def format_errors_only(self) -> ExerciseResult:
        """Keep only the format errors; hiding the other verdicts stops free checks of one field
        by deliberately breaking another."""
        unchecked = PartResult.said("unchecked", 0.0, UNCHECKED)
        return ExerciseResult({pid: r if r.status == "invalid" else unchecked for pid, r in self.parts.items()},
                              self.weights)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        """The CLI/API shape of an exercise result."""
        return {
            "score": self.score,
            "counted": self.counted,
            "parts": {pid: r.to_json() for pid, r in self.parts.items()},
        }
