"""The class's wrong answers, read from the narrow wrong_parts rows (grader.wrong_parts) over each
exercise's window: its latest MAX_SCANNED attempts by learners.

Each figure is one statement for any number of exercises (a UNION ALL of one branch per exercise, each
read along the exercise's own index range), so a page costs the same statements at any class size.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from grader.extensions import db
from grader.course_models import STAFF_ROLES, CourseMember
from grader.models import SITE_STAFF, Attempt, User
from grader.wrong_parts import WrongPart

MAX_SCANNED = 5000  # the latest attempts per exercise: enough to see patterns, bounded in cost
EXAMPLES = 3  # examples per misconception: unnamed, not anonymous (each learner's numbers are their own)
EXAMPLE_CHARS = 80
def by_learners(course_id: int, user_id: Any) -> sa.ColumnElement[bool]:
    """Rows by the course's learners: not by one of its (few) staff, nor a site admin trying it there. Said this
    way round, the database reads the latest rows by their own index rather than every row of each of the many
    learners. (The caller also keeps to the course's rows: its table's course_id.)"""
    staff = sa.union(sa.select(User.id).where(User.role.in_(SITE_STAFF)),
                     sa.select(CourseMember.user_id).where(CourseMember.course_id == course_id,
                                                           CourseMember.role.in_(STAFF_ROLES)))  # fmt: skip
    return sa.not_(user_id.in_(staff))


@dataclass(frozen=True)
class Misconception:
    """Wrong answers that matched one named misconception (name None: matched none, "unexplained")."""

    name: str | None
    answers: int  # wrong parts (typed) or wrong submissions (code)
    learners: int
    examples: tuple[tuple[str, str], ...] = ()  # (part, text as typed), no names attached


@dataclass(frozen=True)
class TextCount:
    """One wrong text of one part: learners who gave it, and per misconception its parts and newest attempt."""

    part: str
    text: str
    learners: int
    named: dict[str, tuple[int, int]]


def _window_start(course_id: int, exercise_id: str) -> sa.ColumnElement[int]:
    """The id of the exercise's oldest attempt in the course's window (0 while it has fewer than MAX_SCANNED)."""
    oldest = (sa.select(Attempt.id).where(Attempt.course_id == course_id, Attempt.exercise_id == exercise_id,
                                          by_learners(course_id, Attempt.user_id))
              .order_by(Attempt.id.desc()).offset(MAX_SCANNED - 1).limit(1).scalar_subquery())  # fmt: skip
    return sa.func.coalesce(oldest, 0)


def _in_window(course_id: int, exercise_id: str) -> tuple[sa.ColumnElement[bool], ...]:
    """Conditions on wrong_parts rows: this exercise's in this course, by its learners, in its window."""
    return (WrongPart.course_id == course_id, WrongPart.exercise_id == exercise_id,
            WrongPart.attempt_id >= _window_start(course_id, exercise_id), by_learners(course_id, WrongPart.user_id))


def misconception_counts(course_id: int, exercise_ids: list[str]) -> dict[str, list[Misconception]]:
    """Per exercise, its wrong parts and their learners in the course by misconception (None: unexplained), in
    its window."""
    named = WrongPart.misconception
    branches = [sa.select(WrongPart.exercise_id, named, sa.func.count(), sa.func.count(sa.distinct(WrongPart.user_id)))
                .where(*_in_window(course_id, e)).group_by(WrongPart.exercise_id, named) for e in exercise_ids]  # fmt: skip
    found: dict[str, list[Misconception]] = {e: [] for e in exercise_ids}
    if branches:
        for exercise_id, name, answers, learners in db.session.execute(sa.union_all(*branches)):
            found[exercise_id].append(Misconception(name, answers, learners))
    return {e: ranked(found[e]) for e in exercise_ids}


def ranked(found: list[Misconception]) -> list[Misconception]:
    """Most learners first, then most answers, the unexplained ones last."""
    return sorted(found, key=lambda m: (m.name is None, -m.learners, -m.answers, m.name or ""))


def examples(course_id: int, exercise_id: str) -> dict[str | None, tuple[tuple[str, str], ...]]:
    """The newest EXAMPLES wrong parts of each misconception in the exercise's window in the course: (part, text),
    no names."""
    rank = sa.func.row_number().over(partition_by=WrongPart.misconception, order_by=WrongPart.attempt_id.desc())
    newest = sa.select(WrongPart.misconception, WrongPart.part, WrongPart.typed, rank.label("rank")).where(
        *_in_window(course_id, exercise_id)).subquery()
    found: dict[str | None, list[tuple[str, str]]] = defaultdict(list)
    for name, part, text in db.session.execute(
            sa.select(newest.c.misconception, newest.c.part, newest.c.typed).where(newest.c.rank <= EXAMPLES)):  # fmt: skip
        found[name].append((part, text[:EXAMPLE_CHARS] + ("…" if len(text) > EXAMPLE_CHARS else "")))
    return {name: tuple(shown) for name, shown in found.items()}


def text_counts(course_id: int, exercise_id: str) -> list[TextCount]:
    """Every wrong text of the exercise's window in the course by part, with its learners and misconceptions."""
    answer = (WrongPart.part, WrongPart.typed)
    learners = dict(((part, text), n) for part, text, n in db.session.execute(
        sa.select(*answer, sa.func.count(sa.distinct(WrongPart.user_id))).where(*_in_window(course_id, exercise_id))
        .group_by(*answer)).all())  # fmt: skip
    named: dict[tuple[str, str], dict[str, tuple[int, int]]] = defaultdict(dict)
    for part, text, name, times, newest in db.session.execute(
            sa.select(*answer, WrongPart.misconception, sa.func.count(), sa.func.max(WrongPart.attempt_id))
            .where(*_in_window(course_id, exercise_id), WrongPart.misconception.is_not(None))
            .group_by(*answer, WrongPart.misconception)):  # fmt: skip
        named[(part, text)][str(name)] = (times, newest)  # not None: filtered above
    return [TextCount(part, text, n, named.get((part, text), {})) for (part, text), n in learners.items()]


def named_since(course_id: int, since: datetime, scanned: int = MAX_SCANNED) -> list[tuple[str, str, int, int]]:
    """(exercise, misconception, learners, wrong parts) in the course's learners' latest `scanned` attempts since
    `since`."""
    latest = (sa.select(Attempt.id).where(Attempt.course_id == course_id, Attempt.created_at >= since,
                                          by_learners(course_id, Attempt.user_id))
              .order_by(Attempt.created_at.desc()).limit(scanned).subquery())  # fmt: skip
    rows = db.session.execute(
        sa.select(WrongPart.exercise_id, WrongPart.misconception, sa.func.count(sa.distinct(WrongPart.user_id)),
                  sa.func.count())
        .join(latest, latest.c.id == WrongPart.attempt_id).where(WrongPart.misconception.is_not(None))
        .group_by(WrongPart.exercise_id, WrongPart.misconception)
    )  # fmt: skip
    return [(exercise_id, str(name), learners, answers) for exercise_id, name, learners, answers in rows]  # named only
