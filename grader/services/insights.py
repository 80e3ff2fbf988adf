"""What instructors learn from learners' attempts: per-exercise counts, solve rates, the most common wrong
answers (with the misconception they matched) and each exercise's version history."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

import sqlalchemy as sa

from grader.catalog.lessons import lesson_order
from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.catalog.spec import NUMERIC_KIND
from grader.codecheck.spec import CodeExerciseSpec, any_spec_from_text
from grader.extensions import db
from grader.models import Attempt, AuditEvent, Exercise, ExerciseVersion, Progress, User
from grader.code_models import Submission
from grader.services.exercises import current_version
from grader.services.course_content import learners_of
from grader.services.wrong_answers import Misconception, misconception_counts, text_counts

# A course's staff try exercises too (early, to check them); like the gradebook, these figures are its
# learners' only (learners_of).
TOP_ON_LIST = 3
# What counts as an attempt: every typed one, and a code submission once graded (it gets its number then).
# An exercise takes typed answers or code, never both, so one of the two tables has its rows.
_COUNTED = ((Attempt, sa.true()), (Submission, Submission.number.is_not(None)))
TOP_PER_PART = 50  # rows shown per part on the stats page; the rest are counted


@dataclass(frozen=True)
class WrongAnswer:
    """An incorrect answer to one part, as typed (whitespace normalised), and how many learners gave it."""

    part: str
    text: str
    count: int  # learners, not attempts: one learner resending it while fixing another part counts once
    misconception: str | None


@dataclass(frozen=True)
class ExerciseStats:
    """One exercise's line on the instructor's list."""

    exercise: Exercise
    attempts: int
    learners: int
    solved: int
    mistakes: list[Misconception]  # the list's: the most learners' misconceptions, then the unexplained

    @property
    def solved_share(self) -> float | None:
        """Solved learners over learners who tried (None when nobody tried)."""
        return self.solved / self.learners if self.learners else None


@dataclass(frozen=True)
class VersionInfo:
    """One version of an exercise, who made it and how many attempts were graded on it."""

    version: int
    created_at: datetime
    author: str | None  # None for a file, or for an account erased since
    attempts: int
    from_web: bool = False  # saved in the browser, by its author or by one whose account is gone


def wrong_answers(course_id: int, exercise_id: str) -> list[WrongAnswer]:
    """Incorrect answers of the exercise's latest attempts in the course, those given by the most learners first;
    each with the misconception it matched most often (the newest on a tie)."""
    found = [WrongAnswer(t.part, t.text, t.learners, max(t.named, key=lambda name: t.named[name]) if t.named else None)
             for t in text_counts(course_id, exercise_id)]  # fmt: skip
    return sorted(found, key=lambda w: (-w.count, w.part, w.text))


def wrong_by_part(course_id: int, exercise_id: str) -> dict[str, list[WrongAnswer]]:
    """The wrong answers of each part in the course, most frequent first."""
    grouped: dict[str, list[WrongAnswer]] = {}
    for answer in wrong_answers(course_id, exercise_id):
        grouped.setdefault(answer.part, []).append(answer)
    return grouped


def _figures(course_id: int, exercise_id: str | None = None) -> dict[str, tuple[int, int, int]]:
    """Counted attempts, learners who made one and learners who solved it, per exercise in the course, from the
    progress rows (one per learner, exercise and course, counting its attempts as they are made)."""
    query = (sa.select(Progress.exercise_id, sa.func.coalesce(sa.func.sum(Progress.attempts_used), 0),
                       sa.func.count().filter(Progress.attempts_used > 0), sa.func.count(Progress.solved_at))
             .where(Progress.course_id == course_id, Progress.user_id.in_(learners_of(course_id)))
             .group_by(Progress.exercise_id))  # fmt: skip
    if exercise_id is not None:
        query = query.where(Progress.exercise_id == exercise_id)
    return {found: (attempts, tried, solved) for found, attempts, tried, solved in db.session.execute(query)}


def overview(course_id: int, exercises: list[Exercise]) -> list[ExerciseStats]:
    """Counts, solve rate and the most common misconceptions (then the unexplained) of each exercise in the
    course."""
    figures = _figures(course_id)
    tried = [e.id for e in exercises if e.kind == NUMERIC_KIND and figures.get(e.id, (0,))[0]]
    named = misconception_counts(course_id, tried)
    return [ExerciseStats(e, *figures.get(e.id, (0, 0, 0)), on_the_list(named.get(e.id, []))) for e in exercises]


def on_the_list(found: list[Misconception]) -> list[Misconception]:
    """The TOP_ON_LIST misconceptions most learners met, and the unexplained wrong answers when there are some."""
    return [m for m in found if m.name][:TOP_ON_LIST] + [m for m in found if m.name is None]


def stats_of(course_id: int, exercise: Exercise) -> ExerciseStats:
    """Counts and solve rate of one exercise in the course (its wrong answers come from `wrong_by_part`)."""
    return ExerciseStats(exercise, *_figures(course_id, exercise.id).get(exercise.id, (0, 0, 0)), [])


def versions(course_id: int, exercise_id: str) -> list[VersionInfo]:
    """Every version of an exercise, newest first, with the course's learners' attempts on each (as the stats
    count them)."""
    per_version: dict[int, int] = {}
    for model, counted in _COUNTED:
        per_version.update(db.session.execute(
            sa.select(model.version, sa.func.count())
            .where(model.course_id == course_id, model.exercise_id == exercise_id, counted,
                   model.user_id.in_(learners_of(course_id)))
            .group_by(model.version)
        ).all())  # fmt: skip
    rows = db.session.execute(
        sa.select(ExerciseVersion.version, ExerciseVersion.created_at, User.email)
        .outerjoin(User, User.id == ExerciseVersion.created_by)
        .where(ExerciseVersion.exercise_id == exercise_id).order_by(ExerciseVersion.version.desc())
    )  # fmt: skip
    web = _saved_on_the_web(exercise_id)
    return [VersionInfo(number, created, author, per_version.get(number, 0), author is not None or number in web)
            for number, created, author in rows]  # fmt: skip


def _saved_on_the_web(exercise_id: str) -> set[int]:
    """The versions the audit trail says were saved on the web: it keeps that after the author's account is erased."""
    details = db.session.scalars(sa.select(AuditEvent.detail).where(
        AuditEvent.exercise_id == exercise_id, AuditEvent.action == "exercise.saved"))  # fmt: skip
    return {d["version"] for d in details if isinstance(d, dict) and d.get("origin") == "web" and "version" in d}


def lessons(exercises: list[Exercise]) -> list[str]:
    """The lesson slugs of these exercises (a course's), in the catalogue's lesson order."""
    return sorted({e.lesson for e in exercises}, key=lesson_order)


def mistake_titles(exercise_id: str) -> dict[str, str]:
    """The titles (as written: translate them to show) of the mistakes the exercise's current version names,
    by mistake id: its own formula mistakes, its code task's, and the named misconceptions its parts list."""
    stored = current_version(exercise_id)
    return _titles_of(stored.source_hash, stored.source) if stored is not None else {}


@lru_cache(maxsize=256)
def _titles_of(digest: str, source: str) -> dict[str, str]:
    spec = any_spec_from_text(source, "stored")[0]
    if spec is None:
        return {}
    if isinstance(spec, CodeExerciseSpec):
        return {name: str(mutant.title) for name, mutant in spec.task_object.mutants.items()}
    names = {ref.name for part in spec.parts for ref in part.misconceptions}
    return {name: spec.mistake_words(name)[0] for name in sorted(names | set(spec.mistakes or {}))
            if name in MISCONCEPTIONS or name in (spec.mistakes or {})}
