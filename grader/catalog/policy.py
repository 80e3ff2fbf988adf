"""When an attempt counts, and for how much: the opening date, the attempt limit, the cost of a retry, the due date."""

from __future__ import annotations

from datetime import date, datetime, timezone
from dataclasses import dataclass
from typing import Any, Mapping, Self, TypeVar

from pydantic import AwareDatetime, Field, ValidationError, ValidationInfo, field_validator, model_validator

from grader.catalog.problems import problem_text
from grader.catalog.strict import Strict
from grader.texts import Refusal, Text, say

P = TypeVar("P", bound="AttemptPolicy")
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


# What a course may set over an exercise file's policy (besides its dates and attempt limit, kept in columns).
COURSE_POLICY_FIELDS = ("penalty", "late_credit", "offer_hints", "hint_penalty", "solution_after")


@dataclass(frozen=True)
class CourseRules:
    """A course's own settings for one exercise (naive UTC dates); None or absent keeps the file's."""

    opens_at: datetime | None = None
    due_at: datetime | None = None
    max_attempts: int | None = None
    settings: tuple[tuple[str, Any], ...] = ()  # (field, value) pairs of COURSE_POLICY_FIELDS

    @property
    def empty(self) -> bool:
        """Whether the course sets nothing of its own."""
        return self.opens_at is None and self.due_at is None and self.max_attempts is None and not self.settings


def rules(opens_at: datetime | None, due_at: datetime | None, max_attempts: int | None,
          settings: Mapping[str, Any] | None) -> CourseRules | None:  # fmt: skip
    """CourseRules from a course's stored columns (None when it sets nothing), keeping only known settings."""
    kept = tuple((k, settings[k]) for k in COURSE_POLICY_FIELDS if settings and settings.get(k) is not None)
    found = CourseRules(opens_at, due_at, max_attempts, kept)
    return None if found.empty else found


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=timezone.utc)


def for_course(policy: P, course: CourseRules | None) -> P:
    """The policy (an exercise's spec) with the course's own settings over the file's; unchanged without any."""
    if course is None or course.empty:
        return policy
    update: dict[str, Any] = dict(course.settings)
    if course.opens_at is not None:
        update["opens"] = _aware(course.opens_at)
    if course.due_at is not None:
        update["due"] = _aware(course.due_at)
    if course.max_attempts is not None:
        update["max_attempts"] = course.max_attempts
    return policy.model_copy(update=update)


def check_course_rules(values: Mapping[str, Any]) -> tuple[CourseRules | None, dict[str, Text]]:
    """A course's settings for one exercise, as typed (text, or None for the file's), checked as a file's would
    be: the rules, or the problem with each field by name."""
    given = {k: v for k, v in values.items() if v is not None and v != ""}
    try:
        checked = AttemptPolicy.model_validate(given, strict=False)
    except ValidationError as error:
        return None, {_field_of(e): problem_text(e) for e in error.errors()}
    settings = {k: getattr(checked, k) for k in COURSE_POLICY_FIELDS if k in given}
    return rules(checked.opens_utc, checked.due_utc, checked.max_attempts, settings), {}


def _field_of(error: Any) -> str:
    location = error.get("loc") or ("opens",)  # the model's own check (opening before due) names no field
    return str(location[0])
