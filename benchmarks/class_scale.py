"""Course pages on a site of many courses, on SQLite and PostgreSQL, in-process through Flask's test client.

Builds one database (benchmarks/class_build.py, bulk inserts of really graded attempts): first one
course of --learners learners, then --courses - 1 more of that size and one of --big learners. Each
learner opens about 75% of the numeric exercises (about --attempts attempts on each) and half of the
code ones. Every page an instructor, a learner or an API client opens in a course (PAGES) is then
timed in the first course and in the big one: p50 and p95 over --requests sequential requests through
Flask's test client (no HTTP server, no network: the app's own time, the body read to its end), with
the SQL statements each request runs. Statement counts are taken twice in the first course, when it
is the only course with learners and again with all of them, to show they do not grow with the
number of courses. The baselines, timed the same way in the same run: GET /healthz (no database) and
the gradebook's rows (the big course's progress) read with one raw SQL query.

    .venv/bin/python benchmarks/class_scale.py [--requests 10] [--attempts 3] [--courses 11]
        [--learners 500] [--big 2000] [--postgres URL] [--no-sqlite]

URL is an empty PostgreSQL database the benchmark may wipe (its public schema is dropped and made
again), e.g. postgresql+psycopg://grader:grader@127.0.0.1:5432/grader_scale. To time another page,
add a line to PAGES.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script, so benchmarks/ is on sys.path; the project root too

import sqlalchemy as sa  # noqa: E402
from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from class_build import PASSWORD, Plan, analyze, build_course, migrate  # noqa: E402
from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.models import User  # noqa: E402
from grader.services import api_tokens  # noqa: E402

EXERCISE = "block-residual"  # a numeric exercise every course uses
LESSON = "gpt2-block"
# (name, path, who asks: instructor, learner or api). {code} is the course's code, {learner} its first learner's id.
# The learner's pages come first: opening the exercise gives them a variant, which their work page then shows.
PAGES: list[tuple[str, str, str]] = [
    ("learner dashboard", "/", "learner"),
    ("learner's exercise page", f"/exercises/{EXERCISE}", "learner"),
    ("instructor dashboard", "/teach/", "instructor"),
    ("dashboard, one lesson", f"/teach/?lesson={LESSON}", "instructor"),
    *((f"dashboard CSV {name}", f"/teach/figures/{name}.csv", "instructor")
      for name in ("solve-rates", "misconceptions-this-week", "stuck-learners", "completion")),
    ("exercise list (wrong answers)", "/teach/exercises", "instructor"),
    ("one exercise (wrong answers)", f"/teach/exercises/{EXERCISE}", "instructor"),
    ("one exercise's analytics", f"/teach/exercises/{EXERCISE}/analytics", "instructor"),
    *((f"analytics CSV {name}", f"/teach/exercises/{EXERCISE}/figures/{name}.csv", "instructor")
      for name in ("attempts-to-solve", "hints", "misconceptions")),
    ("one exercise's attempts CSV", f"/teach/exercises/{EXERCISE}/attempts.csv", "instructor"),
    ("gradebook", "/teach/gradebook", "instructor"),
    ("gradebook, one lesson", f"/teach/gradebook?lesson={LESSON}", "instructor"),
    ("gradebook CSV", "/teach/gradebook.csv", "instructor"),
    ("learner's work", f"/teach/gradebook/{{learner}}/{EXERCISE}", "instructor"),
    ("audit", "/teach/audit", "instructor"),
    ("courses page", "/courses", "instructor"),
    ("API courses", "/api/v1/courses", "api"),
    ("API gradebook CSV", "/api/v1/gradebook.csv", "api"),
    ("API course gradebook CSV", "/api/v1/courses/{code}/gradebook.csv", "api"),
    ("API learner progress", "/api/v1/progress", "learner-api"),
]


class Visitor:
    """The instructor, a learner and API clients of one course, and a count of the statements each request runs."""

    def __init__(self, app: Flask, code: str) -> None:
        self.app, self.code, self.statements = app, code, 0
        with app.app_context():
            learner = db.session.scalar(sa.select(User).where(User.email == f"learner0@{code}.example.com"))
            teacher = db.session.scalar(sa.select(User).where(User.email == f"instructor@{code}.example.com"))
            assert learner is not None and teacher is not None
            self.learner_id = learner.id
            tokens = {"api": api_tokens.create_token(teacher), "learner-api": api_tokens.create_token(learner)}
        self.clients: dict[str, FlaskClient] = {}
        for who, email in (("instructor", f"instructor@{code}.example.com"), ("learner", f"learner0@{code}.example.com")):
            client = self.clients[who] = app.test_client()
            assert client.post("/login", data={"email": email, "password": PASSWORD}).status_code in (302, 303), email
        self.headers = {who: {"Authorization": f"Bearer {token}"} for who, token in tokens.items()}

    def get(self, path: str, who: str) -> tuple[float, int]:
        """(ms, statements) of one GET, its body read to the end; stops the run on anything but a 200."""
        path = path.format(code=self.code, learner=self.learner_id)
        client = self.clients.get(who) or self.clients["instructor"]
        self.statements = 0
        start = time.perf_counter()
        reply = client.get(path, headers=self.headers.get(who, {}))
        reply.get_data()
        elapsed = 1000 * (time.perf_counter() - start)
        if reply.status_code != 200:
            raise SystemExit(f"GET {path} as {who} in {self.code}: {reply.status_code} {reply.get_data()[:300]!r}")
        return elapsed, self.statements


def counting(app: Flask, visitors: list[Visitor]) -> None:
    """Count every statement the app's engine runs into each visitor's counter."""
    with app.app_context():
        engine = db.engine

    def seen(*_: Any) -> None:
        for visitor in visitors:
            visitor.statements += 1

    sa.event.listen(engine, "before_cursor_execute", seen)


def statements(visitor: Visitor) -> dict[str, int]:
    """Each page's statements on its second request (the first warms caches)."""
    found = {}
    for name, path, who in PAGES:
        visitor.get(path, who)
        found[name] = visitor.get(path, who)[1]
    return found


