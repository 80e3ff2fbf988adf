"""CSV exports, streamed a line at a time: every attempt or code submission on one exercise."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Sequence

import sqlalchemy as sa
import yaml

from grader.catalog.loader import parse_yaml
from grader.catalog.fields import PART_ID
from grader.catalog.spec import CODE_KIND
from grader.extensions import db
from grader.models import Attempt, Exercise, ExerciseVersion, User, utc_text
from grader.code_models import Submission
from grader.services.course_content import learners_of
from grader.visible import visible

BATCH = 500


def csv_text(rows: Iterable[Sequence[object]]) -> Iterator[str]:
    """Each row as one CSV line, written as it is read, so an export of any size streams."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(row)
        yield buffer.getvalue()


# A signed number alone in a cell is read as that number, never as a formula: -0.52 stays as typed.
PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_safe(text: str) -> str:
    """Text a spreadsheet shows as it is and will not run: hidden and text-direction characters as their
    escapes (\\u202e, grader/visible.py), and a cell starting with = + - @ not read as a formula."""
    text = visible(text)
    if text[:1] in ("=", "+", "-", "@") and not PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


def _yes(flag: bool) -> str:
    """A flag as a spreadsheet reads it at a glance: "yes" or an empty cell."""
    return "yes" if flag else ""


def answered_parts(exercise: Exercise) -> list[str]:
    """The part ids of every version: the current version's, then those only earlier versions had (newest first)."""
    versions = db.session.scalars(sa.select(ExerciseVersion).where(ExerciseVersion.exercise_id == exercise.id)
                                  .order_by(sa.desc(ExerciseVersion.version == exercise.current_version),
                                            sa.desc(ExerciseVersion.version)))  # fmt: skip
    found: dict[str, None] = {}
    for stored in versions:
        found.update(dict.fromkeys(_part_ids(stored.source)))
    return list(found)


def _part_ids(source: str) -> list[str]:
    """The part ids a stored version names, read from its YAML: a version the catalogue no longer
    accepts still had its answers."""
    try:
        parts = parse_yaml(source).get("parts")
    except (yaml.YAMLError, AttributeError):
        return []
    ids = [part.get("id") for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []
    return [part_id for part_id in ids if isinstance(part_id, str) and re.fullmatch(PART_ID, part_id)]


def _attempt_rows(course_id: int, exercise: Exercise) -> Iterator[list[object]]:
    parts = answered_parts(exercise)
    header: list[object] = ["email", "attempt", "time", "version", "score", "raw score", "late"]
    yield header + [f"{part} {column}" for part in parts for column in ("typed", "verdict", "mistake")]
    # Each part's cells read inside the database (JSON paths), not whole documents decoded row by row.
    cells = [cell for part in parts for cell in (Attempt.answers[part].as_string(), Attempt.results[(part, "status")]
             .as_string(), Attempt.results[(part, "misconception")].as_string())]  # fmt: skip
    query = (sa.select(User.email, Attempt.number, Attempt.created_at, Attempt.version, Attempt.score,
                       Attempt.raw_score, Attempt.late, *cells).join(User, User.id == Attempt.user_id)
             .where(Attempt.course_id == course_id, Attempt.exercise_id == exercise.id,
                    Attempt.user_id.in_(learners_of(course_id))).order_by(Attempt.id))  # fmt: skip
    for email, number, created_at, version, score, raw_score, late, *typed in db.session.execute(
            query.execution_options(yield_per=BATCH)):  # fmt: skip
        row: list[object] = [spreadsheet_safe(email), number, utc_text(created_at), version, f"{score:.3f}",
                             f"{raw_score:.3f}", _yes(late)]  # fmt: skip
        for answer, status, mistake in zip(typed[::3], typed[1::3], typed[2::3]):
            row += [spreadsheet_safe(answer or ""), status or "", mistake or ""]
        yield row


def _submission_rows(course_id: int, exercise: Exercise) -> Iterator[list[object]]:
    yield ["email", "submission", "attempt", "time", "status", "score", "late", "message", "source sha256"]
    query = (sa.select(User.email, Submission).join(User, User.id == Submission.user_id)
             .where(Submission.course_id == course_id, Submission.exercise_id == exercise.id,
                    Submission.user_id.in_(learners_of(course_id)))
             .order_by(Submission.id))  # fmt: skip
    for email, sent in db.session.execute(query.execution_options(yield_per=BATCH)):
        message = (sent.result or {}).get("message", "")
        score = "" if sent.score is None else f"{sent.score:.3f}"
        yield [spreadsheet_safe(email), sent.id, sent.number or "", utc_text(sent.created_at),
               sent.status, score, _yes(sent.late), spreadsheet_safe(message), sent.source_hash]  # fmt: skip


def exercise_attempts_csv(course_id: int, exercise: Exercise) -> Iterator[str]:
    """Every counted attempt by a learner of the course on a numeric exercise (per part of any version: typed,
    verdict, mistake), or every code submission by one on a code exercise, oldest first, as CSV lines."""
    rows = (_submission_rows if exercise.kind == CODE_KIND else _attempt_rows)(course_id, exercise)
    return csv_text(rows)
