"""Code submissions: store first, grade in the sandbox pool, record the verdict once.

A submission is committed as `pending` before anything runs, so an accepted upload is never lost.
Grading happens on a small bounded thread pool in this process whose threads only wait on the
sandbox (learner code never runs here); the request waits a few seconds for it, then shows a
pending page that refreshes. Results are written idempotently: only a pending submission becomes
graded, so a second delivery of the same job changes nothing.

A pending submission uses an attempt from the moment it is stored: grading may wait minutes (a
slow pool, Redis down), and each one is credited when its verdict arrives. So the attempt limit
counts graded and pending submissions together, read under the learner's progress lock that
recording a verdict takes too, as typed attempts do (services/attempts.py).
"""

from __future__ import annotations

import secrets
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, cast

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.exc import SQLAlchemyError

from grader.adaptive import evidence
from grader.catalog.spec import CODE_KIND
from grader.code_grading import Runner, grade_code, read_source
from grader.catalog.policy import AttemptPolicy, attempts_left
from grader.codecheck.results import CodeResult
from grader.codecheck.spec import CodeExerciseSpec
from grader import tasks
from grader.extensions import db
from grader.models import Exercise, utcnow
from grader.code_models import Submission
from grader.sandbox import SandboxUnavailable, default_pool
from grader.services import code_drafts, mastery, progress
from grader.texts import say
from grader.services.attempts import ensure_open, progress_of
from grader.services.course_content import uses
from grader.services.courses import Seat, has_ended
from grader.services.course_rules import for_learner, in_course, opens_in
from grader.services.exercises import (UnknownExercise, code_spec_of, current_version, published, source_hash, spec_of,
                                       version)

WAIT_SECONDS = 3.0
NO_SANDBOX = say("Not graded: code grading is not available on this server. This try was not counted.")
TOO_LATE = say("Not graded: the grading service did not answer in time. This try was not counted.")
GRADER_FAILED = say("Not graded: the grader failed on this submission. This try was not counted.")
# The web page's own refusal, so the sentence is translated already.
LIMIT_REACHED = say("You have used all your attempts for this exercise.")
GAVE_UP = say("You gave up on this exercise, so this run was not counted.")
MAX_UPLOAD_READ = 64 * 1024 + 1  # one byte more than allowed, to tell "too large" apart
_executor: ThreadPoolExecutor | None = None


class NotCodeExercise(LookupError):
    """The exercise takes typed answers, not code."""


@dataclass(frozen=True)
class Submitted:
    """A stored submission and whether it was new."""

    submission: Submission
    new: bool


def _code_exercise(seat: Seat, exercise_id: str, early: bool = False) -> Exercise:
    """The code exercise of the seat's course; its opening date is checked first, so one not open yet says
    nothing about its kind."""
    exercise = published(exercise_id)
    if not uses(seat.course_id, exercise_id):
        raise UnknownExercise(exercise_id)
    ensure_open(opens_in(seat.course_id, exercise), early)
    if exercise.kind != CODE_KIND:
        raise NotCodeExercise(exercise_id)
    return exercise


class GaveUp(RuntimeError):
    """The learner gave up on the exercise (and saw its solution), or the course has ended: no run counts any
    more."""


class AttemptsUsed(RuntimeError):
    """The learner has no attempts left on this exercise."""


def create(seat: Seat, exercise_id: str, raw: bytes | str, early: bool = False) -> Submitted:
    """Check and store a submission as pending (the same source twice is stored once).

    Raises NotOpen before the exercise's opening date unless `early`, and AttemptsUsed when the
    learner's graded and pending submissions already reach the limit. Both checks are read under
    the learner's progress lock, so concurrent uploads cannot both slip under the limit.
    """
    _code_exercise(seat, exercise_id, early)
    source = read_source(raw)
    stored = current_version(exercise_id)
    assert stored is not None
    digest = source_hash(source)
    mine = progress.lock(seat, exercise_id)  # the write that serialises this learner's submissions
    same = db.session.scalar(sa.select(Submission).where(
        Submission.user_id == seat.user_id, Submission.course_id == seat.course_id,
        Submission.exercise_id == exercise_id, Submission.version == stored.version, Submission.source_hash == digest))  # fmt: skip
    if same is not None:  # not a new attempt, so never refused: it shows the one that counts
        db.session.rollback()
        code_drafts.forget(seat, exercise_id)
        db.session.commit()
        return Submitted(same, False)
    if mine.gave_up_at is not None or has_ended(seat.course_id):
        db.session.rollback()
        raise GaveUp(exercise_id)
    if attempts_left(in_course(code_spec_of(stored), seat.course_id, exercise_id).max_attempts, _taken(mine)) == 0:
        db.session.rollback()
        raise AttemptsUsed(exercise_id)
    row = Submission(user_id=seat.user_id, course_id=seat.course_id, exercise_id=exercise_id, version=stored.version,
                     seed=secrets.randbelow(2**31 - 1) + 1, source=source, source_hash=digest)  # fmt: skip
    db.session.add(row)
    code_drafts.forget(seat, exercise_id)  # the code sent is what the editor shows now
    db.session.commit()
    return Submitted(row, True)


