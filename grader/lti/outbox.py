"""Grade passback (AGS): scores written to an outbox with the attempt, sent to the line item after commit.

Every grade change (grader.grade_events: an attempt, a graded submission, a score set or removed by
hand, a regrade, an extension) adds one row per line item the learner was launched into (for the
exercise, or for its lesson) whose score it changes, in the change's own transaction: so a score is
never lost, and a platform that is down costs the learner nothing. After commit a
background thread (or the Celery worker, when a broker is set) sends what is due; `flask --app wsgi
submissions reap` on its timer sends whatever is left. A failed send is tried again with backoff,
for as long as it takes. Scores carry their timestamp and the platform keeps the latest, so sending
one twice changes nothing, and an older row still waiting is dropped once a newer one exists.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
import sqlalchemy as sa
from flask import Flask, current_app
from pylti1p3.exception import LtiServiceException
from pylti1p3.service_connector import ServiceConnector

from grader.extensions import db
from grader.lti import platforms
from grader.lti.keys import app_key
from grader.lti.models import GradeLink, LtiAccount, OutgoingScore, Platform
from grader.services import course_content
from grader.models import PUBLISHED, Exercise, Progress, utc_text, utcnow

log = logging.getLogger("grader.lti")
MAX_POINTS = 100.0  # every line item we create is out of 100: a learner's score (0 to 1) as a percentage
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LEASE = timedelta(minutes=2)  # a row being sent is left alone by other senders this long
MAX_BACKOFF = timedelta(hours=1)
_sender: ThreadPoolExecutor | None = None


def _scores(course_id: int, user_id: int, exercise_ids: list[str]) -> tuple[float, bool]:
    """The learner's mean score over these exercises in the course (0 for one not attempted), and whether all are
    solved."""
    rows = db.session.execute(sa.select(Progress.best_score, Progress.override_score, Progress.solved_at).where(
        Progress.course_id == course_id, Progress.user_id == user_id,
        Progress.exercise_id.in_(exercise_ids))).all()  # fmt: skip
    total = sum(best if override is None else override for best, override, _ in rows)
    solved = len(rows) == len(exercise_ids) and all(at is not None for _, _, at in rows)
    return total / max(len(exercise_ids), 1), solved


def _target_exercises(course_id: int, target: str) -> list[str]:
    """The exercises a line item's score is the mean of: the exercise, or the lesson's published ones that the
    course uses (as the gradebook counts them)."""
    kind, _, name = target.partition(":")
    if kind == "lesson":
        return list(db.session.scalars(sa.select(Exercise.id).where(
            Exercise.lesson == name, Exercise.status == PUBLISHED,
            course_content.offered(Exercise.__table__, sa.literal(course_id)))))  # fmt: skip
    return [name]


_LESSON_TARGET = sa.literal("lesson:") + sa.select(Exercise.lesson).where(
    Exercise.id == sa.bindparam("exercise_id")).scalar_subquery()
_LINKS = sa.select(GradeLink).where(  # built once: it runs on every attempt that changes a score
    GradeLink.user_id == sa.bindparam("user_id"), GradeLink.course_id == sa.bindparam("course_id"),
    GradeLink.target.in_([sa.literal("exercise:") + sa.bindparam("exercise_id"), _LESSON_TARGET]))


def _last_queued(link_id: int) -> tuple[float, str] | None:
    row = db.session.execute(sa.select(OutgoingScore.score_given, OutgoingScore.activity_progress).where(
        OutgoingScore.link_id == link_id).order_by(OutgoingScore.id.desc()).limit(1)).first()  # fmt: skip
    return None if row is None else (row[0], row[1])


def queue_scores(course_id: int, user_id: int, exercise_id: str) -> None:
    """The grade listener (grader.grade_events): inside the transaction that changed the learner's grade, queue
    their score for each line item it counts towards, unless it is the score queued last. Sending starts once
    the transaction commits. A line item belongs to the course it was launched in: a grade in another course
    of the same learner is not its."""
    links = db.session.scalars(_LINKS, {"user_id": user_id, "course_id": course_id,
                                        "exercise_id": exercise_id}).all()  # one query  # fmt: skip
    if not links:
        return
    now = utcnow()
    queued = False
    for link in links:
        score, solved = _scores(course_id, user_id, _target_exercises(course_id, link.target))
        given, progress = round(score * MAX_POINTS, 4), "Completed" if solved else "Submitted"
        if _last_queued(link.id) == (given, progress):  # an extension, or a regrade that changed nothing here
            continue
        db.session.add(OutgoingScore(
            link_id=link.id, score_given=given, score_maximum=MAX_POINTS, activity_progress=progress,
            grading_progress="FullyGraded", scored_at=now, next_try_at=now))  # fmt: skip
        queued = True
    if queued:
        sa.event.listen(db.session(), "after_commit", _send_soon, once=True)


def _send_soon(_session: Any) -> None:
    """After the commit: send on the Celery queue when there is one, else on a thread of this process."""
    from grader import tasks

    if tasks.queued() and tasks.send_scores():
        return
    global _sender
    if _sender is None:
        _sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lti-scores")
    _sender.submit(_deliver_in, current_app._get_current_object())  # type: ignore[attr-defined]


def _deliver_in(app: Flask) -> None:
    with app.app_context():
        try:
            deliver_due()
        except Exception:  # noqa: BLE001 - the rows stay in the outbox; the reaper sends them
            log.exception("sending LTI scores failed; the reaper tries again")


def scores_url(lineitem: str) -> str:
    """The line item's scores endpoint: /scores after its path, its query kept (AGS 3.4)."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


