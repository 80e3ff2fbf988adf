"""Upgrades lose nothing: the release before wrong_parts, run against the new schema, loses no wrong part
once `flask repair` has run; and a release refuses to serve a database at another release's migrations.

The old release is its own code, taken from git (3112da2, the last commit before the wrong_parts table),
run in a process of its own against a database migrated to this release's head.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader import create_app
from grader.extensions import db
from grader.schema_version import code_heads, refuse_to_start
from tests.web.conftest import empty_database
from tests.web.test_app import flask_cli, store_attempts

ROOT = Path(__file__).resolve().parents[2]
BEFORE_WRONG_PARTS = "3112da2"
WRONG = {"mu": "5.000", "sigma": "7.000", "u": "[1.000; 2.000; 3.000; 4.000]"}
# Run by the old release: a learner answers wrong through its API, and is then regraded.
OLD_RELEASE = """
import json, sys
from grader import create_app
from grader.extensions import db
from grader.services import accounts
app = create_app({"RATELIMIT_ENABLED": False})
with app.app_context():
    token = accounts.create_token(accounts.create_user("old@example.com", "a long enough password"), "t")
    db.session.commit()
reply = app.test_client().post("/api/v1/exercises/block-layernorm/attempts", json={"answers": json.loads(sys.argv[1])},
                               headers={"Authorization": "Bearer " + token})
print(reply.status_code)
"""


def _old_release(tmp_path: Path) -> Path:
    """The release before wrong_parts, unpacked from git."""
    archive = subprocess.run(["git", "archive", BEFORE_WRONG_PARTS, "grader", "exercises", "wsgi.py"], cwd=ROOT,
                             capture_output=True, timeout=60)  # fmt: skip
    if archive.returncode != 0:
        pytest.skip(f"{BEFORE_WRONG_PARTS} is not in this clone's history")  # a shallow clone
    target = tmp_path / "old"
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter="data")
    return target


def _attempts_and_rows(url: str) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    engine = sa.create_engine(url)
    with engine.connect() as connection:
        attempts = [dict(a) for a in connection.execute(sa.text(
            "SELECT id, user_id, exercise_id, answers, results FROM attempts ORDER BY id")).mappings()]
        rows = [dict(r) for r in connection.execute(sa.text(
            "SELECT attempt_id, part, exercise_id, user_id, typed, misconception FROM wrong_parts"
            " ORDER BY attempt_id, part")).mappings()]  # fmt: skip
    engine.dispose()
    for attempt in attempts:  # SQLite hands JSON back as text
        for key in ("answers", "results"):
            if isinstance(attempt[key], str):
                attempt[key] = json.loads(attempt[key])
    return attempts, rows


def test_the_old_release_on_the_new_schema_stores_nothing_half_written(tmp_path: Path) -> None:
    # Since courses, learner work is keyed by its course, which the release before wrong_parts does not know:
    # an attempt it takes is refused whole (a 503, nothing stored), never kept without its course or its
    # wrong parts. The schema check keeps such a release from starting at all (the test below).
    old = _old_release(tmp_path)
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0  # this release's schema
        # The old release's own file of the exercise it answers: it cannot read this release's (which names skills,
        # a field it does not know), and a release's files are synced by that release.
        own = tmp_path / "own"
        own.mkdir()
        (own / "block-layernorm.yaml").write_bytes((old / "exercises/gpt2-block/block-layernorm.yaml").read_bytes())
        assert flask_cli("exercises", "sync", env={**env, "GRADER_EXERCISES_DIR": str(own)}).returncode == 0
        served = subprocess.run([sys.executable, "-c", OLD_RELEASE, json.dumps(WRONG)], cwd=old,
                                env={**env, "PYTHONPATH": str(old)}, capture_output=True, text=True, timeout=120)  # fmt: skip
        assert served.stdout.strip() == "503", served.stderr
        assert _attempts_and_rows(url) == ([], [])
        assert flask_cli("repair", env=env).stdout.strip() == "repaired the wrong parts of 0 attempts"


def test_repair_rewrites_rows_an_old_regrade_left_stale(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        engine = sa.create_engine(url)
        with engine.begin() as connection:
            # The verdict now says b is wrong (an old release regraded it), the rows still say a.
            store_attempts(connection, [{"id": 1, "user_id": 1, "exercise_id": "e", "answers": {"a": "1", "b": "2"},
                                         "results": {"a": {"status": "correct"},
                                                     "b": {"status": "incorrect", "misconception": "m"}}}],
                           course=1)  # fmt: skip
            connection.execute(sa.text("INSERT INTO wrong_parts (attempt_id, part, exercise_id, course_id, user_id,"
                                       " typed) VALUES (1, 'a', 'e', 1, 1, '1')"))  # fmt: skip
        engine.dispose()
        assert flask_cli("repair", env=env).stdout.strip() == "repaired the wrong parts of 1 attempts"
        assert _attempts_and_rows(url)[1] == [{"attempt_id": 1, "part": "b", "exercise_id": "e", "user_id": 1,
                                               "typed": "2", "misconception": "m"}]  # fmt: skip


def _stamp(url: str, revision: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    engine.dispose()


@pytest.mark.parametrize(("revision", "state"), [("a8c4e6f1b2d3", "behind"), ("f00dfeedbeef", "ahead")])
def test_a_release_refuses_a_database_at_another_releases_migrations(tmp_path: Path, revision: str,
                                                                     state: str) -> None:  # fmt: skip
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "k" * 32})
        client = app.test_client()
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.get_json()["schema"] == "ok"
        refuse_to_start(url)  # at the head: starts

        _stamp(url, revision)  # half an upgrade (behind), or a newer release migrated it (ahead)
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.get_json()["status"] == "unavailable" and ready.get_json()["schema"] == state
        with pytest.raises(SystemExit, match="grader refuses to start: the database"):
            refuse_to_start(url)
        with app.app_context():
            db.engine.dispose()


@pytest.mark.parametrize("command", [["gunicorn", "-c", "gunicorn.conf.py", "wsgi:app"],
                                     ["celery", "-A", "grader.tasks", "worker", "--concurrency", "1", "-Q", "grading"]],
                         ids=["gunicorn", "celery worker"])  # fmt: skip
def test_the_web_and_the_worker_refuse_to_start_on_a_database_behind_this_release(tmp_path: Path,
                                                                                  command: list[str]) -> None:  # fmt: skip
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32,
               "GRADER_BIND": "127.0.0.1:0"}  # fmt: skip
        env.pop("GRADER_BROKER_URL", None)  # the worker's broker is then in memory: nothing else needed
        assert flask_cli("db", "upgrade", "a8c4e6f1b2d3", env=env).returncode == 0
        started = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, env=env, capture_output=True,
                                 text=True, timeout=120)  # fmt: skip
        assert started.returncode != 0
        assert f"behind this release's migrations (head {', '.join(code_heads())})" in started.stderr