def timed(visitor: Visitor, requests: int) -> dict[str, dict[str, float]]:
    """p50 and p95 (ms) of each page over `requests` requests after one warm-up, and its statements (as counted
    by `statements`, right after signing in: now and then a request also notes when its sign-in was last seen)."""
    counts, found = statements(visitor), {}
    for name, path, who in PAGES:
        visitor.get(path, who)
        found[name] = _summary([visitor.get(path, who)[0] for _ in range(requests)]) | {"statements": counts[name]}
    return found


def _summary(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {"p50": statistics.median(times), "p95": times[round(0.95 * (len(times) - 1))]}


def baselines(app: Flask, visitor: Visitor, requests: int) -> dict[str, dict[str, float]]:
    """GET /healthz through the test client, and the big course's progress rows read with one raw query."""
    health = [visitor.get("/healthz", "learner")[0] for _ in range(requests + 1)][1:]
    with app.app_context():
        course = db.session.scalar(sa.text("SELECT id FROM courses WHERE code = :code"), {"code": visitor.code})
        query = sa.text("SELECT user_id, exercise_id, best_score, attempts_used, solved_at FROM progress WHERE course_id = :c")
        raw = []
        for _ in range(requests + 1):
            start = time.perf_counter()
            rows = db.session.execute(query, {"c": course}).all()
            raw.append(1000 * (time.perf_counter() - start))
        db.session.rollback()
    return {"GET /healthz": _summary(health), f"raw SQL: {len(rows):,} progress rows": _summary(raw[1:])}


def fresh_database(url: str | None, work: Path) -> str:
    """A SQLite file in `work`, or the PostgreSQL database at `url` emptied."""
    if url is None:
        return f"sqlite:///{work / 'scale.db'}"
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    with engine.begin() as connection:
        connection.execute(sa.text("DROP SCHEMA public CASCADE"))
        connection.execute(sa.text("CREATE SCHEMA public"))
    engine.dispose()
    return url


def run(database: str, url: str, args: argparse.Namespace, pools: dict[str, Any]) -> None:
    """Build the courses on one database, measure and print its table; `pools` keeps graded answers for the next."""
    started = time.perf_counter()
    migrate(url)
    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "s" * 64, "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": False})  # fmt: skip
    plan, built = Plan(args.attempts, numeric_share=0.75, code_share=0.5), {}
    first, big = "c01", "big"
    with app.app_context():
        built[first] = build_course(first, args.learners, plan, pools)
        analyze()
    print(f"{database}: one course of {args.learners} built in {time.perf_counter() - started:.0f} s: {built[first]}", flush=True)
    alone = Visitor(app, first)
    counting(app, [alone])
    one_course = statements(alone)
    started = time.perf_counter()
    with app.app_context():
        for n in range(2, args.courses):
            built[f"c{n:02}"] = build_course(f"c{n:02}", args.learners, plan, pools)
        built[big] = build_course(big, args.big, plan, pools)
        analyze()
    total = {key: sum(c[key] for c in built.values()) for key in built[first]}
    print(f"{database}: {len(built)} courses built in {time.perf_counter() - started:.0f} s more; in all {total}", flush=True)
    visitors = [Visitor(app, first), Visitor(app, big)]
    counting(app, visitors)
    started, load = time.perf_counter(), f"{os.getloadavg()[0]:.1f}"
    figures = {code: timed(v, args.requests) for code, v in zip((first, big), visitors)}
    base = baselines(app, visitors[1], args.requests)
    print(f"{database}: measured in {time.perf_counter() - started:.0f} s; load average before {load}, after "
          f"{os.getloadavg()[0]:.1f} (2 cores: above 2, other work shares them)", flush=True)  # fmt: skip
    report(database, args, one_course, figures[first], figures[big], base)
    with app.app_context():
        db.engine.dispose()


