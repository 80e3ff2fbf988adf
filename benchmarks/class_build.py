"""Build a whole class in one go for benchmarks/class_scale.py: learners, variants, progress, attempts and
code submissions, written with bulk inserts (Core executemany, a few thousand rows a statement).

The rows are realistic, not filler: every numeric attempt's answers were really graded by the
catalogue against the learner's own variant (right answers, each named mistake of the part, and
numbers off by a little or a lot), so its results JSON carries the verdicts, named misconceptions,
messages and directions the service would store; a learner's progress follows from their attempts;
code submissions carry a source of a realistic size and a result of the stored shape.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Iterator

import numpy as np
import sqlalchemy as sa

from grader import wrong_parts
from grader.answers import syntax
from grader.answers.kinds import KINDS, NumericKind, render_answer
from grader.answers.tolerance import decimal_places
from grader.catalog.catalog import check_answers
from grader.catalog.spec import CODE_KIND
from grader.catalog.variants import Variant
from grader.extensions import db
from grader.course_models import CourseExercise, CourseMember
from grader.models import AuditEvent, Attempt, Exercise, Progress, User, Variant as VariantRow
from grader.code_models import Submission
from grader.services import accounts, courses, exercises
from grader.services.attempts import answers_digest

PASSWORD = "load test password"
SEEDS = 12  # variants per exercise: learners share them, so grading the pool stays quick
ANSWERS_PER_SEED = 24  # distinct graded answers per variant: a learner never repeats one (it would not count)
CHUNK = 5000
START = datetime(2026, 9, 1, 8, 0)


@dataclass(frozen=True)
class Graded:
    """One graded answer set, ready to store as an attempt."""

    answers: dict[str, str]
    parsed: dict[str, Any]
    results: dict[str, Any]
    score: float
    digest: str


def _texts(variant: Variant, rng: random.Random) -> Iterator[dict[str, str]]:
    """Answer sets to one variant: right, each named mistake, then numbers off by a little or a lot."""
    def rendered(part: Any, value: Any) -> str:
        kind = part.spec.type
        numeric = isinstance(KINDS[kind], NumericKind)
        decimals = (decimal_places(part.tolerance, part.target.exact, False) or 0) if numeric else 0
        return render_answer(kind, value, syntax.syntaxes(kind)[0], decimals)

    yield {p.spec.id: rendered(p, p.target.exact) for p in variant.parts}
    mutants = max((len(p.target.mutants) for p in variant.parts), default=0)
    for m in range(mutants):
        yield {p.spec.id: rendered(p, (p.target.mutants[m] if m < len(p.target.mutants) else p.target).routes[0])
               for p in variant.parts}  # fmt: skip
    while True:
        off = {}
        for p in variant.parts:
            exact = p.target.exact
            if isinstance(KINDS[p.spec.type], NumericKind):
                factor = rng.choice((0.9, 1.1, 0.5, 2.0, -1.0, 1.01, 1.3))
                off[p.spec.id] = rendered(p, np.asarray(exact, dtype=float) * factor + rng.choice((0, 0.1, -0.2)))
            else:
                off[p.spec.id] = rendered(p, exact)
        yield off


def graded_pool(exercise_id: str) -> dict[int, list[Graded]]:
    """For each of SEEDS variants of the exercise's current version, distinct graded answer sets."""
    stored = exercises.current_version(exercise_id)
    assert stored is not None
    rng, pool = random.Random(exercise_id), {}
    for seed in range(1, SEEDS + 1):
        variant, seen = exercises.variant_of(stored, seed), set()
        found: list[Graded] = []
        for tries, answers in enumerate(_texts(variant, rng)):
            digest = answers_digest(answers)
            if tries > 8 * ANSWERS_PER_SEED or len(found) == ANSWERS_PER_SEED:
                break  # shapes and sets have few wrong answers worth drawing
            if digest in seen:
                continue
            seen.add(digest)
            result = check_answers(variant, answers)
            if result.counted:
                found.append(Graded(answers, {k: r.value for k, r in result.parts.items()},
                                    {k: r.to_record() for k, r in result.parts.items()}, result.score, digest))
        pool[seed] = found
    return pool


COURSE = 1  # the `default` course: the first one a database has


@dataclass
class Plan:
    """How much work each learner of a course has: the share of exercises they open, attempts on each."""

    attempts: int
    numeric_share: float = 0.92
    code_share: float = 0.85


def _insert(table: sa.Table, rows: list[dict[str, Any]]) -> None:
    for start in range(0, len(rows), CHUNK):
        db.session.execute(sa.insert(table), rows[start:start + CHUNK])


