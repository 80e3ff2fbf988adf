"""When an attempt counts, and for how much: the opening date, the attempt limit, the cost of a retry, the due date."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Any, Self

from pydantic import AwareDatetime, Field, ValidationError, ValidationInfo, field_validator, model_validator

from grader.catalog.problems import problem_text
from grader.catalog.strict import Strict
from grader.texts import Refusal, say

DUE_EXAMPLE = "2026-12-15T23:59:00+00:00"
MAX_ATTEMPTS = 1000
# Whole sentences for each date, so that a translation never has to fit a date's name into another sentence.
# Translatable: an instructor giving a learner their own due date reads these in the page's language.
_DATE_PROBLEMS = {
    "due": {
        "unreadable": say("write the due date as a date, time and zone, such as %(example)s", example=DUE_EXAMPLE),
        "no time": say("give the due date a time and a zone too, such as %(example)s", example=DUE_EXAMPLE),
        "no zone": say("give the due date a time zone, such as %(example)s (or Z for UTC)", example=DUE_EXAMPLE),
        "not in UTC": say("the due date falls outside the years 1 to 9999 in UTC; give one such as %(example)s",
                          example=DUE_EXAMPLE),
    },
    "opens": {
        "unreadable": say("write the opening date as a date, time and zone, such as %(example)s",
                          example=DUE_EXAMPLE),
        "no time": say("give the opening date a time and a zone too, such as %(example)s", example=DUE_EXAMPLE),
        "no zone": say("give the opening date a time zone, such as %(example)s (or Z for UTC)", example=DUE_EXAMPLE),
        "not in UTC": say("the opening date falls outside the years 1 to 9999 in UTC; give one such as %(example)s",
                          example=DUE_EXAMPLE),
    },
}  # fmt: skip


class DateProblem(Refusal):
    """A date that cannot be one; `.text` says why (to show in the reader's language), `str()` in English."""


def applying_due(exercise_due: datetime | None, own_due: datetime | None) -> datetime | None:
    """The due date that applies to a learner: the later of the exercise's and their own, while the exercise has one.

    An extension only ever gives more time: moving the exercise's date past it moves everyone's.
    """
    return max(exercise_due, own_due) if own_due is not None and exercise_due is not None else exercise_due


def is_open(opens: datetime | None, now: datetime) -> bool:
    """Whether an exercise opening at `opens` (naive UTC, None for always) is open at `now`."""
    return opens is None or now >= opens


def _fits_in_utc(moment: datetime) -> bool:
    """Whether an aware moment has a UTC time (years 1 to 9999), as the database keeps it."""
    try:
        moment.astimezone(timezone.utc)
    except OverflowError:  # e.g. 0001-01-01T00:00+14:00 is in year 0 in UTC
        return False
    return True


def due_from_text(text: str) -> datetime:
    """A due date typed as text, as naive UTC; raises DateProblem with the message an exercise file would get."""
    try:
        due = AttemptPolicy.model_validate({"due": text}).due_utc
    except ValidationError as error:
        raise DateProblem(problem_text(error.errors()[0])) from None
    assert due is not None  # a text that parsed is a date
    return due


def attempts_left(max_attempts: int | None, used: int) -> int | None:
    """Attempts remaining under the exercise's limit (None when unlimited)."""
    return None if max_attempts is None else max(0, max_attempts - used)


class AttemptPolicy(Strict):
    """When an attempt counts and for how much: the opening date, the attempt limit, the cost of a retry,
    the due date."""

    opens: AwareDatetime | None = None  # learners neither see nor answer the exercise before it
    draft: bool = False  # a file that says so is synced as a draft, not published (grader.services.sync)
    max_attempts: int | None = Field(default=None, ge=1, le=MAX_ATTEMPTS)
    penalty: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    due: AwareDatetime | None = None
    # The share of its score a late attempt keeps.
    late_credit: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    # Help for a stuck learner: hints on request (each one more step of the worked solution), what each
    # hint costs later attempts, and after how many counted wrong attempts the solution is offered.
    offer_hints: bool = True
    hint_penalty: float = Field(default=0.0, ge=0, le=1, allow_inf_nan=False)
    solution_after: int = Field(default=3, ge=1, le=MAX_ATTEMPTS)

    @field_validator("due", "opens", mode="before")
    @classmethod
    def _instant(cls, value: Any, info: ValidationInfo) -> Any:
        # YAML reads a timestamp with a zone as a datetime; the web form and quoted YAML give text.
        problems = _DATE_PROBLEMS[info.field_name or "due"]
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.strip())
            except ValueError:
                raise DateProblem(problems["unreadable"]) from None
        if isinstance(value, date) and not isinstance(value, datetime):
            raise DateProblem(problems["no time"])
        if isinstance(value, datetime) and value.tzinfo is None:
            raise DateProblem(problems["no zone"])
        if isinstance(value, datetime) and not _fits_in_utc(value):
            raise DateProblem(problems["not in UTC"])
        return value

    @model_validator(mode="after")
    def _opens_before_due(self) -> Self:
        if self.opens is not None and self.due is not None and self.opens >= self.due:
            raise DateProblem(say("the exercise must open before its due date"))
        return self

    @property
    def due_utc(self) -> datetime | None:
        """The due date as naive UTC, the way the database keeps times."""
        return None if self.due is None else self.due.astimezone(timezone.utc).replace(tzinfo=None)

    @property
    def opens_utc(self) -> datetime | None:
        """The opening date as naive UTC."""
        return None if self.opens is None else self.opens.astimezone(timezone.utc).replace(tzinfo=None)

    def with_due(self, own_due: datetime | None) -> Self:
        """This policy with one learner's own due date (naive UTC) instead of the exercise's.

        Unchanged without one, and when the exercise has no due date (an extension extends one).
        """
        due = applying_due(self.due_utc, own_due)
        if due is None or due == self.due_utc:
            return self
        return self.model_copy(update={"due": due.replace(tzinfo=timezone.utc)})

    def is_late(self, at: datetime) -> bool:
        """Whether a moment (naive UTC) is after the due date."""
        due = self.due_utc
        return due is not None and at > due

    def kept_score(self, raw_score: float, number: int, at: datetime, hints: int = 0) -> float:
        """The score attempt `number`, made at `at` after `hints` hints, keeps: less the penalty per retry and
        per hint, times the late credit."""
        kept = raw_score * max(0.0, 1.0 - self.penalty * (number - 1) - self.hint_penalty * hints)
        return round(kept * (self.late_credit if self.is_late(at) else 1.0), 6)

    def solves(self, raw_score: float, at: datetime) -> bool:
        """Whether an attempt with `raw_score`, made at `at`, solves the exercise: right, and not practice
        after a due date that leaves nothing to earn."""
        return raw_score >= 1.0 and not self.solution_open(at)

    def offers_solution(self, wrong_attempts: int) -> bool:
        """Whether a learner stuck after `wrong_attempts` counted wrong attempts is offered the solution."""
        return wrong_attempts >= self.solution_after

    def solution_open(self, now: datetime) -> bool:
        """Whether the due date has passed with nothing left to earn, so the worked solution can be shown."""
        return self.late_credit == 0 and self.is_late(now)
