"""What instructors learn from learners' attempts: per-exercise counts, solve rates, the most common wrong
answers (with the misconception they matched) and each exercise's version history."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

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


def _wrong_parts(exercise_ids: list[str]) -> tuple[sa.Select[Any], list[sa.ColumnElement[Any]], Any]:
    """Incorrect parts of each exercise's latest attempts (one statement for every exercise), and the columns
    naming one: exercise, part, text as typed; with the misconception column and the attempts subquery."""
    # analytics imports this module's figures; its SQL pieces are read here, when called
    from grader.services.analytics import json_text, latest_attempts, wrong_parts

    if len(exercise_ids) == 1:
        latest = latest_attempts(exercise_id=exercise_ids[0])
    else:  # each exercise's own latest, read along its index
        latest = sa.union_all(*(sa.select(latest_attempts(exercise_id=e)) for e in exercise_ids)).subquery()
    wrong, named, parts = wrong_parts(latest)
    return wrong, [latest.c.exercise_id, parts.c.key, json_text(latest.c.answers, parts.c.key)], (named, latest)


def _givers(exercise_ids: list[str], texts: set[tuple[str, str, str]]) -> dict[tuple[str, str, str], set[int]]:
    """The learners who gave each of these (exercise, part, text as typed)."""
    wrong, answer, (_named, latest) = _wrong_parts(exercise_ids)
    rows = db.session.execute(wrong.add_columns(*answer, latest.c.user_id).where(sa.tuple_(*answer).in_(texts))
                              .group_by(*answer, latest.c.user_id))  # fmt: skip
    found: dict[tuple[str, str, str], set[int]] = defaultdict(set)
    for exercise_id, part, typed, user_id in rows:
        found[(exercise_id, part, typed)].add(user_id)
    return found


def wrong_answers_of(exercise_ids: list[str]) -> dict[str, list[WrongAnswer]]:
    """Each exercise's incorrect answers of its latest attempts, those given by the most learners first."""
    if not exercise_ids:
        return {}
    if db.session.get_bind().dialect.name == "postgresql":
        # Costed high (a JSON function per row), the query would be JIT-compiled: seconds spent before it runs.
        db.session.execute(sa.text("SET LOCAL jit = off"))
    wrong, answer, (named, latest) = _wrong_parts(exercise_ids)
    rows = db.session.execute(wrong.add_columns(*answer, named, sa.func.count(), sa.func.count(sa.distinct(latest.c.user_id)),
                                                sa.func.max(latest.c.id)).group_by(*answer, named)).all()  # fmt: skip
    texts: dict[tuple[str, str, str], set[tuple[str, str, str]]] = defaultdict(set)  # tidied: as typed
    learners: dict[tuple[str, str, str], int] = defaultdict(int)
    # Per answer, each misconception's attempts and newest attempt: the most frequent wins, then the newest.
    usual: dict[tuple[str, str, str], dict[str, tuple[int, int]]] = defaultdict(dict)
    for exercise_id, part, typed, misconception, times, givers, newest in rows:
        key = (exercise_id, part, normalise(str(typed if typed is not None else "")))
        texts[key].add((exercise_id, part, typed))
        learners[key] += givers
        if misconception:
            seen, latest_id = usual[key].get(misconception, (0, 0))
            usual[key][misconception] = (seen + times, max(latest_id, newest))
    # A learner counts once per answer: where spellings or misconceptions split an answer, ask who gave it.
    split = {key for key in learners if len(texts[key]) > 1 or len(usual[key]) > 1}
    if split:
        who = _givers(sorted({key[0] for key in split}), set().union(*(texts[key] for key in split)))
        learners.update({key: len(set().union(*(who[text] for text in texts[key]))) for key in split})
    found: dict[str, list[WrongAnswer]] = {e: [] for e in exercise_ids}
    for key in sorted(learners, key=lambda k: (-learners[k], k[1], k[2])):
        choice = max(usual[key].items(), key=lambda item: item[1])[0] if usual[key] else None
        found[key[0]].append(WrongAnswer(key[1], key[2], learners[key], choice))
    return found


def wrong_answers(exercise_id: str) -> list[WrongAnswer]:
    """Incorrect answers of the latest attempts, those given by the most learners first."""
    return wrong_answers_of([exercise_id])[exercise_id]


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
    wrong = wrong_answers_of([e.id for e in exercises if e.kind == NUMERIC_KIND and e.id in attempts])
    stats = []
    for exercise in exercises:
        tried, learners = attempts.get(exercise.id, (0, 0))
        top = wrong.get(exercise.id, [])[:TOP_ON_LIST]
        stats.append(ExerciseStats(exercise, tried, learners, solved.get(exercise.id, 0), top))
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