def _users(learners: int) -> list[int]:
    """The learners (one password hash shared by all: hashing 2,000 would take minutes) and an instructor."""
    courses.add_member(courses.ensure_default(), accounts.create_user("instructor@example.com", PASSWORD, "staff"),
                       "instructor")
    first = accounts.create_user("learner0@example.com", PASSWORD)
    course = courses.ensure_default().id  # learners made row by row join it here, as create_user would
    return [first.id, *_members(course, [f"learner{i}@example.com" for i in range(1, learners)], first.password_hash, "open")]


def _members(course_id: int, emails: list[str], password_hash: str, added_by: str, role: str = "learner") -> list[int]:
    """Accounts for these emails (bulk inserted, one shared hash) made members of the course; their ids."""
    _insert(User.__table__, [{"email": email, "password_hash": password_hash, "role": "staff" if role == "instructor"
                              else "learner", "locale": "en", "created_at": START} for email in emails])  # fmt: skip
    ids = list(db.session.scalars(sa.select(User.id).where(User.email.in_(emails)).order_by(User.id)))
    _insert(CourseMember.__table__, [{"course_id": course_id, "user_id": uid, "role": role, "created_at": START,
                                      "added_by": added_by} for uid in ids])  # fmt: skip
    db.session.commit()
    return ids


def build(learners: int, attempts: int, seed: int = 1) -> dict[str, int]:
    """Fill the (migrated, synced) database with a class in the `default` course; returns row counts. Commits."""
    users = _users(learners)
    assert courses.ensure_default().id == COURSE
    return _work(COURSE, users, Plan(attempts), random.Random(seed), {})


def build_course(code: str, learners: int, plan: Plan, pools: dict[str, dict[int, list["Graded"]]],
                 seed: int = 1) -> dict[str, int]:
    """A new course `code` listing every exercise, its instructor (instructor@CODE.example.com) and learners
    (learnerN@CODE.example.com), and their work; returns row counts. `pools` caches graded answers. Commits."""
    if (shared := db.session.scalar(sa.select(User.password_hash).where(User.email == "hash@example.com"))) is None:
        shared = accounts.create_user("hash@example.com", PASSWORD, "staff").password_hash  # hashed once a database
    course = courses.create(code, f"Course {code}")
    _members(course.id, [f"instructor@{code}.example.com"], shared, "staff", "instructor")
    users = _members(course.id, [f"learner{i}@{code}.example.com" for i in range(learners)], shared, "import")
    ids = list(db.session.scalars(sa.select(Exercise.id).where(Exercise.course_id.is_(None)).order_by(Exercise.id)))
    _insert(CourseExercise.__table__, [{"course_id": course.id, "exercise_id": e, "position": n} for n, e in enumerate(ids, 1)])
    _insert(AuditEvent.__table__, [{"created_at": START, "actor_id": None, "action": "score.set", "course_id": course.id,
                                    "learner_id": uid, "exercise_id": ids[0], "detail": {"score": 0.5, "reason": "late start"}}
                                   for uid in users[::5]])  # fmt: skip
    db.session.commit()
    return _work(course.id, users, plan, random.Random(f"{code}-{seed}"), pools)


def _work(course_id: int, users: list[int], plan: Plan, rng: random.Random,
          pools: dict[str, dict[int, list["Graded"]]]) -> dict[str, int]:
    counts = {"learners": len(users), "attempts": 0, "submissions": 0, "progress": 0}
    for exercise in db.session.scalars(sa.select(Exercise).order_by(Exercise.id)).all():
        if exercise.kind == CODE_KIND:
            counts["submissions"] += _code_class(course_id, exercise, users, plan, rng)
        else:
            pool = pools.get(exercise.id) or pools.setdefault(exercise.id, graded_pool(exercise.id))
            counts["attempts"] += _numeric_class(course_id, exercise, pool, users, plan, rng)
        db.session.commit()
    counts["progress"] = db.session.scalar(sa.select(sa.func.count()).select_from(Progress)
                                           .where(Progress.course_id == course_id)) or 0  # fmt: skip
    return counts


def _numeric_class(course_id: int, exercise: Exercise, pool: dict[int, list["Graded"]], users: list[int], plan: Plan,
                   rng: random.Random) -> int:
    attempts = plan.attempts
    variants, progress, rows = [], [], []
    for uid in users:
        if rng.random() > plan.numeric_share:  # some never open it
            continue
        seed = rng.randint(1, SEEDS)
        variants.append({"user_id": uid, "exercise_id": exercise.id, "seed": seed, "created_at": START})
        tries = min(len(pool[seed]), max(1, round(rng.gauss(attempts, attempts / 2))))
        chosen = rng.sample(pool[seed], tries)
        if rng.random() < 0.7:  # most end on the right answer, when they reach it
            right = max(pool[seed], key=lambda g: g.score)
            chosen = [g for g in chosen if g is not right][: tries - 1] + [right]
        at, best, solved = START + timedelta(days=rng.randint(0, 60)), 0.0, None
        for number, graded in enumerate(chosen, 1):
            at += timedelta(seconds=rng.randint(20, 600))
            best = max(best, graded.score)
            solved = solved or (at if graded.score >= 1 else None)
            rows.append({"user_id": uid, "course_id": course_id, "exercise_id": exercise.id, "version": exercise.current_version,
                         "seed": seed, "number": number, "answers": graded.answers, "parsed": graded.parsed,
                         "results": graded.results, "raw_score": graded.score, "score": graded.score,
                         "late": False, "hints_used": 0, "answers_hash": graded.digest, "created_at": at})  # fmt: skip
        progress.append({"user_id": uid, "course_id": course_id, "exercise_id": exercise.id, "best_score": best, "attempts_used": len(chosen),
                         "solved_at": solved, "last_attempt_at": at, "hints_used": rng.choice((0, 0, 0, 1, 2))})  # fmt: skip
    _insert(VariantRow.__table__, variants)
    _insert(Progress.__table__, progress)
    _insert(Attempt.__table__, rows)
    _record_wrong_parts(course_id, exercise.id)
    return len(rows)