def _pending(seat: Seat, exercise_id: str) -> int:
    """How many of the learner's submissions on the exercise in the seat's course are waiting for a verdict."""
    return db.session.scalar(sa.select(sa.func.count()).select_from(Submission).where(
        Submission.user_id == seat.user_id, Submission.course_id == seat.course_id,
        Submission.exercise_id == exercise_id, Submission.status == "pending")) or 0  # fmt: skip


def _taken(mine: progress.Standing) -> int:
    """Attempts used on a locked progress row, counting pending submissions: each will count once graded."""
    return mine.attempts_used + _pending(mine.seat, mine.exercise_id)


def grade_pending(submission_id: int, runner: Runner) -> Submission | None:
    """Grade one pending submission and record the verdict; a graded one is left as it is."""
    row = db.session.get(Submission, submission_id)
    if row is None or row.status != "pending":
        return row
    stored = version(row.exercise_id, row.version)
    assert stored is not None
    spec = for_learner(code_spec_of(stored), Seat(row.course_id, row.user_id))
    source, seed = row.source, row.seed
    db.session.rollback()  # hold no transaction open while the sandbox runs
    return record(submission_id, grade_code(spec, source, seed, runner), spec)


def record(submission_id: int, result: CodeResult, spec: CodeExerciseSpec | None = None) -> Submission | None:
    """Store a verdict exactly once, with the learner's progress and what it shows of the learner's skills (the
    exercise's `spec`, as graded: None for a verdict of no grading, which shows nothing), in one transaction.

    A submission is late by when it was sent, however long it waited for grading. A verdict never
    takes attempts_used past the exercise's current max_attempts: a submission accepted before an
    instructor lowered the limit, arriving when the counted attempts already reach it, is stored
    as failed with that reason, uncounted and without its cases (the limit also bounds feedback).
    """
    row = db.session.get(Submission, submission_id)
    if row is None or row.status != "pending":
        return row
    mine = progress.lock(Seat(row.course_id, row.user_id), row.exercise_id)
    claimed = cast(sa.CursorResult[Any], db.session.execute(sa.update(Submission).where(
        Submission.id == submission_id, Submission.status == "pending").values(status="graded")))  # fmt: skip
    if claimed.rowcount != 1:  # graded meanwhile by another delivery
        db.session.rollback()
        return db.session.get(Submission, submission_id)
    if result.counted and _limit_reached(mine):
        result = CodeResult("invalid", 0.0, text=LIMIT_REACHED, duration_ms=result.duration_ms)
    elif result.counted and mine.gave_up_at is not None:  # sent before giving up, graded after: the solution was seen
        result = CodeResult("invalid", 0.0, text=GAVE_UP, duration_ms=result.duration_ms)
    policy = spec or AttemptPolicy()
    if result.counted:
        row.number, row.score = progress.credit(mine, result.score, policy, row.created_at)
        row.late = policy.is_late(row.created_at)
    else:
        row.status = "failed"
    row.result, row.feedback = result.to_json(), result.texts_json()
    row.grading_ms, row.graded_at = result.duration_ms, utcnow()
    # At the verdict's time, so a replay keeps it where the live update put it; code sent again once the exercise is
    # solved (a comment added, say) is no new opportunity.
    if spec is not None and mine.solved_at is None:
        mastery.record(mine.seat, row.exercise_id, evidence.of_code(spec, result, row.graded_at))
    db.session.commit()
    return row


