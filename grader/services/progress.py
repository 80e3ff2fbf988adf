"""Progress views: the learner's dashboard, grouped by lesson."""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlalchemy as sa

from grader.catalog.lessons import lesson_order, lesson_title
from grader.extensions import db
from grader.models import Exercise, Progress


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
