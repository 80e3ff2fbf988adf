"""Instructor and learner pages at the size of a real course, through gunicorn, on SQLite and PostgreSQL.

For each class size (200 and 2,000 learners by default) and each database, builds a class with
benchmarks/class_build.py: every shipped exercise, about --attempts graded attempts per learner on
each numeric one (about 420,000 at 2,000 learners) and code submissions on the code ones. Then it
serves the app with gunicorn (gunicorn.conf.py), signs in as an instructor and as a learner, and
times each page of PAGES: p50 and p90 over --requests sequential requests, the whole body read
(a CSV is read to its end). Counts the SQL statements each page runs, in-process with Flask's
test client: a page whose count grows with the class is an N+1. Prints, per page, the figures at
each size and the growth ratio from the smallest to the largest class (10 would be linear in the
learners), and a bare Flask page (benchmarks/bare_app.py) served the same way.

    .venv/bin/python benchmarks/class_scale.py [--learners 200 2000] [--attempts 10] [--requests 20]
                                               [--postgres ADMIN_URL] [--no-sqlite]

ADMIN_URL is e.g. postgresql+psycopg://grader:grader@127.0.0.1:5432/postgres (a role that may create
databases); each class gets a new database there, dropped at the end.

To time another page, add a line to PAGES: its name, its path and who asks for it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

# Run as a script, so benchmarks/ is on sys.path; the project root too, for grader.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402

from class_build import PASSWORD, build  # noqa: E402
from load_stack import Processes, create_database, flask, free_port, listening, log_in, request, wait_until  # noqa: E402

INSTRUCTOR, LEARNER = "instructor@example.com", "learner0@example.com"
EXERCISE = "block-residual"  # a numeric exercise every class has attempts on
# (name, path, who asks): the pages timed.
PAGES: list[tuple[str, str, str]] = [
    ("instructor dashboard", "/teach/", INSTRUCTOR),
    ("dashboard, one lesson", "/teach/?lesson=gpt2-block", INSTRUCTOR),
    *((f"dashboard CSV {name}", f"/teach/figures/{name}.csv", INSTRUCTOR)
      for name in ("solve-rates", "misconceptions-this-week", "stuck-learners", "completion")),
    ("one exercise's analytics", f"/teach/exercises/{EXERCISE}/analytics", INSTRUCTOR),
    *((f"analytics CSV {name}", f"/teach/exercises/{EXERCISE}/figures/{name}.csv", INSTRUCTOR)
      for name in ("attempts-to-solve", "hints", "misconceptions")),
    ("gradebook", "/teach/gradebook", INSTRUCTOR),
    ("gradebook, one lesson", "/teach/gradebook?lesson=gpt2-block", INSTRUCTOR),
    ("gradebook CSV", "/teach/gradebook.csv", INSTRUCTOR),
    ("exercise list (stats)", "/teach/exercises", INSTRUCTOR),
    ("one exercise's stats", f"/teach/exercises/{EXERCISE}", INSTRUCTOR),
    ("one exercise's attempts CSV", f"/teach/exercises/{EXERCISE}/attempts.csv", INSTRUCTOR),
    ("learner's work", f"/teach/gradebook/2/{EXERCISE}", INSTRUCTOR),
    ("learner dashboard", "/", LEARNER),
    ("learner's exercise page", f"/exercises/{EXERCISE}", LEARNER),
]


def prepare(url: str, learners: int, attempts: int) -> dict[str, int]:
    """Migrate, sync the exercises and build the class on the database at `url`; returns row counts."""
    env = _env(url)
    flask(env, "db", "upgrade")
    flask(env, "exercises", "sync")
    from grader import create_app
    from grader.extensions import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        counts = build(learners, attempts)
        if url.startswith("postgresql"):  # fresh statistics, as autovacuum would have by the time a class is this big
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(sa.text("VACUUM ANALYZE"))
        else:
            db.session.execute(sa.text("ANALYZE"))
            db.session.commit()
        db.engine.dispose()
    return counts


def _env(url: str) -> dict[str, str]:
    return {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "c" * 64,
            "GRADER_RATELIMIT_ENABLED": "false", "GRADER_LOG_LEVEL": "warning"}  # fmt: skip


@contextmanager
def served(app: str, env: dict[str, str], cwd: Path, processes: Processes) -> Iterator[int]:
    """gunicorn (the project's settings) serving `app` on a free port, for the block."""
    port = free_port()
    server = processes.start(f"gunicorn-{port}", [sys.executable, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), app],
                             {**env, "GRADER_BIND": f"127.0.0.1:{port}", "GRADER_ACCESS_LOG": "/dev/null"}, cwd)  # fmt: skip
    try:
        wait_until(lambda: listening(port), 60, f"gunicorn for {app}")
        yield port
    finally:
        processes.stop(server)


