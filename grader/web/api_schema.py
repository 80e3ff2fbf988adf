"""The JSON API's request and reply shapes; the OpenAPI document is generated from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from grader.answers.results import Status
from grader.answers.syntax import syntax_hint
from grader.catalog.spec import CODE_KIND
from grader.code_grading import MAX_SOURCE_BYTES
from grader.services import exercises, practice
from grader.services.attempts import Outcome
from grader.web.i18n import DEFAULT
from grader.web.openapi import PerValue, constrained

Language = Literal["en", "pt", "ru"]  # grader.web.i18n.LANGUAGES; a test keeps the two the same
# An empty answers object grades nothing: refused by the document as by the API.
SOME_ANSWERS = constrained(minProperties=1)
# A query text: any, but a NUL (refused with a 400 before any call sees it). Course codes are shorter than this.
QUERY_TEXT = constrained(pattern=r"^[^\u0000]*$")
# Characters str.strip() removes (so a source of only these is empty), and U+FEFF, which a UTF-8
# file may start with. A source needs one other character, and may hold no NUL.
_BLANK = r"\t\n\u000b\u000c\r\u001c-\u001f \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
PRACTICE_TOKEN = constrained(minLength=3, maxLength=practice.TOKEN_MAX, pattern=practice.TOKEN_PATTERN,
                             description="A practice reply's `numbers`, as it gave them; signed, so only this "
                                         "service makes them (any other is refused with a 400)")  # fmt: skip
SOURCE_TEXT = constrained(minLength=1, maxLength=MAX_SOURCE_BYTES, pattern=rf"^[^\u0000]*[^\u0000{_BLANK}][^\u0000]*$",
                          description=f"UTF-8, at most {MAX_SOURCE_BYTES // 1024} KB, not blank, no NUL character")  # fmt: skip

@dataclass(frozen=True)
class ApiIndex:
    """Where to start: links to the OpenAPI document, to its reference page for people and to the page where tokens are made."""

    name: str
    version: str
    openapi: str
    docs: str
    tokens: str


@dataclass(frozen=True)
class PartInfo:
    """One answer field of an exercise."""

    id: str
    type: str
    label: str


@dataclass(frozen=True)
class PartDetail(PartInfo):
    """One answer field, with what may be typed into it."""

    hint: str


CODE_PART = PartInfo("source", "code", "Python source")


@dataclass(frozen=True)
class ExerciseItem:
    """An exercise in the list."""

    id: str
    title: str
    lesson: str
    kind: str
    parts: list[PartInfo]


@dataclass(frozen=True)
class VariantDetail:
    """A variant of an exercise: prompt (Markdown), shown parameters and answer fields, never answers."""

    id: str
    title: str
    lesson: str
    prompt: str
    params: dict[str, Any]
    parts: list[PartDetail]


@dataclass(frozen=True)
class ExerciseDetail(VariantDetail):
    """The caller's own variant of an exercise: prompt (Markdown) and shown parameters, never answers.

    due: when set, the due date (ISO 8601, UTC); an attempt after it keeps late_credit of its score.
    version: the exercise's version these numbers belong to; send it back with the attempt.
    """

    due: str | None
    late_credit: float
    version: int


@dataclass(frozen=True)
class AttemptIn:
    """An attempt: the answer to each part as the learner would type it.

    version: optional, the version from the exercise's GET. When the exercise has changed since, its
    numbers may have too: the reply is a 409 and nothing is graded or stored.
    """

    answers: dict[str, str] = field(metadata=SOME_ANSWERS)
    version: int | None = None


@dataclass(frozen=True)
class PartVerdict:
    """The verdict on one part, as the CLI's check prints it."""

    status: Status
    score: float
    message: str
    misconception: str | None
    hint: str | None
    wrong_entries: list[Any]


@dataclass(frozen=True)
class AttemptOut:
    """What happened to an attempt; attempt_id is the stored one (on a repeat, the earlier one).

    late: the stored attempt came after the due date, so its score is scaled by the late credit.
    """

    attempt_id: int | None
    outcome: Outcome
    counted: bool
    score: float
    late: bool
    attempts_left: int | None
    parts: dict[str, PartVerdict]


