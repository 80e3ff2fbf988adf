"""SQLite connections that queue for the write lock on an OS file lock instead of sleeping.

SQLite lets one transaction write at a time. The others wait in its busy handler, which sleeps
1, 2, 5, 10, ... ms between tries, so with several gunicorn workers the lock often sits free
while every writer sleeps. A connection made here first takes an exclusive flock on a file
beside the database, from its first write statement until its commit, rollback or close.
Writers in every process then take turns with sub-millisecond hand-offs, and SQLite's own lock
is almost always free when they reach it. Reads never take the file lock (WAL keeps them apart
from writers).

Waiting is bounded like SQLite's busy timeout: after `timeout` seconds the statement fails with
"database is locked", so a stuck writer is an error and never a hang.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from typing import Any

READS = ("SELECT", "PRAGMA", "SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT", "END", "EXPLAIN")
_FIRST_WAIT, _LONGEST_WAIT = 0.00005, 0.002  # seconds between tries while another process writes


def lock_path(database: str) -> str:
    """The lock file for a database file."""
    return database + "-writers.lock"


def _writes(sql: str) -> bool:
    return not sql.lstrip()[:9].upper().startswith(READS)


class _Cursor(sqlite3.Cursor):
    def execute(self, sql: str, parameters: Any = (), /) -> _Cursor:
        if _writes(sql):
            self.connection.hold_write_lock()  # type: ignore[attr-defined]
        return super().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> _Cursor:
        if _writes(sql):
            self.connection.hold_write_lock()  # type: ignore[attr-defined]
        return super().executemany(sql, parameters)


class QueuedWriterConnection(sqlite3.Connection):
    """A sqlite3 connection that holds the database's writer file lock while it has writes open."""

    timeout_seconds = 10.0

    def __init__(self, database: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(database, *args, **kwargs)
        try:
            self._lock_file = os.open(lock_path(os.fspath(database)), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:  # a read-only directory: nothing can be written, so there is no queue to join
            self._lock_file = -1
        self._holding = False

    def cursor(self, factory: Any = _Cursor) -> Any:  # type: ignore[override]
        """A cursor that takes the writer lock before a write statement."""
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        """Run one statement on a new cursor (the C shortcut would skip the lock)."""
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        """Run a statement for each parameter set on a new cursor."""
        return self.cursor().executemany(sql, parameters)

    def hold_write_lock(self) -> None:
        """Take the writer lock unless held already; waits up to `timeout_seconds`."""
        if self._holding or self._lock_file < 0:
            return
        deadline, wait = time.monotonic() + self.timeout_seconds, _FIRST_WAIT
        while True:
            try:
                fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._holding = True
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise sqlite3.OperationalError("database is locked") from None
                time.sleep(wait)
                wait = min(wait * 2, _LONGEST_WAIT)

    def _let_go(self) -> None:
        if self._holding:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._holding = False

    def commit(self) -> None:
        """Commit, then let the next writer in."""
        try:
            super().commit()
        finally:
            self._let_go()

    def rollback(self) -> None:
        """Roll back, then let the next writer in."""
        try:
            super().rollback()
        finally:
            self._let_go()

    def close(self) -> None:
        """Close the connection and the lock file."""
        try:
            super().close()
        finally:
            self._let_go()
            if self._lock_file >= 0:
                os.close(self._lock_file)
                self._lock_file = -1

    def __del__(self) -> None:
        if getattr(self, "_lock_file", -1) >= 0:
            os.close(self._lock_file)  # closing the file also drops a lock still held
