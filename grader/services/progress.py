"""Progress views: the learner's dashboard, grouped by lesson."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping

import sqlalchemy as sa

from grader.catalog.lessons import lesson_title
from grader.catalog.policy import AttemptPolicy, applying_due, attempts_left, is_open
from grader import grade_events
from grader.extensions import db
from grader.services.course_content import offered
from grader.services.course_rules import in_order, listed_in, ordered, placed
from grader.services.courses import Seat
from grader.course_models import CourseExercise
from grader.services.dialect import for_session, per_dialect
from grader.models import PUBLISHED, Exercise, Extension, Progress, utcnow


@dataclass(frozen=True)
class ExerciseSummary:
    """One exercise on the dashboard."""

    id: str
    title: str
    best_score: float | None
    attempts: int
    solved: bool
    titles: Mapping[str, str] = field(default_factory=dict)
    due: datetime | None = None  # UTC
    overridden: bool = False  # best_score was set by an instructor
    opens: datetime | None = None  # UTC; only instructors see an exercise before it opens
    left: int | None = None  # attempts left under the exercise's limit; None without one

    @property
    def closed(self) -> bool:
        """Whether the learner can no longer earn credit on their variant: solved or out of attempts."""
        return self.solved or self.left == 0

    def title_in(self, locale: str) -> str:
        """The title in `locale` when the exercise is translated into it."""
        return self.titles.get(locale, self.title)


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


def dashboard(seat: Seat, now: datetime, everything: bool = False) -> list[LessonSummary]:
    """Every lesson of the seat's course with the learner's progress on each exercise open at `now` (every
    exercise with `everything`)."""
    mine = (Progress.user_id == seat.user_id) & (Progress.course_id == seat.course_id)
    extended = (Extension.user_id == seat.user_id) & (Extension.course_id == seat.course_id)
    in_list = ordered(seat.course_id)
    rows = sorted(((placed(exercise, listed, in_list), progress, own_due) for exercise, listed, progress, own_due in
                   db.session.execute(
        sa.select(Exercise, CourseExercise, Progress, Extension.due_at)
        .outerjoin(CourseExercise, listed_in(Exercise.__table__, seat.course_id))
        .outerjoin(Progress, (Progress.exercise_id == Exercise.id) & mine)
        .outerjoin(Extension, (Extension.exercise_id == Exercise.id) & extended)
        # Drafts and unpublished exercises are not in anyone's lessons.
        .where(Exercise.status == PUBLISHED, offered(Exercise.__table__, sa.literal(seat.course_id)))
    )), key=lambda row: row[0].order)  # fmt: skip
    lessons: dict[str, LessonSummary] = {}
    for shown, progress, own_due in rows:
        if not (everything or is_open(shown.opens_at, now)):
            continue
        exercise = shown.exercise
        lesson = lessons.setdefault(exercise.lesson, LessonSummary(exercise.lesson, lesson_title(exercise.lesson)))
        tried = progress is not None and (progress.attempts_used > 0 or progress.overridden)
        lesson.exercises.append(ExerciseSummary(
            exercise.id, exercise.title, progress.score if tried else None, progress.attempts_used if progress else 0,
            bool(progress and progress.solved_at), exercise.titles or {}, applying_due(shown.due_at, own_due),
            bool(progress and progress.overridden), shown.opens_at,
            attempts_left(shown.max_attempts, progress.attempts_used if progress else 0),
        ))  # fmt: skip
    return list(lessons.values())  # in the course's order: the rows were


def due_soon(lessons: list[LessonSummary], now: datetime, limit: int = 5) -> list[ExerciseSummary]:
    """The exercises still open to the learner whose due date is ahead, soonest first."""
    ahead = [e for lesson in lessons for e in lesson.exercises if e.due is not None and e.due >= now and not e.closed]
    return sorted(ahead, key=lambda e: (e.due, e.id))[:limit]


def graded(seat: Seat) -> list[Progress]:
    """The learner's progress rows in the seat's course with a graded attempt or a score set by hand on a published exercise, in
    the course's order (an unpublished one's are kept, and show again once it is republished)."""
    rows = dict(db.session.execute(
        sa.select(Exercise, Progress).join(Exercise, Exercise.id == Progress.exercise_id)
        .where(Progress.user_id == seat.user_id, Progress.course_id == seat.course_id,
               (Progress.attempts_used > 0) | Progress.override_score.is_not(None), Exercise.status == PUBLISHED)
    ).all())  # fmt: skip
    return [rows[shown.exercise] for shown in in_order(seat.course_id, list(rows))]


@dataclass(frozen=True)
class Standing:
    """A learner's progress row as read under its write lock."""

    seat: Seat
    exercise_id: str
    attempts_used: int
    best_score: float
    solved_at: datetime | None
    hints_used: int = 0
    gave_up_at: datetime | None = None


