"""Rate-limit counters in one SQLite file: the default storage, shared by every process of one machine.

Flask-Limiter's memory:// storage is per process, so gunicorn's workers would each allow the whole
limit. This storage (URI sqlite:///relative/path or sqlite:////absolute/path) keeps fixed-window
counters in a small database of its own, beside the app's, where every worker of the box counts
together. Each increment is one SQLite statement, atomic across processes. Counters are worth
little after a power cut, so commits do not wait for the disk. Several hosts share Redis instead.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from limits.storage import Storage

SCHEME = "sqlite"
PURGE_EVERY = 1000  # increments by one process between sweeps of expired counters
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
            connection = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            for pragma in ("journal_mode=WAL", "synchronous=OFF", "busy_timeout=10000"):
                connection.execute(f"PRAGMA {pragma}")
            connection.execute(_SCHEMA)
            os.chmod(self.path, 0o600)  # who failed to sign in as whom: for the service's eyes only
            self._local.connection, self._local.pid = connection, os.getpid()
        return connection

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """Add `amount` to the key's counter, starting a window of `expiry` seconds if none is open."""
        now = time.time()
        db = self._db()
        (count,) = db.execute(_INCREMENT, {"key": key, "amount": amount, "expires": now + expiry, "now": now}).fetchone()
        self._increments += 1
        if self._increments % PURGE_EVERY == 0:
            db.execute("DELETE FROM counters WHERE expires_at <= ?", (now,))
        return int(count)

    def get(self, key: str) -> int:
        """The key's count in its open window (0 when none is open)."""
        row = self._db().execute("SELECT count FROM counters WHERE key = ? AND expires_at > ?", (key, time.time())).fetchone()
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        """When the key's open window ends (now, when none is open)."""
        now = time.time()
        row = self._db().execute("SELECT expires_at FROM counters WHERE key = ? AND expires_at > ?", (key, now)).fetchone()
        return float(row[0]) if row else now

    def check(self) -> bool:
        """True while the file can be read."""
        try:
            self._db().execute("SELECT 1").fetchone()
        except (sqlite3.Error, OSError):
            return False
        return True

    def reset(self) -> int | None:
        """Forget every counter; returns how many there were."""
        return self._db().execute("DELETE FROM counters").rowcount

    def clear(self, key: str) -> None:
        """Forget one key's counter."""
        self._db().execute("DELETE FROM counters WHERE key = ?", (key,))
