"""One exercise's figures for its instructor: solve rate, attempts to solve, help asked for, and wrong
answers counted by the misconception they matched (with a few examples, for instructors only).

Every figure is one aggregate query (GROUP BY in the database), so a page costs the same number of
statements for 3 learners or 2,000. Typed wrong answers are read from the narrow wrong_parts rows, code
ones from the submissions' results, over the latest MAX_SCANNED attempts, as the other statistics are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from grader.catalog.spec import CODE_KIND
from grader.extensions import db
from grader.models import Attempt, Exercise, Progress
from grader.code_models import Submission
from grader.services.insights import ExerciseStats, stats_of
from grader.services.wrong_answers import MAX_SCANNED, Misconception, by_learners, examples, misconception_counts, ranked

# Attempts to solve, bucketed: each count alone up to 5, then two wider buckets.
BUCKETS = (("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4", 4, 4), ("5", 5, 5), ("6–9", 6, 9), ("10+", 10, None))
HINT_BUCKETS = (("0", 0, 0), ("1", 1, 1), ("2", 2, 2), ("3+", 3, None))


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


def attempts_to_solve(course_id: int, exercise: Exercise) -> tuple[tuple[str, int], ...]:
    """The course's learners who solved the exercise, by how many counted attempts it took them (its buckets)."""
    model, counted = (Submission, Submission.number.is_not(None)) if exercise.kind == CODE_KIND else (Attempt, sa.true())
    per_learner = (
        sa.select(sa.func.count().label("took"))
        .select_from(model).join(Progress, (Progress.course_id == model.course_id)
                                 & (Progress.user_id == model.user_id) & (Progress.exercise_id == model.exercise_id))
        .where(model.course_id == course_id, model.exercise_id == exercise.id, counted,
               Progress.solved_at.is_not(None), model.created_at <= Progress.solved_at,
               by_learners(course_id, model.user_id))
        .group_by(model.user_id).subquery()
    )  # fmt: skip
    rows = db.session.execute(sa.select(per_learner.c.took, sa.func.count()).group_by(per_learner.c.took))
    return _bucketed({took: learners for took, learners in rows}, BUCKETS)


def help_used(course_id: int, exercise_id: str) -> tuple[tuple[tuple[str, int], ...], int]:
    """The course's learners by hints asked for (among those who tried or asked), and how many asked for the
    solution."""
    rows = db.session.execute(
        sa.select(Progress.hints_used, sa.func.count(), sa.func.count(Progress.gave_up_at))
        .where(Progress.course_id == course_id, Progress.exercise_id == exercise_id,
               by_learners(course_id, Progress.user_id),
               (Progress.attempts_used > 0) | (Progress.hints_used > 0) | Progress.gave_up_at.is_not(None))
        .group_by(Progress.hints_used)
    ).all()  # fmt: skip
    return _bucketed({hints: n for hints, n, _ in rows}, HINT_BUCKETS), sum(gave_up for _, _, gave_up in rows)


def _typed_misconceptions(course_id: int, exercise_id: str) -> list[Misconception]:
    shown = examples(course_id, exercise_id)
    return [Misconception(m.name, m.answers, m.learners, shown.get(m.name, ()))
            for m in misconception_counts(course_id, [exercise_id])[exercise_id]]  # fmt: skip


def _code_misconceptions(course_id: int, exercise_id: str) -> list[Misconception]:
    latest = (sa.select(Submission.user_id, Submission.result).where(
        Submission.course_id == course_id, Submission.exercise_id == exercise_id, Submission.number.is_not(None),
        Submission.score < 1.0, by_learners(course_id, Submission.user_id)).order_by(Submission.id.desc()).limit(MAX_SCANNED).subquery())  # fmt: skip
    named = json_text(latest.c.result, json_key("misconception"))
    rows = db.session.execute(sa.select(named, sa.func.count(), sa.func.count(sa.distinct(latest.c.user_id)))
                              .group_by(named)).all()  # fmt: skip
    return [Misconception(name or None, answers, learners) for name, answers, learners in rows]


def misconceptions(course_id: int, exercise: Exercise) -> tuple[Misconception, ...]:
    """Wrong answers of the course's latest attempts by misconception: most learners first, the unexplained ones
    last."""
    typed = exercise.kind != CODE_KIND
    found = (_typed_misconceptions if typed else _code_misconceptions)(course_id, exercise.id)
    return tuple(ranked(found))


def exercise_analytics(course_id: int, exercise: Exercise) -> ExerciseAnalytics:
    """The figures of one exercise in the course, its learners' work only."""
    hints, gave_up = help_used(course_id, exercise.id)
    return ExerciseAnalytics(stats_of(course_id, exercise), attempts_to_solve(course_id, exercise), hints, gave_up,
                             misconceptions(course_id, exercise))  # fmt: skip
