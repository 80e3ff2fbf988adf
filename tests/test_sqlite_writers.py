"""SQLite writers queue on a file lock: they wait for each other, across threads and processes, and give up in time."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.config import engine_options
from grader.sqlite_writers import QueuedWriterConnection

ROOT = Path(__file__).resolve().parents[1]


def connect(path: Path) -> QueuedWriterConnection:
    """A queued-writer connection with SQLite's own busy wait switched off (timeout 0)."""
    connection = sqlite3.connect(path, timeout=0, factory=QueuedWriterConnection, check_same_thread=False)
    assert isinstance(connection, QueuedWriterConnection)
    return connection


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "writers.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE rows (who TEXT)")
    yield path


def write_in_thread(path: Path, who: str) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def write() -> None:
        connection = connect(path)
        try:
            connection.execute("INSERT INTO rows VALUES (?)", (who,))
            connection.commit()
        except BaseException as error:  # reported to the test
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    return thread, errors


def rows(path: Path) -> list[str]:
    with sqlite3.connect(path) as reader:
        return sorted(who for (who,) in reader.execute("SELECT who FROM rows"))


def test_plain_sqlite_fails_at_once_where_a_queued_writer_waits(database: Path) -> None:
    """The baseline this module fixes: without the queue, a second writer with no busy wait is refused."""
    holder = sqlite3.connect(database, timeout=0)
    holder.execute("INSERT INTO rows VALUES ('first')")
    other = sqlite3.connect(database, timeout=0)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        other.execute("INSERT INTO rows VALUES ('second')")
    holder.rollback()


@pytest.mark.parametrize("finish", ["commit", "rollback", "close"])
def test_a_second_writer_waits_until_the_first_finishes(database: Path, finish: str) -> None:
    first = connect(database)
    first.execute("INSERT INTO rows VALUES ('first')")
    thread, errors = write_in_thread(database, "second")
    thread.join(timeout=0.3)
    assert thread.is_alive(), "the second writer went ahead while the first held the lock"
    getattr(first, finish)()
    thread.join(timeout=5)
    assert not thread.is_alive() and errors == []
    assert rows(database) == (["first", "second"] if finish == "commit" else ["second"])


def test_reads_do_not_wait_for_a_writer(database: Path) -> None:
    writer = connect(database)
    writer.execute("INSERT INTO rows VALUES ('pending')")
    reader = connect(database)
    assert reader.execute("SELECT count(*) FROM rows").fetchone() == (0,)
    writer.commit()
    assert reader.execute("SELECT count(*) FROM rows").fetchone() == (1,)


def test_a_writer_gives_up_after_the_timeout(database: Path) -> None:
    holder = connect(database)
    holder.execute("INSERT INTO rows VALUES ('held')")
    waiter = connect(database)
    waiter.timeout_seconds = 0.2
    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        waiter.execute("INSERT INTO rows VALUES ('late')")
    holder.commit()
    waiter.execute("INSERT INTO rows VALUES ('late')")
    waiter.commit()
    assert rows(database) == ["held", "late"]


HOLD_IN_CHILD = """
import sqlite3, sys
from grader.sqlite_writers import QueuedWriterConnection
c = sqlite3.connect(sys.argv[1], timeout=0, factory=QueuedWriterConnection)
c.execute("INSERT INTO rows VALUES ('child')")
print("holding", flush=True)
sys.stdin.readline()
c.commit()
"""


def test_writers_in_different_processes_take_turns(database: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLD_IN_CHILD, str(database)], cwd=ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "holding"
        thread, errors = write_in_thread(database, "parent")
        thread.join(timeout=0.3)
        assert thread.is_alive(), "the parent wrote while another process held the lock"
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
        thread.join(timeout=5)
        assert not thread.is_alive() and errors == []
    finally:
        child.wait(timeout=10)
    assert rows(database) == ["child", "parent"]


def test_engine_options_queue_sqlite_files_and_ping_servers(tmp_path: Path) -> None:
    assert engine_options(f"sqlite:///{tmp_path / 'a.db'}") == {"connect_args": {"factory": QueuedWriterConnection}}
    assert engine_options("sqlite://") == {}
    assert engine_options(f"sqlite:///file:{tmp_path / 'a.db'}?mode=ro&uri=true") == {}
    assert engine_options("postgresql+psycopg://u:p@localhost/db") == {"pool_pre_ping": True}


def test_the_app_writes_to_a_sqlite_file_through_queued_writers(tmp_path: Path) -> None:
    from grader import create_app
    from grader.extensions import db

    app = create_app({"INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "k" * 32,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'app.db'}"})  # fmt: skip
    with app.app_context():
        raw = db.engine.raw_connection()
        try:
            assert isinstance(raw.driver_connection, QueuedWriterConnection)
        finally:
            raw.close()
        db.engine.dispose()
    assert (tmp_path / "app.db-writers.lock").exists()
