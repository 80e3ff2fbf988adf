"""Mastery as the pages show it: a learner's skills per lesson, and a course's learners × skills (read only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterator

import sqlalchemy as sa

from grader.adaptive.model import MASTERED
from grader.catalog.lessons import lesson_title
from grader.catalog.skills import skill_order
from grader.extensions import db
from grader.mastery_models import SkillState
from grader.models import User
from grader.services import mastery, recommend
from grader.services.course_content import learners_of
from grader.services.courses import Seat
from grader.services.exports import csv_text

STUCK_EVIDENCE = 6  # answers on a skill after which a learner still below STUCK_BELOW is stuck on it
STUCK_BELOW = 0.5


@dataclass(frozen=True)
class LessonMastery:
    """One lesson's skills, as the learner's mastery of each."""

    slug: str
    title: str
    skills: list[mastery.Mastery]


def learner_lessons(seat: Seat, now: datetime) -> list[LessonMastery]:
    """The learner's mastery of each skill of each lesson they have open, in the lineup's order."""
    offered, _ = recommend.offered_exercises(seat, None, now)
    by_lesson: dict[str, list[str]] = {}
    for o in offered:
        skills = by_lesson.setdefault(o.lesson, [])
        skills.extend(s for s in o.skills if s not in skills)
    return [LessonMastery(slug, lesson_title(slug), mastery.mastery_of(seat, skills))
            for slug, skills in by_lesson.items()]  # fmt: skip


@dataclass
class ClassMastery:
    """A course's learners × skills (P(known) where a learner has evidence), the weakest skills and who is stuck."""

    skills: list[str]
    learners: list[tuple[int, str]]  # (id, email), by email
    cells: dict[tuple[int, str], tuple[float, int]] = field(default_factory=dict)  # (learner, skill) -> (p, answers)

    def weakest(self) -> list[tuple[str, float, int]]:
        """(skill, mean P(known) over learners with evidence, how many) for skills with evidence, weakest first."""
        found = []
        for skill in self.skills:
            seen = [p for (_, s), (p, n) in self.cells.items() if s == skill and n]
            if seen:
                found.append((skill, sum(seen) / len(seen), len(seen)))
        return sorted(found, key=lambda row: row[1])

    def stuck(self) -> dict[str, list[str]]:
        """Per skill, the learners with at least STUCK_EVIDENCE answers on it and P(known) still below STUCK_BELOW."""
        emails = dict(self.learners)
        found: dict[str, list[str]] = {}
        for (uid, skill), (p, n) in sorted(self.cells.items(), key=lambda c: (skill_order(c[0][1]), emails[c[0][0]])):
            if n >= STUCK_EVIDENCE and p < STUCK_BELOW:
                found.setdefault(skill, []).append(emails[uid])
        return found


def class_mastery(course_id: int) -> ClassMastery:
    """Every learner of the course and their state of every skill that has evidence in it."""
    learners = db.session.execute(sa.select(User.id, User.email).where(User.id.in_(learners_of(course_id)))
                                  .order_by(User.email)).all()  # fmt: skip
    rows = db.session.execute(sa.select(SkillState.user_id, SkillState.skill, SkillState.p_known, SkillState.evidence)
                              .where(SkillState.course_id == course_id)).all()  # fmt: skip
    ids = {uid for uid, _ in learners}
    cells = {(uid, skill): (p, n) for uid, skill, p, n in rows if uid in ids}
    skills = sorted({skill for _, skill in cells}, key=skill_order)
    return ClassMastery(skills, [(uid, email) for uid, email in learners], cells)


def class_mastery_csv(course_id: int) -> Iterator[str]:
    """The course's mastery as CSV: one line per learner, a column per skill (P(known), empty without evidence)."""
    found = class_mastery(course_id)

    def rows() -> Iterator[list[object]]:
        yield ["learner", *found.skills]
        for uid, email in found.learners:
            yield [email, *(f"{found.cells[(uid, s)][0]:.3f}" if (uid, s) in found.cells else "" for s in found.skills)]

    return csv_text(rows())


def level(p: float) -> int:
    """A heatmap colour band, 0 (not known) to 4 (mastered)."""
    return 4 if p >= MASTERED else min(3, int(p * 4))


def level_bands() -> list[tuple[int, int, int]]:
    """Each heatmap band with the lowest and highest whole percentage in it, for the page's colour key."""
    bands: dict[int, list[int]] = {}
    for percent in range(101):
        bands.setdefault(level(percent / 100), []).append(percent)
    return [(band, min(shown), max(shown)) for band, shown in sorted(bands.items())]
