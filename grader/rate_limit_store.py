"""Rate-limit counters in one SQLite file: the default storage, shared by every process of one machine.

Flask-Limiter's memory:// storage is per process, so gunicorn's workers would each allow the whole
limit. This storage (URI sqlite:///relative/path or sqlite:////absolute/path) keeps fixed-window
counters in a small database of its own, beside the app's, where every worker of the box counts
together. Each increment is one SQLite statement, atomic across processes. Counters are worth
little after a power cut, so commits do not wait for the disk. Several hosts share Redis instead.

A file that cannot be written (locked by an operator's sqlite3 shell or a stuck backup, corrupted,
unreadable) fails fast: each statement waits at most BUSY_TIMEOUT_MS for a lock, not the 30 s of a
worker's timeout, and the failure is logged at error level, since Flask-Limiter then counts in each
process's memory. Login and registration refuse meanwhile (grader/web/limit_store.py).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

from limits.storage import Storage

T = TypeVar("T")
log = logging.getLogger(__name__)

SCHEME = "sqlite"
PURGE_EVERY = 1000  # increments by one process between sweeps of expired counters
# An increment holds the write lock for well under a millisecond, so a wait this long means the file is
# held by something else; a request must not hang on it. Not shorter: on a loaded 2-core box a worker that
# holds the lock can be off the processor for a few hundred milliseconds, and 250 ms turned a burst of
# attempts into 503s.
BUSY_TIMEOUT_MS = 1000
_SCHEMA = "CREATE TABLE IF NOT EXISTS counters (key TEXT PRIMARY KEY, count INTEGER NOT NULL, expires_at REAL NOT NULL)"
# A counter whose window has passed starts again at `amount`, with a new window.
_INCREMENT = """
INSERT INTO counters (key, count, expires_at) VALUES (:key, :amount, :expires)
ON CONFLICT (key) DO UPDATE SET
  count = CASE WHEN expires_at <= :now THEN :amount ELSE count + :amount END,
  expires_at = CASE WHEN expires_at <= :now THEN :expires ELSE expires_at END
RETURNING count
"""


def storage_path(uri: str) -> Path:
    """The file a sqlite:/// URI names: sqlite:///relative or sqlite:////absolute, as SQLAlchemy reads them."""
    prefix = f"{SCHEME}:///"
    if not uri.startswith(prefix) or len(uri) == len(prefix):
        raise ValueError("a rate-limit SQLite storage looks like sqlite:////path/to/rate-limits.db")
    return Path(uri[len(prefix):])


class SqliteStorage(Storage):
    """Fixed-window counters in a SQLite file (the limits package's Storage interface)."""

    STORAGE_SCHEME = [SCHEME]

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self.path = storage_path(uri)
        self._local = threading.local()
        self._increments = 0
        self._failing = False  # logged once when the file fails, once when it works again

    @property
    def base_exceptions(self) -> tuple[type[Exception], ...]:
        """What a failing file raises (Flask-Limiter then counts in memory for a while)."""
        return sqlite3.Error, OSError

    def _db(self) -> sqlite3.Connection:
        # One connection per thread and per process: gunicorn forks workers from a master that made
        # the app, and a SQLite connection must never cross a fork.
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None or self._local.pid != os.getpid():
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                         check_same_thread=False)  # fmt: skip
            for pragma in ("journal_mode=WAL", "synchronous=OFF", f"busy_timeout={BUSY_TIMEOUT_MS}"):
                connection.execute(f"PRAGMA {pragma}")
            connection.execute(_SCHEMA)
            os.chmod(self.path, 0o600)  # who failed to sign in as whom: for the service's eyes only
            self._local.connection, self._local.pid = connection, os.getpid()
        return connection

    def _logged(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` on this thread's connection; a failing file is logged at error level, then re-raised."""
        try:
            result = work(self._db())
        except (sqlite3.Error, OSError) as error:
            if not self._failing:
                self._failing = True
                log.error("rate-limit store %s is unusable (%s): limits are counted in each process's memory, "
                          "and logins and registrations are refused until it works", self.path, error)  # fmt: skip
            self._local.connection = None  # a corrupted or replaced file: open it afresh next time
            raise
        if self._failing:
            self._failing = False
            log.warning("rate-limit store %s works again", self.path)
        return result

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """Add `amount` to the key's counter, starting a window of `expiry` seconds if none is open."""
        now = time.time()
        self._increments += 1
        purge = self._increments % PURGE_EVERY == 0

        def increment(db: sqlite3.Connection) -> int:
            (count,) = db.execute(_INCREMENT, {"key": key, "amount": amount, "expires": now + expiry, "now": now}).fetchone()
            if purge:
                db.execute("DELETE FROM counters WHERE expires_at <= ?", (now,))
            return int(count)

        return self._logged(increment)

    def get(self, key: str) -> int:
        """The key's count in its open window (0 when none is open)."""
        row = self._logged(lambda db: db.execute("SELECT count FROM counters WHERE key = ? AND expires_at > ?",
                                                 (key, time.time())).fetchone())  # fmt: skip
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        """When the key's open window ends (now, when none is open)."""
        now = time.time()
        row = self._logged(lambda db: db.execute("SELECT expires_at FROM counters WHERE key = ? AND expires_at > ?",
                                                 (key, now)).fetchone())  # fmt: skip
        return float(row[0]) if row else now

    def check(self) -> bool:
        """True while the file can be written: a write lock taken and given back within BUSY_TIMEOUT_MS."""
        # Reading is not enough: in WAL mode reads go on while another process holds the write lock.
        try:
            self._logged(lambda db: db.executescript("BEGIN IMMEDIATE; ROLLBACK;"))
        except (sqlite3.Error, OSError):
            return False
        return True

    def reset(self) -> int | None:
        """Forget every counter; returns how many there were."""
        return self._db().execute("DELETE FROM counters").rowcount

    def clear(self, key: str) -> None:
        """Forget one key's counter."""
        self._db().execute("DELETE FROM counters WHERE key = ?", (key,))