_PROGRESS = Progress.__table__
_KEY: dict[str, sa.BindParameter[Any]] = {
    "course_id": sa.bindparam("course_id"), "user_id": sa.bindparam("user_id"),
    "exercise_id": sa.bindparam("exercise_id"),
}
_PRIMARY_KEY = [_PROGRESS.c.course_id, _PROGRESS.c.user_id, _PROGRESS.c.exercise_id]
_NOW = sa.bindparam("now", type_=_PROGRESS.c.last_attempt_at.type)
_LOCK_COLUMNS = (_PROGRESS.c.attempts_used, _PROGRESS.c.best_score, _PROGRESS.c.solved_at,
                 _PROGRESS.c.hints_used, _PROGRESS.c.gave_up_at)
_LOCK = per_dialect(
    lambda d: d.insert(_PROGRESS).values(**_KEY, last_attempt_at=_NOW)
    .on_conflict_do_update(index_elements=_PRIMARY_KEY,
                           set_={"last_attempt_at": _NOW})
    .returning(*_LOCK_COLUMNS)
)  # fmt: skip
# The same upsert counting one more attempt: a typed attempt's only write to progress unless its score changes.
_COUNT = per_dialect(
    lambda d: d.insert(_PROGRESS).values(**_KEY, attempts_used=1, last_attempt_at=_NOW)
    .on_conflict_do_update(index_elements=_PRIMARY_KEY,
                           set_={"attempts_used": _PROGRESS.c.attempts_used + 1, "last_attempt_at": _NOW})
    .returning(*_LOCK_COLUMNS)
)  # fmt: skip
_CREDIT = (
    sa.update(_PROGRESS)
    .where(_PROGRESS.c.course_id == sa.bindparam("cid"), _PROGRESS.c.user_id == sa.bindparam("uid"),
           _PROGRESS.c.exercise_id == sa.bindparam("eid"))
    .values(attempts_used=sa.bindparam("used"), best_score=sa.bindparam("best"), solved_at=sa.bindparam("solved"))
)  # fmt: skip


def lock(seat: Seat, exercise_id: str) -> Standing:
    """Create if needed and write-lock the learner's progress row; read what decides an attempt after this.

    One upsert that always writes, so SQLite takes its write lock before any read of this
    transaction and PostgreSQL locks the row: concurrent attempts by one learner queue here.
    The statements are built once; this runs on every code submission (typed attempts: `lock_counting`).
    """
    key = {"course_id": seat.course_id, "user_id": seat.user_id, "exercise_id": exercise_id, "now": utcnow()}
    row = db.session.connection().execute(for_session(_LOCK), key).one()
    return Standing(seat, exercise_id, *row)


def lock_counting(seat: Seat, exercise_id: str, at: datetime) -> Standing:
    """`lock`, counting one more attempt made at `at` in the same write; returns the standing before it.

    For an attempt that may not count after all (attempts used up, a repeat), the caller rolls the
    transaction back, and the count with it. Pass what this returns to `credit` with counted=True.
    """
    key = {"course_id": seat.course_id, "user_id": seat.user_id, "exercise_id": exercise_id, "now": at}
    used, *rest = db.session.connection().execute(for_session(_COUNT), key).one()
    return Standing(seat, exercise_id, used - 1, *rest)


def credit(mine: Standing, raw_score: float, policy: AttemptPolicy, at: datetime,
           counted: bool = False) -> tuple[int, float]:  # fmt: skip
    """Count one more attempt, made at `at`, on a locked row and write it; returns its number and kept score.

    With `counted` (`mine` came from `lock_counting`) the row holds that count already: the row is
    written again only when the best score or the solved time changes.
    """
    number = mine.attempts_used + 1
    score = policy.kept_score(raw_score, number, at, mine.hints_used)
    solved = mine.solved_at if mine.solved_at is not None or not policy.solves(raw_score, at) else utcnow()
    best = max(mine.best_score, score)
    changed = best != mine.best_score or solved != mine.solved_at  # the score an LMS keeps changed
    if changed or not counted:
        db.session.connection().execute(_CREDIT, {"cid": mine.seat.course_id, "uid": mine.seat.user_id,
                                                  "eid": mine.exercise_id, "used": number, "best": best,
                                                  "solved": solved})  # fmt: skip
    if number == 1 or changed:
        grade_events.changed(mine.seat.course_id, mine.seat.user_id, mine.exercise_id)  # in this transaction
    return number, score
