"""Failed logins against a rate-limit store that cannot count: how long each takes, and what it answers.

Three cases, each a fresh app with limits on (the default SQLite store) and one learner: the store
working (the baseline: a failed login checks the password, argon2 at its default cost), its file
write-locked by another connection (an operator's sqlite3 shell mid-write), and its file corrupted.
Prints the median time per failed login, the ratio to the baseline and the statuses answered.

    .venv/bin/python benchmarks/limit_store.py [--logins 5]
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402

from grader.extensions import limiter  # noqa: E402
from grader.rate_limit_store import storage_path  # noqa: E402
from tests.web.conftest import build_app, csrf_from, make_user  # noqa: E402


def _logins(app: Flask, count: int) -> tuple[float, Counter[int]]:
    times, statuses = [], Counter[int]()
    for _ in range(count):
        client = app.test_client()
        token = csrf_from(client.get("/login").get_data(as_text=True))
        start = time.perf_counter()
        reply = client.post("/login", data={"email": "ada@example.com", "password": "wrong", "csrf_token": token})
        times.append(time.perf_counter() - start)
        statuses[reply.status_code] += 1
    return statistics.median(times), statuses


def _case(folder: Path, name: str, logins: int) -> tuple[float, Counter[int]]:
    """A fresh app and store; the store then working, write-locked by another connection, or corrupted."""
    app = build_app(folder / name, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")
    store = storage_path(app.config["RATELIMIT_STORAGE_URI"])
    limiter._storage_dead = False  # noqa: SLF001 - one Limiter per process: each case starts on its file
    if name == "corrupted":
        store.write_bytes(b"not a database " * 400)
    if name != "locked":
        return _logins(app, logins)
    _logins(app, 1)  # the store made and in use (WAL), as on a server that has run a while
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # an operator's sqlite3 shell in the middle of a write
    try:
        return _logins(app, logins)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logins", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        baseline = 0.0
        for name in ("working", "locked", "corrupted"):
            median, statuses = _case(Path(folder), name, args.logins)
            baseline = baseline or median
            print(f"store {name:9}  {median * 1000:8.1f} ms per failed login (median of {args.logins}), "
                  f"{median / baseline:5.2f}x working; statuses {dict(statuses)}")  # fmt: skip


if __name__ == "__main__":
    main()
