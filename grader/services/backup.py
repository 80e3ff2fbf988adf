"""Online backups of the embedded SQLite database: a consistent copy taken while the service runs.

SQLite's backup API copies the database under one read transaction, in one step: in WAL mode a
reader never blocks writers, so attempts go on being stored, and the copy is one snapshot (WAL
content included). A copy in several steps would start over whenever a write landed between two
of them, and on a busy service might never finish. The copy is written next to its target
under a temporary name, checked with `PRAGMA integrity_check`, made readable by its owner only
(it holds password hashes) and only then renamed into place: a backup either exists whole or not
at all. PostgreSQL has its own tools (pg_dump); this module refuses it.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import sqlalchemy as sa

class BackupError(RuntimeError):
    """A backup that cannot be made; the message says why."""


@dataclass(frozen=True)
class Backup:
    """A finished backup: where, how big and how long it took."""

    path: Path
    bytes: int
    seconds: float


def database_file(url: str) -> Path:
    """The file of a SQLite URL; BackupError for any other database."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        raise BackupError(f"only a SQLite file can be backed up this way; for {parsed.get_backend_name()} use its own "
                          "tools (PostgreSQL: pg_dump)")  # fmt: skip
    return Path(parsed.database)


def default_target(folder: Path, now: datetime | None = None) -> Path:
    """A new file name in folder, by UTC time: grader-20261130-112233.db."""
    moment = now or datetime.now(timezone.utc)
    return folder / f"grader-{moment:%Y%m%d-%H%M%S}.db"


def _copy(source: Path, target: Path) -> None:
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.execute("PRAGMA busy_timeout = 10000")
        src.backup(dst)  # pages=-1: all in one step, one snapshot
        dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file, no -wal beside it
        problems = [row[0] for row in dst.execute("PRAGMA integrity_check")]
    finally:
        src.close()
        dst.close()
    if problems != ["ok"]:
        raise BackupError("the copy failed its integrity check: " + "; ".join(problems[:5]))


def backup(url: str, target: Path) -> Backup:
    """Copy the SQLite database at url to target (a new file), consistently, while it is in use."""
    source = database_file(url)
    if not source.is_file():
        raise BackupError(f"no database file at {source}")
    if target.exists():
        raise BackupError(f"{target} exists already; a backup never overwrites a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(handle)  # mkstemp made it 0600, and sqlite keeps that mode
    try:
        _copy(source, Path(partial))
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return Backup(target, target.stat().st_size, time.perf_counter() - started)
