"""CSV exports, streamed a line at a time: every attempt or code submission on one exercise."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence

import sqlalchemy as sa

from grader.catalog.spec import CODE_KIND
from grader.extensions import db
from grader.models import Attempt, Exercise, Submission, User

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


def spreadsheet_safe(text: str) -> str:
    """Text a spreadsheet will not run: a cell starting with = + - @ would be read as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _yes(flag: bool) -> str:
    """A flag as a spreadsheet reads it at a glance: "yes" or an empty cell."""
    return "yes" if flag else ""


def _attempt_rows(exercise: Exercise, parts: list[str]) -> Iterator[list[object]]:
    header: list[object] = ["email", "attempt", "time", "version", "score", "raw score", "late"]
    yield header + [f"{part} {column}" for part in parts for column in ("typed", "verdict", "mistake")]
    query = (sa.select(User.email, Attempt).join(User, User.id == Attempt.user_id)
             .where(Attempt.exercise_id == exercise.id).order_by(Attempt.id))  # fmt: skip
    for email, attempt in db.session.execute(query.execution_options(yield_per=BATCH)):
        row: list[object] = [spreadsheet_safe(email), attempt.number, attempt.created_at.isoformat(timespec="seconds"),
                             attempt.version, f"{attempt.score:.3f}", f"{attempt.raw_score:.3f}",
                             _yes(attempt.late)]  # fmt: skip
        for part in parts:
            verdict = attempt.results.get(part, {})
            row += [spreadsheet_safe(attempt.answers.get(part, "")), verdict.get("status", ""),
                    verdict.get("misconception") or ""]  # fmt: skip
        yield row


def _submission_rows(exercise: Exercise) -> Iterator[list[object]]:
    yield ["email", "submission", "attempt", "time", "status", "score", "late", "message", "source sha256"]
    query = (sa.select(User.email, Submission).join(User, User.id == Submission.user_id)
             .where(Submission.exercise_id == exercise.id).order_by(Submission.id))  # fmt: skip
    for email, sent in db.session.execute(query.execution_options(yield_per=BATCH)):
        message = (sent.result or {}).get("message", "")
        score = "" if sent.score is None else f"{sent.score:.3f}"
        yield [spreadsheet_safe(email), sent.id, sent.number or "", sent.created_at.isoformat(timespec="seconds"),
               sent.status, score, _yes(sent.late), spreadsheet_safe(message), sent.source_hash]  # fmt: skip


def exercise_attempts_csv(exercise: Exercise, parts: list[str]) -> Iterator[str]:
    """Every counted attempt on a numeric exercise (per part: typed, verdict, mistake), or every code
    submission on a code exercise, oldest first, as CSV lines."""
    rows = _submission_rows(exercise) if exercise.kind == CODE_KIND else _attempt_rows(exercise, parts)
    return csv_text(rows)