@dataclass(frozen=True)
class ProgressItem:
    """The caller's standing on one exercise; attempts counts graded attempts only."""

    exercise: str
    best_score: float  # the score that counts: set by an instructor when overridden
    attempts: int
    solved: bool
    overridden: bool


@dataclass(frozen=True)
class HelpOut:
    """Help on your own numbers, as the exercise page shows it: the hints taken so far (steps of the worked
    solution), how many are left, what each costs later attempts, and whether you still score on them.

    solution_offered: enough counted wrong attempts for the page to suggest giving up.
    """

    hints: list[str]
    hints_left: int
    hint_penalty: float
    solution_offered: bool
    gave_up: bool
    scoring: bool


@dataclass(frozen=True)
class SolutionOut:
    """The worked solution with your own numbers, step by step (Markdown)."""

    steps: list[str]


@dataclass(frozen=True)
class InCourse:
    """?course=ml101-2027s: the course to act in, one of yours, by its code (GET /api/v1/courses lists them);
    without it, your first course by code. Someone in one course never needs it."""

    course: str | None = field(default=None, metadata=QUERY_TEXT)


@dataclass(frozen=True)
class GradebookFilters:
    """Which of the course's rows and columns: a lesson, one exercise, learners whose email contains a text."""

    lesson: str | None = field(default=None, metadata=QUERY_TEXT)
    exercise: str | None = field(default=None, metadata=QUERY_TEXT)
    learner: str | None = field(default=None, metadata=QUERY_TEXT)


@dataclass(frozen=True)
class GradebookQuery(GradebookFilters, InCourse):
    """The course (?course=), then which of its rows and columns."""


@dataclass(frozen=True)
class InLanguage(InCourse):
    """?lang=pt: an exercise's title and prompt in that language when it is translated (else as written)."""

    lang: Language | None = None


@dataclass(frozen=True)
class MessagesIn:
    """?lang=pt: the messages of a result in that language."""

    lang: Language | None = None


@dataclass(frozen=True)
class PracticeQuery(InLanguage):
    """?numbers=: the practice numbers a reply gave, to see them again (without it: new numbers)."""

    numbers: str | None = field(default=None, metadata=PRACTICE_TOKEN)


@dataclass(frozen=True)
class PracticeDetail(VariantDetail):
    """New numbers to practise with, and their worked solution: checked on request, never stored.

    numbers: send it back with the answers to have them checked against these numbers.
    """

    solution: list[str]
    numbers: str = field(metadata=PRACTICE_TOKEN)


@dataclass(frozen=True)
class PracticeIn:
    """Answers to practice numbers, with the `numbers` the practice reply gave."""

    numbers: str = field(metadata=PRACTICE_TOKEN)
    answers: dict[str, str] = field(metadata=SOME_ANSWERS)


@dataclass(frozen=True)
class SourceIn:
    """Python source as JSON (or a multipart upload in the field `file`)."""

    source: str = field(metadata=SOURCE_TEXT)


@dataclass(frozen=True)
class PracticeOut:
    """Verdicts on practice answers; nothing stored. readable: every answer could be read."""

    readable: bool
    score: float
    parts: dict[str, PartVerdict]


def answer_fields() -> dict[str, dict[str, dict[str, Any]]]:
    """Per exercise that takes typed answers, the schema of `answers`: its current part ids, each
    described by its label and what may be typed into it (for the document's per-exercise bodies)."""
    found = {}
    for exercise in exercises.all_exercises(published_only=True):
        stored = exercises.version(exercise.id, exercise.current_version)
        if exercise.kind == CODE_KIND or stored is None:
            continue
        spec = exercises.spec_of(stored)
        parts = {p.id: {"type": "string", "description": f"{spec.label_in(p.id, DEFAULT)}: {syntax_hint(p.type)}"}
                 for p in spec.parts}  # fmt: skip
        found[exercise.id] = {"answers": {"type": "object", "properties": parts, "additionalProperties": False,
                                          "minProperties": 1}}  # fmt: skip
    return found


# The part ids are the exercise's own: the document gives each exercise's attempts its own path.
ANSWERS_PER_EXERCISE = PerValue("exercise_id", answer_fields)