def report(database: str, args: argparse.Namespace, one: dict[str, int], small: dict[str, dict[str, float]],
           big: dict[str, dict[str, float]], base: dict[str, dict[str, float]]) -> None:
    """The table: per page, p50/p95 and statements in each course, statements with one course, ratio to /healthz."""
    unit = base["GET /healthz"]["p50"]
    print(f"\n{database}, in-process through Flask's test client, {args.requests} requests a page after one warm-up "
          f"(p95: number {round(0.95 * (args.requests - 1)) + 1} of {args.requests}, fastest first)")
    print(f"{'':38}{f'course of {args.learners}':>26}{f'course of {args.big}':>26}{'statements':>16}{'p50 / healthz':>16}")
    print(f"{'page':38}{'p50 ms  p95 ms  stmts':>26}{'p50 ms  p95 ms  stmts':>26}{'1 vs ' + str(args.courses) + ' courses':>16}"
          f"{args.learners:>8}{args.big:>8}")  # fmt: skip
    for name, _, _ in PAGES:
        s, b = small[name], big[name]
        flag = "  OVER 500 ms" if max(s["p50"], b["p50"]) > 500 else ""
        grew = "" if one[name] == s["statements"] else " GREW"
        print(f"{name:38}{s['p50']:8.1f}{s['p95']:8.1f}{int(s['statements']):6}   {b['p50']:8.1f}{b['p95']:8.1f}"
              f"{int(b['statements']):6}   {one[name]:5} vs {int(s['statements']):<5}{grew:5}"
              f"{s['p50'] / unit:7.0f}x{b['p50'] / unit:7.0f}x{flag}")  # fmt: skip
    for name, figure in base.items():
        print(f"baseline {name}: p50 {figure['p50']:.2f} ms, p95 {figure['p95']:.2f} ms")


def main() -> int:
    """Measure on each database asked for."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=10, help="timed requests per page and course")
    parser.add_argument("--attempts", type=int, default=3, help="mean attempts per learner on a numeric exercise")
    parser.add_argument("--courses", type=int, default=11, help="courses in all, the big one included")
    parser.add_argument("--learners", type=int, default=500, help="learners in each course but the big one")
    parser.add_argument("--big", type=int, default=2000, help="learners in the big course")
    parser.add_argument("--postgres", metavar="URL", help="also on this PostgreSQL database (wiped first)")
    parser.add_argument("--no-sqlite", action="store_true", help="PostgreSQL only")
    args = parser.parse_args()
    os.environ.setdefault("GRADER_LOG_LEVEL", "warning")
    with tempfile.TemporaryDirectory(prefix="grader-scale-") as folder:
        databases: list[tuple[str, Callable[[], str]]] = [] if args.no_sqlite else [
            ("SQLite", lambda: fresh_database(None, Path(folder)))]
        if args.postgres:
            databases.append(("PostgreSQL", lambda: fresh_database(args.postgres, Path(folder))))
        pools: dict[str, Any] = {}
        for database, make in databases:
            run(database, make(), args, pools)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
