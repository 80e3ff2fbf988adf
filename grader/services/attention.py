"""The instructor's dashboard: what needs attention in the class now. Exercises few learners solve,
the misconceptions met this week, learners who are stuck, and the class's completion over time.

Each figure is one or two aggregate queries over the progress table (one row per learner and
exercise) or the latest attempts, so the dashboard costs the same number of statements at any size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

import sqlalchemy as sa

from grader.extensions import db
from grader.models import Exercise, Progress, User, utcnow
from grader.code_models import Submission
from grader.services.analytics import json_key, json_text
from grader.services.course_content import learners_of
from grader.services.wrong_answers import MAX_SCANNED, by_learners, named_since

LOW_RATE = 0.5  # a solve rate under this needs a look
MIN_TRIED = 3  # fewer learners than this say too little about an exercise
LOWEST_SHOWN = 10
RECENT = timedelta(days=7)  # "this week"
TOP_MISCONCEPTIONS = 8
STUCK_ATTEMPTS = 3  # counted attempts without solving
STUCK_WINDOW = timedelta(days=14)  # and still at it
STUCK_SHOWN = 20
STUCK_ROWS = 200  # stuck (learner, exercise) rows read, newest first
COMPLETION_DAYS = 30


@dataclass(frozen=True)
class Rate:
    """One exercise's class figures from the progress table."""

    exercise_id: str
    tried: int
    solved: int
    attempts: int
    hinted: int  # learners who asked for at least one hint
    gave_up: int  # learners who asked for the worked solution

    @property
    def share(self) -> float:
        """Solved over tried (0 when nobody tried)."""
        return self.solved / self.tried if self.tried else 0.0


@dataclass(frozen=True)
class Met:
    """A named misconception met this week on one exercise."""

    exercise_id: str
    name: str
    learners: int
    answers: int


@dataclass(frozen=True)
class StuckOn:
    """One exercise a learner is stuck on."""

    exercise_id: str
    attempts: int
    hints: int
    gave_up: bool
    last: datetime


@dataclass(frozen=True)
class Stuck:
    """A learner stuck on one or more exercises, most recent first."""

    user_id: int
    email: str
    on: tuple[StuckOn, ...]


def rates(course_id: int) -> dict[str, Rate]:
    """Every exercise's tried, solved, attempts, hinted and gave-up counts in the course (its learners only), by
    id."""
    rows = db.session.execute(
        sa.select(Progress.exercise_id, sa.func.count().filter(Progress.attempts_used > 0),
                  sa.func.count(Progress.solved_at), sa.func.coalesce(sa.func.sum(Progress.attempts_used), 0),
                  sa.func.count().filter(Progress.hints_used > 0), sa.func.count(Progress.gave_up_at))
        .where(Progress.course_id == course_id, by_learners(course_id, Progress.user_id))
        .group_by(Progress.exercise_id)
    )  # fmt: skip
    return {row[0]: Rate(*row) for row in rows}


def lowest_rates(exercises: list[Exercise], found: dict[str, Rate]) -> list[Rate]:
    """The exercises tried by enough learners, lowest solve rate first (at most LOWEST_SHOWN)."""
    tried = [found[e.id] for e in exercises if e.id in found and found[e.id].tried >= MIN_TRIED]
    return sorted(tried, key=lambda r: (r.share, -r.tried))[:LOWEST_SHOWN]


def misconceptions_since(course_id: int, since: datetime) -> list[Met]:
    """Named misconceptions in the course's learners' latest attempts and submissions since `since`, most learners
    first."""
    typed = named_since(course_id, since)
    sent = (sa.select(Submission.exercise_id, Submission.user_id, Submission.result)
            .where(Submission.course_id == course_id, Submission.created_at >= since,
                   Submission.number.is_not(None), Submission.score < 1.0, by_learners(course_id, Submission.user_id)).order_by(Submission.created_at.desc()).limit(MAX_SCANNED).subquery())  # fmt: skip
    code_named = json_text(sent.c.result, json_key("misconception"))
    code = db.session.execute(sa.select(sent.c.exercise_id, code_named, sa.func.count(sa.distinct(sent.c.user_id)),
                                        sa.func.count()).where(code_named.is_not(None))
                              .group_by(sent.c.exercise_id, code_named)).all()  # fmt: skip
    met = [Met(*row) for row in [*typed, *code] if row[1]]
    return sorted(met, key=lambda m: (-m.learners, -m.answers, m.exercise_id, m.name))[:TOP_MISCONCEPTIONS]


def stuck(course_id: int, now: datetime) -> tuple[list[Stuck], int]:
    """The course's learners with STUCK_ATTEMPTS or more counted attempts on an exercise they have not solved, or who asked for
    its solution, active within STUCK_WINDOW; the most recent STUCK_SHOWN, and how many there are in all."""
    last = sa.func.coalesce(Progress.last_attempt_at, Progress.gave_up_at)
    where = (Progress.solved_at.is_(None), (Progress.attempts_used >= STUCK_ATTEMPTS) | Progress.gave_up_at.is_not(None),
             last >= now - STUCK_WINDOW, Progress.course_id == course_id,
             Progress.user_id.in_(learners_of(course_id)))  # fmt: skip
    rows = db.session.execute(
        sa.select(Progress.user_id, User.email, Progress.exercise_id, Progress.attempts_used, Progress.hints_used,
                  Progress.gave_up_at.is_not(None), last)
        .join(User, User.id == Progress.user_id).where(*where).order_by(last.desc()).limit(STUCK_ROWS)
    )  # fmt: skip
    learners: dict[int, Stuck] = {}
    for uid, email, exercise_id, used, hints, gave_up, when in rows:
        if uid not in learners and len(learners) == STUCK_SHOWN:
            continue
        known = learners.get(uid, Stuck(uid, email, ()))
        learners[uid] = Stuck(uid, email, (*known.on, StuckOn(exercise_id, used, hints, bool(gave_up), when)))
    total = db.session.scalar(sa.select(sa.func.count(sa.distinct(Progress.user_id)))
                              .join(User, User.id == Progress.user_id).where(*where))  # fmt: skip
    return list(learners.values()), total or 0


def completion(course_id: int, exercise_ids: list[str], today: date,
               days: int = COMPLETION_DAYS) -> tuple[list[tuple[date, float]], int]:  # fmt: skip
    """The share of the course's learner × exercise pairs solved at the end of each of the last `days` days (to
    `today`), over `exercise_ids`; and the number of its learners."""
    learners = db.session.scalar(sa.select(sa.func.count()).select_from(learners_of(course_id).subquery())) or 0
    day = sa.func.date(Progress.solved_at)
    rows = db.session.execute(
        sa.select(day, sa.func.count()).where(Progress.course_id == course_id, Progress.solved_at.is_not(None),
                                              Progress.exercise_id.in_(exercise_ids),
                                              Progress.user_id.in_(learners_of(course_id))).group_by(day)
    )  # fmt: skip
    per_day = {date.fromisoformat(str(when)[:10]): solved for when, solved in rows}
    possible = learners * len(exercise_ids)
    first = today - timedelta(days=days - 1)
    done = sum(n for when, n in per_day.items() if when < first)
    series = []
    for offset in range(days):
        when = first + timedelta(days=offset)
        done += per_day.get(when, 0)
        series.append((when, done / possible if possible else 0.0))
    return series, learners


def this_week(now: datetime | None = None) -> datetime:
    """The start of "this week" as the dashboard counts it: RECENT before now."""
    return (now or utcnow()) - RECENT