@dataclass
class Delivered:
    """What one pass of the sender did."""

    sent: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    superseded: list[int] = field(default_factory=list)


def _backoff(tries: int) -> timedelta:
    return min(timedelta(seconds=30 * 2 ** min(tries - 1, 10)), MAX_BACKOFF)


def _claim(row_id: int, now: datetime) -> bool:
    """Take a due row for this sender for LEASE; False when another sender has it or it is sent."""
    claimed = db.session.execute(sa.update(OutgoingScore).where(
        OutgoingScore.id == row_id, OutgoingScore.sent_at.is_(None), OutgoingScore.next_try_at <= now,
    ).values(next_try_at=now + LEASE))  # fmt: skip
    db.session.commit()
    return getattr(claimed, "rowcount", 0) == 1


def _newer_waiting(row: OutgoingScore) -> bool:
    return db.session.scalar(sa.select(OutgoingScore.id).where(
        OutgoingScore.link_id == row.link_id, OutgoingScore.id > row.id, OutgoingScore.sent_at.is_(None)
    ).limit(1)) is not None  # fmt: skip


def _send(row: OutgoingScore, connectors: dict[int, ServiceConnector]) -> None:
    """POST one score to its line item; raises on any failure."""
    link = db.session.get(GradeLink, row.link_id)
    account = db.session.get(LtiAccount, link.account_id) if link else None
    platform = db.session.get(Platform, link.platform_id) if link else None
    if link is None or account is None or platform is None:
        raise LookupError("the grade link is gone")
    if platform.id not in connectors:
        connectors[platform.id] = ServiceConnector(platforms.registration(platform, app_key()), platforms.TimedSession())
    score = {"userId": account.subject, "scoreGiven": row.score_given, "scoreMaximum": row.score_maximum,
             "activityProgress": row.activity_progress, "gradingProgress": row.grading_progress,
             "timestamp": utc_text(row.scored_at)}  # fmt: skip
    connectors[platform.id].make_service_request([SCORE_SCOPE], scores_url(link.lineitem), is_post=True,
                                                 data=json.dumps(score), content_type=SCORE_TYPE)  # fmt: skip


def deliver_due(now: datetime | None = None, limit: int = 200) -> Delivered:
    """Send the scores that are due, oldest first; a failure is kept with its next try further off."""
    now = now or utcnow()
    done = Delivered()
    connectors: dict[int, ServiceConnector] = {}
    due = db.session.scalars(sa.select(OutgoingScore.id).where(
        OutgoingScore.sent_at.is_(None), OutgoingScore.next_try_at <= now).order_by(OutgoingScore.id).limit(limit)).all()
    for row_id in due:
        if not _claim(row_id, now):
            continue
        row = db.session.get(OutgoingScore, row_id)
        assert row is not None
        if _newer_waiting(row):  # the platform keeps the latest score: this one would be overwritten at once
            row.sent_at, row.last_error = utcnow(), "superseded"
            done.superseded.append(row_id)
        else:
            try:
                _send(row, connectors)
                row.sent_at, row.last_error = utcnow(), None
                done.sent.append(row_id)
            except (LtiServiceException, requests.RequestException, LookupError, ValueError) as error:
                row.tries += 1
                row.next_try_at, row.last_error = utcnow() + _backoff(row.tries), platforms.failure(error)
                log.warning("LTI score %d not sent (try %d): %s", row_id, row.tries, row.last_error)
                done.failed.append(row_id)
        db.session.commit()
    return done


def waiting() -> int:
    """How many scores are not sent yet."""
    return db.session.scalar(sa.select(sa.func.count()).select_from(OutgoingScore)
                             .where(OutgoingScore.sent_at.is_(None))) or 0  # fmt: skip
