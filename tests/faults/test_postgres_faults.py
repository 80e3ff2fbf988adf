"""PostgreSQL stopping and restarting under load, and a database that refuses writes.

Only with GRADER_TEST_DATABASE_URL set to a postgresql URL (SQLite's read-only case is in
tests/web/test_app.py). The restart test stops the whole cluster for about two seconds
(`pg_ctlcluster`, as root): run it on a test machine, not beside a database people are using.
GRADER_TEST_PG_CLUSTER names the cluster (default "15 main").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections import Counter
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.models import Attempt, Progress
from grader.code_models import Submission
from grader.web.errors import DATABASE_DOWN, READ_ONLY
from tests.faults.conftest import (ATTEMPTS, EXERCISE, Load, check_consistent, make_learners, post_attempt,
                                   random_answers, stored)
from tests.layer_norm_sources import GOOD
from tests.queue.support import wait_for
from tests.web.api_support import auth
from tests.web.conftest import csrf_from, login

SERVER = os.environ.get("GRADER_TEST_DATABASE_URL", "")
CLUSTER = os.environ.get("GRADER_TEST_PG_CLUSTER", "15 main").split()

needs_postgres = pytest.mark.skipif(
    not SERVER.startswith("postgresql"),
    reason="PostgreSQL only (GRADER_TEST_DATABASE_URL); SQLite read-only is tested in tests/web/test_app.py",
)


def cluster(action: str, *extra: str) -> None:
    subprocess.run(["pg_ctlcluster", *CLUSTER, action, *extra], check=True, capture_output=True, timeout=60)


def accepting() -> bool:
    engine = sa.create_engine(SERVER)
    try:
        with engine.connect() as connection:
            return connection.scalar(sa.text("SELECT 1")) == 1
    except sa.exc.OperationalError:
        return False
    finally:
        engine.dispose()


@needs_postgres
@pytest.mark.alone
@pytest.mark.skipif(shutil.which("pg_ctlcluster") is None or os.geteuid() != 0,
                    reason="stopping the cluster needs pg_ctlcluster and root")  # fmt: skip
def test_a_postgres_restart_under_load_gives_503s_then_recovers_without_restarting_gunicorn(
        app: Flask, serve: Any) -> None:  # fmt: skip
    learners = make_learners(app, 5)
    server = serve(workers=3)
    workers = set(server.worker_pids())
    with Load(server.port, learners, threads=8) as load:
        wait_for(lambda: load.count() >= 30, 20, "the load to get going")
        try:
            stopped = time.monotonic()
            cluster("stop", "-m", "fast")
            time.sleep(2.0)
        finally:
            cluster("start")
            started = time.monotonic()
        wait_for(accepting, 30, "PostgreSQL to accept connections again")
        wait_for(lambda: any(o.status == 201 and o.sent > started for o in load.outcomes), 20,
                 "a 201 after the restart")  # fmt: skip
        recovered = time.monotonic()
        time.sleep(2.0)
    outcomes = load.outcomes
    statuses = Counter(o.status for o in outcomes)
    during = [o for o in outcomes if o.answered > stopped and o.sent < started]
    unavailable = [o for o in outcomes if o.status == 503]
    print(f"\n{len(outcomes)} requests: {dict(statuses)}; answered while stopped: "
          f"{dict(Counter(o.status for o in during))}; first 201 {recovered - started:.2f} s after the start")

    assert unavailable, "the outage was not seen"
    errors = [line for line in server.output().splitlines() if "Error" in line or "error" in line][-20:]
    assert set(statuses) <= {201, 503}, (statuses, errors)  # no 500, and every request was answered
    assert all(o.body and o.body.get("error") == "unavailable" and o.body.get("message") == DATABASE_DOWN
               for o in unavailable), {o.body.get("message") for o in unavailable if o.body}  # fmt: skip
    assert all(o.status == 201 for o in outcomes if o.sent > recovered + 0.5), "failures after recovery"
    later = [post_attempt(server.port, learners[i % len(learners)]) for i in range(12)]
    assert [o.status for o in later] == [201] * 12
    assert set(server.worker_pids()) == workers, "gunicorn's workers were not restarted"
    lost = check_consistent(stored(app), outcomes + later, learners)
    assert len(lost) <= len(unavailable), "only an attempt whose commit reply was lost may be stored unseen"


@needs_postgres
def test_a_read_only_postgres_database_gives_the_read_only_503_and_stores_nothing(app: Flask) -> None:
    [learner] = make_learners(app, 1)
    api = app.test_client()
    browser = app.test_client()
    assert api.get(f"/api/v1/exercises/{EXERCISE}", headers=auth(learner.token)).status_code == 200
    login(browser, "fault0@example.com")
    page = browser.get("/exercises/block-gelu").get_data(as_text=True)  # makes the variant while writable
    with app.app_context():
        name = db.engine.url.database
        db.engine.dispose()  # connections opened from now on start read-only
    admin = sa.create_engine(SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on'))
    admin.dispose()

    attempt = api.post(ATTEMPTS, headers=auth(learner.token), json={"answers": random_answers()})
    assert attempt.status_code == 503 and attempt.get_json() == {"error": "unavailable", "message": READ_ONLY}
    code = api.post("/api/v1/exercises/code-layer-norm/submissions", headers=auth(learner.token),
                    json={"source": GOOD})  # fmt: skip
    assert code.status_code == 503 and code.get_json()["message"] == READ_ONLY
    form = browser.post("/exercises/block-gelu", data={"csrf_token": csrf_from(page), "part-neg": "0.100",
                                                       "part-pos": "0.900"})  # fmt: skip
    assert form.status_code == 503 and "read-only or full" in form.get_data(as_text=True)
    with app.app_context():
        for model in (Attempt, Submission, Progress):
            assert db.session.scalar(sa.select(sa.func.count()).select_from(model)) == 0, model.__name__