def timed(port: int, path: str, cookie: str | None, requests: int) -> dict[str, float]:
    """p50 and p90 (ms) of GET `path`, one request at a time, after one warm-up; bytes of the last reply."""
    headers = {"Cookie": f"session={cookie}"} if cookie else {}
    warm = request(port, "GET", path, headers)
    if warm.status != 200:
        raise SystemExit(f"GET {path}: {warm.status} {warm.body[:300]!r}")
    times, failed = [], 0
    for _ in range(requests):
        start = time.perf_counter()
        reply = request(port, "GET", path, headers)
        times.append(1000 * (time.perf_counter() - start))
        failed += reply.status != 200  # e.g. a 500 from gunicorn's worker timeout: counted, the run goes on
    times.sort()
    return {"p50": statistics.median(times), "p90": times[int(0.9 * (len(times) - 1))], "bytes": len(reply.body),
            "failed": failed}


def statements_per_page(url: str) -> dict[str, int]:
    """SQL statements each page of PAGES runs (its second request), counted in-process with the test client."""
    from flask import Flask
    from sqlalchemy import event

    from grader import create_app
    from grader.extensions import db

    app: Flask = create_app({"SQLALCHEMY_DATABASE_URI": url, "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    seen: list[str] = []
    with app.app_context():
        engine = db.engine
    listener: Callable[..., None] = lambda *args: seen.append(args[2])  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    counts = {}
    try:
        clients = {}
        for who in {who for _, _, who in PAGES}:
            clients[who] = app.test_client()
            clients[who].post("/login", data={"email": who, "password": PASSWORD})
        for name, path, who in PAGES:
            clients[who].get(path).get_data()
            seen.clear()
            reply = clients[who].get(path)
            reply.get_data()
            counts[name] = len(seen)
    finally:
        event.remove(engine, "before_cursor_execute", listener)
        with app.app_context():
            db.engine.dispose()
    return counts


def measure(url: str, args: argparse.Namespace, processes: Processes) -> dict[str, dict[str, float]]:
    """Every page's timings through gunicorn and its statement count."""
    found: dict[str, dict[str, float]] = {}
    with served("wsgi:app", _env(url), ROOT, processes) as port:
        cookies = {who: log_in(port, who) for who in {who for _, _, who in PAGES}}
        for name, path, who in PAGES:
            found[name] = timed(port, path, cookies[who], args.requests)
    for name, count in statements_per_page(url).items():
        found[name]["statements"] = count
    return found


def bare(args: argparse.Namespace, processes: Processes) -> dict[str, float]:
    """The bare Flask page (benchmarks/bare_app.py) under the same gunicorn settings."""
    with served("bare_app:app", {**os.environ, "PYTHONPATH": str(ROOT)}, ROOT / "benchmarks", processes) as port:
        return timed(port, "/page", None, args.requests)


def report(results: dict[tuple[str, int], dict[str, dict[str, float]]], baseline: dict[str, float]) -> None:
    """A table per database: each page's p50/p90 and statements per class size, and the growth."""
    print(f"\nbare Flask page: p50 {baseline['p50']:.1f} ms, p90 {baseline['p90']:.1f} ms")
    for database in sorted({d for d, _ in results}):
        sizes = sorted(n for d, n in results if d == database)
        print(f"\n{database}: p50 / p90 ms (statements), per class size")
        print(f"{'page':40}" + "".join(f"{n:>26}" for n in sizes) + (f"{'growth p50':>13}" if len(sizes) > 1 else ""))
        for name, _, _ in PAGES:
            cells = [results[(database, n)][name] for n in sizes]
            line = f"{name:40}" + "".join(f"{c['p50']:9.1f} /{c['p90']:8.1f} ({int(c['statements']):4})"
                                          + (f" {int(c['failed'])} FAILED" if c["failed"] else "") for c in cells)
            if len(sizes) > 1:
                line += f"{cells[-1]['p50'] / cells[0]['p50']:12.1f}×"
            print(line)


def main() -> int:
    """Build each class on each database, time the pages and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--attempts", type=int, default=10, help="mean attempts per learner per numeric exercise")
    parser.add_argument("--requests", type=int, default=20, help="timed requests per page")
    parser.add_argument("--postgres", metavar="ADMIN_URL", help="also on new databases on this PostgreSQL server")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grader-class-"))
    processes = Processes(work)
    results: dict[tuple[str, int], dict[str, dict[str, float]]] = {}
    databases = ([] if args.no_sqlite else ["SQLite"]) + (["PostgreSQL"] if args.postgres else [])
    try:
        for database in databases:
            for learners in args.learners:
                url, drop = ((f"sqlite:///{work / f'class-{learners}.db'}", lambda: None) if database == "SQLite"
                             else create_database(args.postgres))  # fmt: skip
                try:
                    started = time.perf_counter()
                    counts = prepare(url, learners, args.attempts)
                    print(f"{database}, {learners} learners: built in {time.perf_counter() - started:.0f} s: {counts}",
                          flush=True)  # fmt: skip
                    results[(database, learners)] = measure(url, args, processes)
                finally:
                    drop()
        baseline = bare(args, processes)
    finally:
        processes.stop_all()
    report(results, baseline)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
