"""One exercise's figures for its instructor: solve rate, attempts to solve, help asked for, and wrong
answers counted by the misconception they matched (with a few anonymised examples).

Every figure is one aggregate query (GROUP BY in the database), so a page costs the same number of
statements for 3 learners or 2,000. Wrong answers are read from the stored verdicts (each attempt keeps
the misconception its parts matched), over the latest MAX_SCANNED attempts, as the other statistics are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from grader.catalog.spec import CODE_KIND
from grader.extensions import db
from grader.models import Attempt, Exercise, Progress, Submission, User
from grader.services.insights import MAX_SCANNED, ExerciseStats

# Attempts to solve, bucketed: each count alone up to 5, then two wider buckets.
BUCKETS = (("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4", 4, 4), ("5", 5, 5), ("6–9", 6, 9), ("10+", 10, None))
HINT_BUCKETS = (("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3+", 3, None))
EXAMPLES = 3  # anonymised examples per misconception
EXAMPLE_CHARS = 80
_INSTRUCTORS = sa.select(User.id).where(User.role == "instructor")


def by_learners(user_id: Any) -> sa.ColumnElement[bool]:
    """Rows by learners: not by one of the (few) instructors. Said this way round, the database reads the
    latest rows by their own index rather than every row of each of the many learners."""
    return sa.not_(user_id.in_(_INSTRUCTORS))


@dataclass(frozen=True)
class Misconception:
    """Wrong answers that matched one named misconception (name None: matched none, "unexplained")."""

    name: str | None
    answers: int  # wrong parts (typed) or wrong submissions (code)
    learners: int
    examples: tuple[tuple[str, str], ...] = ()  # (part, text as typed), no names attached


@dataclass(frozen=True)
class ExerciseAnalytics:
    """Everything the exercise's analytics section draws."""

    stats: ExerciseStats
    to_solve: tuple[tuple[str, int], ...]  # bucket name and learners who solved it in that many attempts
    hints: tuple[tuple[str, int], ...]  # hints asked for and learners who asked for that many
    gave_up: int  # learners who asked for the worked solution
    misconceptions: tuple[Misconception, ...]  # most learners first, the unexplained last


def _bucketed(counts: dict[int, int], buckets: tuple[tuple[str, int, int | None], ...]) -> tuple[tuple[str, int], ...]:
    return tuple((name, sum(n for k, n in counts.items() if low <= k and (high is None or k <= high)))
                 for name, low, high in buckets)  # fmt: skip


def json_text(json_value: Any, key: Any) -> sa.ColumnElement[Any]:
    """`json_value ->> key`: a JSON object's member as text, the same operator in SQLite (3.38+) and PostgreSQL."""
    return sa.type_coerce(json_value, sa.JSON).op("->>", return_type=sa.String)(key)


def json_key(name: str) -> sa.ColumnElement[Any]:
    """A JSON member's name for json_text."""
    return sa.literal_column(f"'{name}'")  # a literal, so PostgreSQL picks the text operator


def attempts_to_solve(exercise: Exercise) -> tuple[tuple[str, int], ...]:
    """Learners who solved the exercise, by how many counted attempts it took them (its buckets)."""
    model, counted = (Submission, Submission.number.is_not(None)) if exercise.kind == CODE_KIND else (Attempt, sa.true())
    per_learner = (
        sa.select(sa.func.count().label("took"))
        .select_from(model).join(Progress, (Progress.user_id == model.user_id) & (Progress.exercise_id == model.exercise_id))
        .where(model.exercise_id == exercise.id, counted, Progress.solved_at.is_not(None),
               model.created_at <= Progress.solved_at, by_learners(model.user_id))
        .group_by(model.user_id).subquery()
    )  # fmt: skip
    rows = db.session.execute(sa.select(per_learner.c.took, sa.func.count()).group_by(per_learner.c.took))
    return _bucketed({took: learners for took, learners in rows}, BUCKETS)


def help_used(exercise_id: str) -> tuple[tuple[tuple[str, int], ...], int]:
    """Learners by hints asked for (among those who tried or asked), and how many asked for the solution."""
    rows = db.session.execute(
        sa.select(Progress.hints_used, sa.func.count(), sa.func.count(Progress.gave_up_at))
        .where(Progress.exercise_id == exercise_id, by_learners(Progress.user_id),
               (Progress.attempts_used > 0) | (Progress.hints_used > 0) | Progress.gave_up_at.is_not(None))
        .group_by(Progress.hints_used)
    ).all()  # fmt: skip
    return _bucketed({hints: n for hints, n, _ in rows}, HINT_BUCKETS), sum(gave_up for _, _, gave_up in rows)