def _record_wrong_parts(course_id: int, exercise_id: str) -> None:
    """The wrong_parts rows of the course's attempts on the exercise, as the service writes them with each attempt."""
    table = Attempt.__table__
    stored: list[Any] = list(db.session.execute(
        sa.select(table.c.id, table.c.user_id, table.c.course_id, table.c.exercise_id, table.c.answers, table.c.results)
        .where(table.c.exercise_id == exercise_id, table.c.course_id == course_id)).mappings())  # fmt: skip
    for start in range(0, len(stored), CHUNK):
        wrong_parts.record(db.session.connection(), stored[start:start + CHUNK])


def _code_class(course_id: int, exercise: Exercise, users: list[int], plan: Plan, rng: random.Random) -> int:
    attempts = plan.attempts
    stored = exercises.current_version(exercise.id)
    assert stored is not None
    stub = exercises.code_spec_of(stored).stub
    progress, rows = [], []
    for uid in users:
        if rng.random() > plan.code_share:
            continue
        tries, at, best, solved = rng.randint(1, max(1, attempts // 2)), START + timedelta(days=rng.randint(0, 60)), 0.0, None
        for number in range(1, tries + 1):
            at += timedelta(minutes=rng.randint(1, 30))
            score = 1.0 if number == tries and rng.random() < 0.7 else rng.choice((0.0, 0.25, 0.5))
            best, solved = max(best, score), solved or (at if score >= 1 else None)
            source = stub + f"    # attempt {number} by learner {uid}\n" + "    x = 0  # working\n" * rng.randint(5, 30)
            cases = [{"name": f"case {c}", "status": "passed" if score >= 1 or c < 2 else "failed",
                      "message": "" if score >= 1 or c < 2 else "the returned array differs from the expected one",
                      "printed": "", "printed_dropped": 0} for c in range(5)]  # fmt: skip
            result = {"status": "passed" if score >= 1 else "failed", "score": score, "cases": cases,
                      "message": "" if score >= 1 else "2 of 5 cases failed", "misconception": None, "duration_ms": 180.0}
            rows.append({"user_id": uid, "course_id": course_id, "exercise_id": exercise.id, "version": exercise.current_version, "seed": number,
                         "source": source, "source_hash": answers_digest({"source": source}), "status": "graded",
                         "result": result, "feedback": {"message": None}, "score": score, "number": number, "late": False,
                         "attempts_claimed": 1, "created_at": at, "graded_at": at, "grading_ms": 180.0})  # fmt: skip
        progress.append({"user_id": uid, "course_id": course_id, "exercise_id": exercise.id, "best_score": best, "attempts_used": tries,
                         "solved_at": solved, "last_attempt_at": at, "hints_used": 0})  # fmt: skip
    _insert(Progress.__table__, progress)
    _insert(Submission.__table__, rows)
    return len(rows)


def migrate(url: str) -> None:
    """Bring the empty database at `url` to the newest schema and sync the shipped exercises into it."""
    from load_stack import flask

    env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "c" * 64, "GRADER_RATELIMIT_ENABLED": "false",
           "GRADER_LOG_LEVEL": "warning"}  # fmt: skip
    flask(env, "db", "upgrade")
    flask(env, "exercises", "sync")


def analyze() -> None:
    """Fresh planner statistics, as autovacuum (PostgreSQL) or `PRAGMA optimize` would have by the time a class is this big."""
    if db.engine.dialect.name == "postgresql":
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(sa.text("VACUUM ANALYZE"))
    else:
        db.session.execute(sa.text("ANALYZE"))
        db.session.commit()


def prepare(url: str, learners: int, attempts: int) -> dict[str, int]:
    """Migrate, sync and build a class of `learners` in the `default` course on the database at `url`; row counts."""
    from grader import create_app

    migrate(url)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        counts = build(learners, attempts)
        analyze()
        db.engine.dispose()
    return counts
