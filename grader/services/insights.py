"""What instructors learn from learners' attempts: per-exercise counts, solve rates, the most common wrong
answers (with the misconception they matched) and each exercise's version history."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from grader.catalog.lessons import lesson_order
from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.catalog.spec import NUMERIC_KIND
from grader.extensions import db
from grader.models import Attempt, AuditEvent, Exercise, ExerciseVersion, Progress, Submission, User

# Instructors try exercises too (early, to check them); like the gradebook, these figures are learners' only.
LEARNERS_ONLY = sa.select(User.id).where(User.role == "learner")
MAX_SCANNED = 5000  # the latest attempts per exercise: enough to see patterns, bounded in cost
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

    @property
    def misconception_title(self) -> str:
        """The misconception's wording, or '' when the answer matched none (or an unknown one)."""
        known = MISCONCEPTIONS.get(self.misconception or "")
        return known.title if known else ""


@dataclass(frozen=True)
class ExerciseStats:
    """One exercise's line on the instructor's list."""

    exercise: Exercise
    attempts: int
    learners: int
    solved: int
    wrong: list[WrongAnswer]

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


def normalise(text: str) -> str:
    """Typed text with surrounding whitespace stripped and inner runs collapsed to one space."""
    return " ".join(text.split())


def _tally(exercise_id: str) -> tuple[dict[tuple[str, str], set[int]], dict[tuple[str, str], Counter[str]]]:
    givers: dict[tuple[str, str], set[int]] = defaultdict(set)
    named: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    latest = db.session.execute(
        sa.select(Attempt.user_id, Attempt.answers, Attempt.results)
        .where(Attempt.exercise_id == exercise_id, Attempt.user_id.in_(LEARNERS_ONLY))
        .order_by(Attempt.id.desc()).limit(MAX_SCANNED)
    )  # fmt: skip
    for user_id, answers, results in latest:
        for part, verdict in (results or {}).items():
            if not isinstance(verdict, dict) or verdict.get("status") != "incorrect":
                continue
            key = (part, normalise(str((answers or {}).get(part, ""))))
            givers[key].add(user_id)
            if verdict.get("misconception"):
                named[key][verdict["misconception"]] += 1
    return givers, named


def wrong_answers(exercise_id: str) -> list[WrongAnswer]:
    """Incorrect answers of the latest attempts, those given by the most learners first."""
    givers, named = _tally(exercise_id)
    ranked = sorted(((key, len(users)) for key, users in givers.items()), key=lambda item: (-item[1], item[0]))
    return [WrongAnswer(part, text, count, _most_common(named[(part, text)]))
            for (part, text), count in ranked]  # fmt: skip


def _most_common(names: Counter[str]) -> str | None:
    # The same text can match different mistakes on different variants: name the usual one.
    return names.most_common(1)[0][0] if names else None


def wrong_by_part(exercise_id: str) -> dict[str, list[WrongAnswer]]:
    """The wrong answers of each part, most frequent first."""
    grouped: dict[str, list[WrongAnswer]] = {}
    for answer in wrong_answers(exercise_id):
        grouped.setdefault(answer.part, []).append(answer)
    return grouped


def _counted(exercise_id: str | None = None) -> dict[str, tuple[int, int]]:
    """Counted attempts and the learners who made them, per exercise (see _COUNTED)."""
    found: dict[str, tuple[int, int]] = {}
    for model, counted in _COUNTED:
        query = (sa.select(model.exercise_id, sa.func.count(), sa.func.count(sa.distinct(model.user_id)))
                 .where(model.user_id.in_(LEARNERS_ONLY), counted).group_by(model.exercise_id))  # fmt: skip
        if exercise_id is not None:
            query = query.where(model.exercise_id == exercise_id)
        found.update({ex: (tried, learners) for ex, tried, learners in db.session.execute(query)})
    return found


def _solved_counts() -> dict[str, int]:
    rows = db.session.execute(
        sa.select(Progress.exercise_id, sa.func.count())
        .where(Progress.solved_at.is_not(None), Progress.user_id.in_(LEARNERS_ONLY)).group_by(Progress.exercise_id)
    )  # fmt: skip
    return {exercise_id: solved for exercise_id, solved in rows}


def overview(exercises: list[Exercise]) -> list[ExerciseStats]:
    """Counts, solve rate and the top wrong answers for each exercise."""
    attempts, solved = _counted(), _solved_counts()
    stats = []
    for exercise in exercises:
        tried, learners = attempts.get(exercise.id, (0, 0))
        wrong = wrong_answers(exercise.id)[:TOP_ON_LIST] if tried and exercise.kind == NUMERIC_KIND else []
        stats.append(ExerciseStats(exercise, tried, learners, solved.get(exercise.id, 0), wrong))
    return stats


def stats_of(exercise: Exercise) -> ExerciseStats:
    """Counts and solve rate of one exercise (its wrong answers come from `wrong_by_part`)."""
    tried, learners = _counted(exercise.id).get(exercise.id, (0, 0))
    solved = db.session.scalar(sa.select(sa.func.count()).select_from(Progress).where(
        Progress.exercise_id == exercise.id, Progress.solved_at.is_not(None),
        Progress.user_id.in_(LEARNERS_ONLY)))  # fmt: skip
    return ExerciseStats(exercise, tried, learners, solved or 0, [])


def versions(exercise_id: str) -> list[VersionInfo]:
    """Every version of an exercise, newest first, with the learners' attempts on each (as the stats count them)."""
    per_version: dict[int, int] = {}
    for model, counted in _COUNTED:
        per_version.update(db.session.execute(
            sa.select(model.version, sa.func.count())
            .where(model.exercise_id == exercise_id, counted, model.user_id.in_(LEARNERS_ONLY))
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


def lessons() -> list[str]:
    """The lesson slugs that have exercises."""
    return sorted(db.session.scalars(sa.select(Exercise.lesson).distinct()), key=lesson_order)
