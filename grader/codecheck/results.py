"""Plain result types of code grading: one verdict per case and one for the submission."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from grader.texts import Text

CaseStatus = Literal["passed", "failed", "error", "timeout"]
CodeStatus = Literal["passed", "failed", "error", "timeout", "memory_limit", "invalid"]


@dataclass(frozen=True)
class CaseVerdict:
    """The verdict on one case; a hidden case's message never quotes inputs or outputs.

    printed: what the function printed in a visible case (a hidden case's could spell out its
    inputs, so it is never kept); printed_dropped counts the characters cut from it.
    """

    name: str
    status: CaseStatus
    text: Text
    visible: bool = False
    printed: str = ""
    printed_dropped: int = 0

    @property
    def message(self) -> str:
        """The verdict in English."""
        return str(self.text)

    def to_json(self) -> dict[str, Any]:
        """The API shape of a case verdict."""
        return {"name": self.name, "status": self.status, "message": self.message, "printed": self.printed,
                "printed_dropped": self.printed_dropped}


@dataclass(frozen=True)
class CodeResult:
    """The verdict on a code submission: per-case verdicts, score and a named mistake if any."""

    status: CodeStatus
    score: float
    cases: tuple[CaseVerdict, ...] = ()
    text: Text = Text("")
    misconception: str | None = None
    duration_ms: float = 0.0
    # False for code that never ran, as with a malformed typed answer: a syntax error costs no attempt.
    counts: bool = True

    @property
    def message(self) -> str:
        """The verdict in English."""
        return str(self.text)

    def texts_json(self) -> dict[str, Any]:
        """The message and each case's message as sentences, for showing them in another language."""
        return {"message": self.text.to_json(), "cases": [case.text.to_json() for case in self.cases]}

    @property
    def counted(self) -> bool:
        """Whether it uses an attempt: not an `invalid` result (the grader's failure), nor code that never ran."""
        return self.status != "invalid" and self.counts

    def to_json(self) -> dict[str, Any]:
        """The API shape of a code result."""
        return {
            "status": self.status,
            "score": self.score,
            "cases": [case.to_json() for case in self.cases],
            "message": self.message,
            "misconception": self.misconception,
            "duration_ms": self.duration_ms,
        }
