"""Online backup of the SQLite database, against copying the file, while attempts are being written.

Builds the schema on a fresh SQLite file and fills it with ATTEMPTS attempts shaped like real
ones (JSON answers, parsed values and verdicts), with their progress rows. Then, in the same run:

- the baseline: copying the (checkpointed) database file with shutil, which is only safe when
  nothing writes;
- `grader.services.backup.backup`, alone;
- the same backup while another process stores attempts as fast as it can (one transaction per
  attempt, WAL, the service's pragmas): its write rate and slowest commit before and during it.

    .venv/bin/python benchmarks/backup.py [--attempts 200000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.services.backup import backup  # noqa: E402
from grader.web.app import SQLITE_PRAGMAS  # noqa: E402

LEARNERS = 1000
VERDICT = {"status": "incorrect", "score": 0.0, "message": "2 of 4 entries are off.", "misconception": "no-residual",
           "hint": "Add the input back.", "wrong_entries": [0, 2], "text": None}  # fmt: skip
ATTEMPT = ("INSERT INTO attempts (user_id, exercise_id, version, seed, number, answers, parsed, results, raw_score, "
           "score, late, answers_hash, created_at) VALUES (?, 'block-residual', 1, 7, ?, ?, ?, ?, 0, 0, 0, ?, "
           "'2026-11-30 12:00:00.000000')")  # fmt: skip


def row(user: int, number: int) -> tuple[Any, ...]:
    """One attempt's values, with a unique answers hash."""
    typed = {"h": f"[{number}.125; -1.500; 0.250; {user}.750]"}
    parsed = {"h": [number + 0.125, -1.5, 0.25, user + 0.75]}
    return user, number, json.dumps(typed), json.dumps(parsed), json.dumps({"h": VERDICT}), f"{user:08d}{number:056d}"


def connect(path: Path) -> sqlite3.Connection:
    """A connection with the service's pragmas."""
    connection = sqlite3.connect(path)
    for pragma in SQLITE_PRAGMAS:
        connection.execute(f"PRAGMA {pragma}")
    return connection


def fill(path: Path, attempts: int) -> None:
    """Schema, exercises, learners and their attempts and progress."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "SECRET_KEY": "b" * 64,
                      "RATELIMIT_ENABLED": False, "INSTANCE_PATH": str(path.parent)})  # fmt: skip
    with app.app_context():
        db.create_all()
        from grader.services.sync import sync_directory

        sync_directory(app.config["EXERCISES_DIR"])
        db.engine.dispose()
    per_learner = attempts // LEARNERS
    with connect(path) as connection:
        connection.executemany("INSERT INTO users (id, email, password_hash, role, locale, created_at) "
                               "VALUES (?, ?, '-', 'learner', 'en', '2026-11-30 12:00:00')",
                               [(u, f"l{u}@example.com") for u in range(1, LEARNERS + 1)])  # fmt: skip
        connection.executemany(ATTEMPT, (row(u, n) for u in range(1, LEARNERS + 1) for n in range(1, per_learner + 1)))
        connection.executemany("INSERT INTO progress (user_id, exercise_id, best_score, attempts_used) "
                               "VALUES (?, 'block-residual', 0, ?)",
                               [(u, per_learner) for u in range(1, LEARNERS + 1)])  # fmt: skip
        connection.commit()
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def write_attempts(path: str, seconds: float, first: int, start: Any, results: Any) -> None:
    """Store attempts one transaction each for `seconds` after `start` is set; send when each ended and took."""
    connection = connect(Path(path))
    number, commits = first, []
    start.wait()
    finish = time.perf_counter() + seconds
    while (began := time.perf_counter()) < finish:
        number += 1
        connection.execute("UPDATE progress SET attempts_used = attempts_used + 1 WHERE user_id = 1")
        connection.execute(ATTEMPT, row(1, number))
        connection.commit()
        ended = time.perf_counter()
        commits.append((ended, ended - began))
    results.send(commits)


def rate_in(commits: list[tuple[float, float]], start: float, end: float) -> tuple[float, float]:
    """Attempts/s and the slowest attempt among those that ended between start and end."""
    inside = [took for ended, took in commits if start <= ended <= end]
    return len(inside) / (end - start), max(inside, default=0.0)


def main() -> int:
    """Fill, then time the file copy, the backup alone and the backup under writes."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attempts", type=int, default=200_000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grader-backup-"))
    path = work / "grader.db"
    fill(path, args.attempts)
    size = path.stat().st_size / 2**20
    copy_started = time.perf_counter()
    shutil.copyfile(path, work / "plain-copy.db")
    copied = time.perf_counter() - copy_started
    alone = backup(f"sqlite:///{path}", work / "alone.db").seconds
    receive, send = multiprocessing.Pipe(duplex=False)
    start = multiprocessing.Event()
    writer = multiprocessing.Process(target=write_attempts, args=(str(path), 4.0, 10**6, start, send))
    writer.start()
    start.set()
    time.sleep(1.5)  # the writer alone first
    began = time.perf_counter()
    during = backup(f"sqlite:///{path}", work / "busy.db").seconds
    ended = time.perf_counter()
    if not receive.poll(60):  # read before joining: a large send blocks until it is read
        raise SystemExit("the writer process sent nothing")
    commits = receive.recv()
    writer.join()
    idle_rate, idle_slowest = rate_in(commits, commits[0][0], began)
    busy_rate, busy_slowest = rate_in(commits, began, ended)
    with sqlite3.connect(work / "busy.db") as copy:
        kept = copy.execute("SELECT count(*) FROM attempts").fetchone()[0]
    print(f"database: {args.attempts:,} attempts, {size:.1f} MiB")
    print(f"file copy (baseline, unsafe under writes): {copied:6.2f} s  {size / copied:7.1f} MiB/s")
    print(f"backup, nothing writing:                   {alone:6.2f} s  {size / alone:7.1f} MiB/s  "
          f"({alone / copied:.1f} x the file copy)")  # fmt: skip
    print(f"backup, one process writing meanwhile:     {during:6.2f} s  {size / during:7.1f} MiB/s  "
          f"({during / copied:.1f} x the file copy); the copy holds {kept:,} attempts")  # fmt: skip
    print(f"writer before the backup: {idle_rate:7.0f} attempts/s, slowest {1000 * idle_slowest:6.1f} ms")
    print(f"writer during the backup: {busy_rate:7.0f} attempts/s, slowest {1000 * busy_slowest:6.1f} ms "
          f"({busy_rate / idle_rate:.2f} of before)")  # fmt: skip
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