def latest_attempts(since: datetime | None = None, exercise_id: str | None = None) -> sa.Subquery:
    """Learners' latest typed attempts (of one exercise, or since a moment), at most MAX_SCANNED."""
    query = sa.select(Attempt.id, Attempt.user_id, Attempt.exercise_id, Attempt.answers, Attempt.results).where(
        by_learners(Attempt.user_id))
    if exercise_id is not None:
        query = query.where(Attempt.exercise_id == exercise_id)
    if since is not None:  # the newest by time, read backwards along the index on created_at
        return query.where(Attempt.created_at >= since).order_by(Attempt.created_at.desc()).limit(MAX_SCANNED).subquery()
    return query.order_by(Attempt.id.desc()).limit(MAX_SCANNED).subquery()


def wrong_parts(latest: sa.Subquery) -> tuple[sa.Select[Any], sa.ColumnElement[Any], Any]:
    """Each incorrect part of `latest` attempts, one row per part (json_each), with its misconception column."""
    parts = sa.func.json_each(latest.c.results).table_valued(sa.column("key", sa.String), sa.column("value", sa.JSON))
    named = json_text(parts.c.value, json_key("misconception")).label("misconception")
    query = sa.select().select_from(latest).join(parts, sa.true()).where(
        json_text(parts.c.value, json_key("status")) == "incorrect")
    return query, named, parts


def _typed_misconceptions(exercise_id: str) -> list[Misconception]:
    latest = latest_attempts(exercise_id=exercise_id)
    wrong, named, parts = wrong_parts(latest)
    counts = db.session.execute(wrong.add_columns(named, sa.func.count(), sa.func.count(sa.distinct(latest.c.user_id)))
                                .group_by(named)).all()  # fmt: skip
    rank = sa.func.row_number().over(partition_by=named, order_by=latest.c.id.desc()).label("rank")
    ranked = wrong.add_columns(named.label("name"), parts.c.key.label("part"),
                               json_text(latest.c.answers, parts.c.key).label("typed"), rank).subquery()  # fmt: skip
    examples: dict[str | None, list[tuple[str, str]]] = {}
    for name, part, typed in db.session.execute(
            sa.select(ranked.c.name, ranked.c.part, ranked.c.typed).where(ranked.c.rank <= EXAMPLES)):  # fmt: skip
        text = " ".join(str(typed or "").split())
        examples.setdefault(name, []).append((part, text[:EXAMPLE_CHARS] + ("…" if len(text) > EXAMPLE_CHARS else "")))
    return [Misconception(name or None, answers, learners, tuple(examples.get(name, ())))
            for name, answers, learners in counts]  # fmt: skip


def _code_misconceptions(exercise_id: str) -> list[Misconception]:
    latest = (sa.select(Submission.user_id, Submission.result).where(
        Submission.exercise_id == exercise_id, Submission.number.is_not(None), Submission.score < 1.0,
        by_learners(Submission.user_id)).order_by(Submission.id.desc()).limit(MAX_SCANNED).subquery())  # fmt: skip
    named = json_text(latest.c.result, json_key("misconception"))
    rows = db.session.execute(sa.select(named, sa.func.count(), sa.func.count(sa.distinct(latest.c.user_id)))
                              .group_by(named)).all()  # fmt: skip
    return [Misconception(name or None, answers, learners) for name, answers, learners in rows]


def misconceptions(exercise: Exercise) -> tuple[Misconception, ...]:
    """Wrong answers of the latest attempts by misconception: most learners first, the unexplained ones last."""
    found = _code_misconceptions(exercise.id) if exercise.kind == CODE_KIND else _typed_misconceptions(exercise.id)
    return tuple(sorted(found, key=lambda m: (m.name is None, -m.learners, -m.answers, m.name or "")))


def counts(exercise: Exercise) -> ExerciseStats:
    """Counted attempts, learners who made one and learners who solved it, from the progress rows (one per learner)."""
    tried, solved, attempts = db.session.execute(
        sa.select(sa.func.count().filter(Progress.attempts_used > 0), sa.func.count(Progress.solved_at),
                  sa.func.coalesce(sa.func.sum(Progress.attempts_used), 0))
        .where(Progress.exercise_id == exercise.id, by_learners(Progress.user_id))
    ).one()  # fmt: skip
    return ExerciseStats(exercise, attempts, tried, solved, [])


def exercise_analytics(exercise: Exercise) -> ExerciseAnalytics:
    """The figures of one exercise, learners' work only."""
    hints, gave_up = help_used(exercise.id)
    return ExerciseAnalytics(counts(exercise), attempts_to_solve(exercise), hints, gave_up, misconceptions(exercise))