def _limit_reached(mine: progress.Standing) -> bool:
    """Whether a locked progress row has no attempt left under the exercise's limit as it stands now."""
    stored = current_version(mine.exercise_id)
    if stored is None:
        return False
    # An instructor may have saved the id as a typed exercise since; its limit then applies.
    spec = code_spec_of(stored) if stored.exercise.kind == CODE_KIND else spec_of(stored)
    spec = in_course(spec, mine.seat.course_id, mine.exercise_id)
    return attempts_left(spec.max_attempts, mine.attempts_used) == 0


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="grading")
    return _executor


def grade_safely(submission_id: int, runner_factory: Callable[[], Runner]) -> Submission | None:
    """grade_pending, with any failure of grading itself recorded once as an uncounted verdict.

    The same source and seed fail the same way on every try, so re-sending such a job would only
    repeat it until the deadline. A database error is the one exception: it leaves the submission
    pending, and the reaper sends it again once the database is back.
    """
    try:
        return grade_pending(submission_id, runner_factory())
    except SQLAlchemyError:
        raise
    except SandboxUnavailable as error:  # an operator problem: say so, count nothing
        current_app.logger.error("code grading is unavailable: %s", error)
        text = NO_SANDBOX
    except Exception:  # noqa: BLE001 - a fault of ours, whatever it is, must not leave the learner waiting
        current_app.logger.exception("grading submission %s failed", submission_id)
        text = GRADER_FAILED
    db.session.rollback()
    return record(submission_id, CodeResult("invalid", 0.0, text=text))


def grade_in_background(app: Flask, submission_id: int, runner_factory: Callable[[], Runner]) -> Future:
    """Queue grading on this process's bounded pool; returns a future that finishes with it."""

    def job() -> None:
        with app.app_context():
            try:
                grade_safely(submission_id, runner_factory)
            except Exception:  # the database is down: the submission stays pending for the reaper
                app.logger.exception("could not record the grading of submission %s", submission_id)
                raise

    return _pool().submit(job)


def dispatch(app: Flask, submission_id: int) -> bool:
    """Start grading on the Celery queue when a broker is set, else on the local pool.

    False when the job could not be sent (Redis down): it stays pending and the reaper sends it.
    """
    if tasks.queued():
        return tasks.enqueue(submission_id)
    grade_in_background(app, submission_id, default_pool)
    return True


def wait_until_graded(submission_id: int, seconds: float = WAIT_SECONDS) -> Submission | None:
    """Poll the submission for up to `seconds` (whoever grades it); returns it as it then stands."""
    deadline = time.monotonic() + seconds
    while True:
        db.session.rollback()  # see other transactions' commits
        row = db.session.get(Submission, submission_id)
        if row is None or row.status != "pending" or time.monotonic() >= deadline:
            return row
        time.sleep(0.05)


@dataclass
class Reaped:
    """What one pass of the reaper did."""

    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def reap(app: Flask, now: datetime | None = None) -> Reaped:
    """Send again submissions pending past REAP_AFTER; fail those past the DEADLINE with a reason."""
    now = now or utcnow()
    report = Reaped()
    stale = db.session.scalars(sa.select(Submission.id).where(
        Submission.status == "pending", Submission.created_at < now - tasks.REAP_AFTER)).all()  # fmt: skip
    for submission_id in stale:
        row = db.session.get(Submission, submission_id)
        if row is None or row.status != "pending":
            continue
        if row.created_at < now - tasks.DEADLINE:
            record(submission_id, CodeResult("invalid", 0.0, text=TOO_LATE))
            report.failed.append(submission_id)
            continue
        row.attempts_claimed += 1
        db.session.commit()
        dispatch(app, submission_id)
        report.requeued.append(submission_id)
    return report


def left_for(seat: Seat, exercise_id: str, max_attempts: int | None) -> int | None:
    """Attempts left on the exercise for this learner in the seat's course, pending submissions counted as used
    (None when unlimited)."""
    mine = progress_of(seat, exercise_id)
    return attempts_left(max_attempts, (mine.attempts_used if mine else 0) + _pending(seat, exercise_id))


def history(seat: Seat, exercise_id: str) -> list[Submission]:
    """The learner's submissions on an exercise in the seat's course, newest first."""
    return list(db.session.scalars(
        sa.select(Submission).where(Submission.user_id == seat.user_id, Submission.course_id == seat.course_id,
                                    Submission.exercise_id == exercise_id)
        .order_by(Submission.id.desc())
    ))  # fmt: skip
