"""Online backups of the SQLite database: consistent copies taken while attempts are being written."""

from __future__ import annotations

import os
import random
import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest
from flask import Flask

from grader import create_app
from grader.extensions import db
from grader.services import accounts
from grader.services.backup import BackupError, backup, database_file, default_target
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import SERVER_DATABASE
from tests.web.test_app import flask_cli

sqlite_only = pytest.mark.skipif(bool(SERVER_DATABASE), reason="backs up the SQLite file; PostgreSQL has pg_dump")


def answers() -> dict[str, dict[str, str]]:
    return {"answers": {"h": "[" + "; ".join(f"{random.uniform(-3, 3):.3f}" for _ in range(4)) + "]"}}


def keep_answering(app: Flask, stop: threading.Event, sent: list[int]) -> None:
    """Four learners send attempts through the API until told to stop."""
    client = app.test_client()
    tokens = [token_for(app, f"busy{i}@example.com") for i in range(4)]
    while not stop.is_set():
        response = client.post(f"{API}/exercises/block-residual/attempts", json=answers(),
                               headers=auth(random.choice(tokens)))  # fmt: skip
        sent.append(response.status_code)  # checked by the test: an assert here would only end the thread


def check_copy(path: Path) -> int:
    """The copy is whole, self-contained, private and consistent; returns its attempts."""
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not Path(f"{path}-wal").exists()
    with sqlite3.connect(path) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        counted = dict(copy.execute("SELECT user_id, attempts_used FROM progress WHERE exercise_id = 'block-residual'"))
        stored = dict(copy.execute("SELECT user_id, count(*) FROM attempts WHERE exercise_id = 'block-residual' "
                                   "GROUP BY user_id"))  # fmt: skip
    assert counted == stored  # an attempt and its progress are in the same snapshot
    return sum(stored.values())


@sqlite_only
def test_backups_taken_during_writes_are_consistent_snapshots(app: Flask, tmp_path: Path) -> None:
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    stop, sent = threading.Event(), []
    writer = threading.Thread(target=keep_answering, args=(app, stop, sent))
    writer.start()
    try:
        deadline = time.monotonic() + 60
        while len(sent) < 20 and writer.is_alive() and time.monotonic() < deadline:
            stop.wait(0.01)
        sizes = []
        for n in range(3):
            made = backup(url, tmp_path / f"copy{n}.db")
            assert made.bytes == made.path.stat().st_size > 0
            sizes.append(check_copy(made.path))
            stop.wait(0.2)
    finally:
        stop.set()
        writer.join(timeout=30)
    assert set(sent) <= {200, 201} and len(sent) >= 20
    assert 0 < sizes[0] <= sizes[1] <= sizes[2] <= sent.count(201), (sizes, len(sent))
    assert check_copy(backup(url, tmp_path / "after.db").path) == sent.count(201)


@sqlite_only
def test_a_backup_never_overwrites_and_leaves_nothing_when_refused(app: Flask, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    folder.mkdir()
    target = folder / "taken.db"
    target.write_text("someone's file")
    with pytest.raises(BackupError, match="exists already"):
        backup(app.config["SQLALCHEMY_DATABASE_URI"], target)
    not_a_database = tmp_path / "notes.db"
    not_a_database.write_text("not a database, only text " * 100)
    with pytest.raises(sqlite3.DatabaseError):
        backup(f"sqlite:///{not_a_database}", folder / "copy.db")
    assert target.read_text() == "someone's file" and [p.name for p in folder.iterdir()] == ["taken.db"]


def test_only_sqlite_files_are_backed_up_this_way(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="pg_dump"):
        database_file("postgresql+psycopg://grader@db/grader")
    with pytest.raises(BackupError, match="only a SQLite file"):
        database_file("sqlite://")
    with pytest.raises(BackupError, match="no database file"):
        backup(f"sqlite:///{tmp_path / 'missing.db'}", tmp_path / "copy.db")
    assert database_file(f"sqlite:///{tmp_path / 'g.db'}") == tmp_path / "g.db"


def test_the_cli_writes_a_dated_backup_beside_the_database(tmp_path: Path) -> None:
    env = {**os.environ, "GRADER_DATABASE_URL": f"sqlite:///{tmp_path / 'grader.db'}", "GRADER_SECRET_KEY": "x" * 32}
    assert flask_cli("db", "upgrade", env=env).returncode == 0
    assert flask_cli("users", "bootstrap", "--email", "boss@example.com", env=env).returncode == 0
    chosen = flask_cli("backup", str(tmp_path / "mine.db"), env=env)
    assert chosen.returncode == 0 and f"backed up to {tmp_path / 'mine.db'}" in chosen.stdout, chosen.stderr
    with sqlite3.connect(tmp_path / "mine.db") as copy:
        assert copy.execute("SELECT email FROM users").fetchall() == [("boss@example.com",)]
    again = flask_cli("backup", str(tmp_path / "mine.db"), env=env)
    assert again.returncode != 0 and "exists already" in again.stderr
    dated = flask_cli("backup", env=env)
    assert dated.returncode == 0, dated.stderr
    [made] = (tmp_path / "backups").glob("grader-*.db")
    assert f"backed up to {made} (" in dated.stdout and len(made.name) == len(default_target(tmp_path).name)


@sqlite_only
def test_the_cli_backs_up_a_relative_sqlite_path_where_the_app_keeps_it(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    instance.mkdir()
    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite:///relative.db", "INSTANCE_PATH": str(instance),
                      "SECRET_KEY": "x" * 32})  # fmt: skip
    with app.app_context():
        db.create_all()
        accounts.create_user("boss@example.com", "a long enough password", "admin")
    with app.app_context():  # as `flask` runs its commands
        made = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "copy.db")])
    assert made.exit_code == 0, made.output
    assert (instance / "relative.db").is_file() and not (tmp_path / "relative.db").exists()
    with sqlite3.connect(tmp_path / "copy.db") as copy:
        assert copy.execute("SELECT email FROM users").fetchall() == [("boss@example.com",)]
