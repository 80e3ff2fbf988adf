"""Progress views: the learner's dashboard, grouped by lesson."""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from grader.catalog.lessons import lesson_order, lesson_title
from grader.extensions import db
from grader.models import Exercise, Progress, utcnow


@dataclass(frozen=True)
class ExerciseSummary:
    """One exercise on the dashboard."""

    id: str
    title: str
    best_score: float | None
    attempts: int
    solved: bool


@dataclass
class LessonSummary:
    """One lesson and the learner's progress through it."""

    slug: str
    title: str
    exercises: list[ExerciseSummary] = field(default_factory=list)

    @property
    def solved(self) -> int:
        """How many exercises are solved."""
        return sum(e.solved for e in self.exercises)


def dashboard(user_id: int) -> list[LessonSummary]:
    """Every lesson with the learner's progress on each exercise."""
    rows = db.session.execute(
        sa.select(Exercise, Progress)
        .outerjoin(Progress, (Progress.exercise_id == Exercise.id) & (Progress.user_id == user_id))
        .order_by(Exercise.position, Exercise.id)
    ).all()
    lessons: dict[str, LessonSummary] = {}
    for exercise, progress in rows:
        lesson = lessons.setdefault(exercise.lesson, LessonSummary(exercise.lesson, lesson_title(exercise.lesson)))
        lesson.exercises.append(ExerciseSummary(
            exercise.id, exercise.title, progress.best_score if progress and progress.attempts_used else None,
            progress.attempts_used if progress else 0, bool(progress and progress.solved_at),
        ))  # fmt: skip
    return sorted(lessons.values(), key=lambda lesson: lesson_order(lesson.slug))


def graded(user_id: int) -> list[Progress]:
    """The learner's progress rows with at least one graded attempt, in lesson order."""
    return list(db.session.scalars(
        sa.select(Progress).join(Exercise, Exercise.id == Progress.exercise_id)
        .where(Progress.user_id == user_id, Progress.attempts_used > 0)
        .order_by(Exercise.lesson, Exercise.position, Exercise.id)
    ))  # fmt: skip


def lock(user_id: int, exercise_id: str) -> Progress:
    """Create if needed and write-lock the learner's progress row; read what decides an attempt after this.

    One upsert that always writes, so SQLite takes its write lock before any read of this
    transaction and PostgreSQL locks the row: concurrent attempts by one learner queue here.
    """
    insert = postgresql.insert if db.session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    upsert = (
        insert(Progress).values(user_id=user_id, exercise_id=exercise_id, last_attempt_at=now)
        .on_conflict_do_update(index_elements=[Progress.user_id, Progress.exercise_id], set_={"last_attempt_at": now})
        .returning(Progress)
    )  # fmt: skip
    return db.session.scalars(upsert, execution_options={"populate_existing": True}).one()


def credit(row: Progress, raw_score: float, penalty: float) -> tuple[int, float]:
    """Count one more attempt on a locked row; returns its number and its score after the penalty."""
    number = row.attempts_used + 1
    score = round(raw_score * max(0.0, 1.0 - penalty * (number - 1)), 6)
    row.attempts_used = number
    row.best_score = max(row.best_score, score)
    if raw_score >= 1.0 and row.solved_at is None:
        row.solved_at = utcnow()
    return number, score
