"""The job queue for code grading: Celery on Redis when GRADER_BROKER_URL is set.

Start workers with `celery -A grader.tasks worker --concurrency 2`. Each worker process grades in
its own warm sandbox pool. Delivery is at least once (acks_late + reject_on_worker_lost: a job
whose worker dies is delivered again); recording a result is idempotent (only a pending
submission becomes graded), so a second delivery changes nothing. `reap` re-enqueues submissions
left pending (for example while Redis was down) and fails those past the deadline.
"""

from __future__ import annotations

import logging
import os
from datetime import timedelta
from typing import Any

from celery import Celery
from celery.signals import worker_init

from grader.config import broker_url
from grader.environment import whole_number

log = logging.getLogger(__name__)

# A job left unacknowledged by a worker that died is put back after this many seconds, but only
# when a worker starts or on kombu's own slow scan (about every 100 s); the reaper re-sends
# pending submissions sooner. Grading takes seconds, so 60 s never re-runs a live job.
VISIBILITY_TIMEOUT = whole_number(os.environ, "GRADER_VISIBILITY_TIMEOUT", 60, 1, 86400)

celery = Celery("grader", broker=broker_url() or "memory://", set_as_current=False)
celery.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_ignore_result=True,
    # max_retries 0: with Redis down, publishing fails at once instead of holding a web worker for
    # seconds; the submission is stored and the reaper sends it later.
    broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT, "max_retries": 0},
    broker_connection_retry_on_startup=True,
    task_default_queue="grading",
)
_app: Any = None


def flask_app() -> Any:
    """One Flask app per worker process, for the database session."""
    global _app
    if _app is None:
        from grader import create_app

        _app = create_app()
    return _app


@worker_init.connect
def _refuse_another_releases_database(**_: Any) -> None:
    """A worker starts only against a database at this release's migrations (grader/schema_version.py)."""
    from grader.schema_version import refuse_to_start

    refuse_to_start(flask_app().config["SQLALCHEMY_DATABASE_URI"])


@celery.task(name="grader.grade_submission", acks_late=True, reject_on_worker_lost=True)
def grade_submission(submission_id: int) -> None:
    """Grade one submission in this worker's warm sandbox pool."""
    from grader.sandbox import default_pool
    from grader.services.submissions import grade_safely

    with flask_app().app_context():
        grade_safely(submission_id, default_pool)


def enqueue(submission_id: int) -> bool:
    """Send a grading job; False when the broker cannot be reached (the reaper sends it later)."""
    try:
        grade_submission.apply_async((submission_id,), retry=False)
    except Exception as exc:  # noqa: BLE001 - any broker failure means "not queued yet", never a 500
        # The type only: a broker error can quote the broker URL, password included.
        log.warning("submission %d not queued (%s); the reaper sends it later", submission_id, type(exc).__name__)
        return False
    return True


def queued() -> bool:
    """True when code grading goes through the queue rather than the in-process pool."""
    return celery.conf.broker_url not in (None, "", "memory://")


REAP_AFTER = timedelta(seconds=whole_number(os.environ, "GRADER_REAP_AFTER_SECONDS", 120, 0, 86400))
DEADLINE = timedelta(seconds=whole_number(os.environ, "GRADER_GRADING_DEADLINE_SECONDS", 1800, 1, 7 * 86400))


@celery.task(name="grader.send_lti_scores", acks_late=True)
def send_lti_scores() -> None:
    """Send the LTI scores that are due (grader.lti.outbox); what fails waits there for the next pass."""
    from grader.lti.outbox import deliver_due

    with flask_app().app_context():
        deliver_due()


def send_scores() -> bool:
    """Ask a worker to send due LTI scores; False when the broker cannot be reached (the reaper sends them)."""
    try:
        send_lti_scores.apply_async(retry=False)
    except Exception as exc:  # noqa: BLE001 - the scores wait in the outbox either way
        log.warning("LTI scores not queued (%s); the reaper sends them", type(exc).__name__)
        return False
    return True
