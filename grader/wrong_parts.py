"""The wrong parts of each graded attempt, one narrow row per part, written with the attempt.

The class's figures (common wrong answers, misconceptions) count these rows instead of reading every
stored verdict: at 2,000 learners that was 120,000 JSON documents per page. The text is stored as the
figures group it (whitespace collapsed) and cut to TYPED_CHARS, so that every row fits in an index entry.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import sqlalchemy as sa
from sqlalchemy.orm import Mapped, mapped_column

from grader.extensions import db

TYPED_CHARS = 200  # longer answers are cut, ending in "…"; 200 characters fit PostgreSQL's index entries
WRONG = "incorrect"


class WrongPart(db.Model):  # type: ignore[name-defined,misc]
    """One incorrect part of an attempt: who, which exercise and part, the text as grouped, its misconception."""

    __tablename__ = "wrong_parts"
    # Figures read one exercise's latest rows, grouped by part and text or by misconception: every column is
    # in the index, so they are read from it alone.
    __table_args__ = (sa.Index("ix_wrong_parts_exercise_latest", "course_id", "exercise_id", "attempt_id", "user_id",
                               "misconception", "part", "typed"),)  # fmt: skip

    attempt_id: Mapped[int] = mapped_column(sa.ForeignKey("attempts.id", ondelete="CASCADE"), primary_key=True)
    part: Mapped[str] = mapped_column(sa.String(80), primary_key=True)
    exercise_id: Mapped[str] = mapped_column(sa.String(80))  # the attempt's: its foreign key already cascades
    course_id: Mapped[int] = mapped_column(sa.Integer)  # the attempt's, so one course's figures read its own rows
    user_id: Mapped[int] = mapped_column(sa.Integer)  # the attempt's, so figures count learners without a join
    typed: Mapped[str] = mapped_column(sa.String(TYPED_CHARS + 1))
    misconception: Mapped[str | None] = mapped_column(sa.String(80), default=None)


def grouped_text(typed: object) -> str:
    """An answer as the figures group it: spacing collapsed, cut to TYPED_CHARS (marked with "…")."""
    text = " ".join(str(typed if typed is not None else "").split())
    return text if len(text) <= TYPED_CHARS else text[:TYPED_CHARS] + "…"


def wrong_part_rows(attempt: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The wrong_parts rows of one attempt, given its id, user_id, exercise_id, course_id, answers and results."""
    return [{"attempt_id": attempt["id"], "part": part, "exercise_id": attempt["exercise_id"],
             "course_id": attempt["course_id"], "user_id": attempt["user_id"],
             "typed": grouped_text(attempt["answers"].get(part)),
             "misconception": verdict.get("misconception") or None}
            for part, verdict in attempt["results"].items() if verdict.get("status") == WRONG]  # fmt: skip


def record(connection: sa.Connection, attempts: Sequence[Mapping[str, Any]]) -> None:
    """Write the wrong parts of these attempts (in the caller's transaction)."""
    rows = [row for attempt in attempts for row in wrong_part_rows(attempt)]
    if rows:
        connection.execute(sa.insert(WrongPart.__table__), rows)


def rewrite(connection: sa.Connection, attempts: Sequence[Mapping[str, Any]]) -> None:
    """Replace the wrong parts of attempts whose verdicts changed (a regrade)."""
    if not attempts:
        return
    table = WrongPart.__table__
    connection.execute(sa.delete(table).where(table.c.attempt_id.in_([a["id"] for a in attempts])))
    record(connection, attempts)


REPAIR_BATCH = 2000
_ATTEMPTS = sa.table("attempts", *(sa.column(name) for name in ("id", "user_id", "exercise_id", "course_id")),
                     sa.column("answers", sa.JSON), sa.column("results", sa.JSON))  # fmt: skip


def repair(engine: sa.Engine) -> int:
    """Make every attempt's wrong_parts rows what its stored verdict says; returns how many attempts changed.

    Needed when a release that did not write the rows (or regraded without them) served against this
    schema: an upgrade done out of order. Reads every attempt once, a batch per transaction.
    """
    changed, last = 0, 0
    while True:
        with engine.begin() as connection:
            batch = connection.execute(sa.select(_ATTEMPTS).where(_ATTEMPTS.c.id > last)
                                       .order_by(_ATTEMPTS.c.id).limit(REPAIR_BATCH)).mappings().all()  # fmt: skip
            if not batch:
                return changed
            last = batch[-1]["id"]
            wrong = _stale(connection, [_readable(a) for a in batch])
            rewrite(connection, wrong)
            changed += len(wrong)


def _key(row: Any) -> tuple[Any, ...]:
    return tuple(row[column.name] for column in WrongPart.__table__.c)


def _stale(connection: sa.Connection, attempts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The attempts among these (ascending ids) whose stored rows differ from their verdicts'."""
    table = WrongPart.__table__
    stored: dict[int, set[tuple[Any, ...]]] = {}
    ids = table.c.attempt_id.between(attempts[0]["id"], attempts[-1]["id"])
    for row in connection.execute(sa.select(table).where(ids)).mappings():
        stored.setdefault(row["attempt_id"], set()).add(_key(row))
    return [a for a in attempts if {_key(r) for r in wrong_part_rows(a)} != stored.get(a["id"], set())]


def _readable(attempt: Any) -> dict[str, Any]:
    # A missing or odd verdict has no wrong parts (as the migration that first filled the table read them).
    results = {part: v for part, v in (attempt["results"] or {}).items() if isinstance(v, dict)}
    return {**attempt, "answers": attempt["answers"] or {}, "results": results}
