"""Mixed load from simulated learners against the full stack: gunicorn, Celery, PostgreSQL, Redis.

Starts, on loopback: a throw-away redis-server, a fresh PostgreSQL database `grader_load_<random>`
(created through the admin URL, dropped at the end), gunicorn with gunicorn.conf.py, and one
Celery worker with 2 prefork processes grading code in the sandbox. Makes the learners, each with
an API token and a signed-in browser session, then runs one thread per learner for the given time.
Each thread picks its next request by weight:

    api      GET  /api/v1/exercises/<id>                (a numeric or the code exercise)
    page     GET  /exercises/<id>                       (the HTML page, with the learner's session)
    attempt  POST /api/v1/exercises/<id>/attempts       (random well-formed answers: graded, stored)
    code     POST /api/v1/exercises/code-layer-norm/submissions   (a correct or a wrong layer_norm)
    poll     GET  /api/v1/submissions/<id>              (the learner's latest submission)

then thinks (exponential, mean --think seconds; 0: the next request at once). A thread finishes
its request in flight when the time is up, so the client's counts are complete; the 201s are
also counted from gunicorn's access log. Afterwards it waits (up to --drain seconds) for the
grading queue to empty, and compares what the database holds with the 201s sent.

The client is Python threads, not wrk, to get latencies per kind of request. So that it is not
mistaken for the bottleneck, it prints its own CPU use beside the machine's, and by default first
measures the rate the same client reaches against benchmarks/bare_app.py on the same gunicorn
settings (--calibrate 0 skips that).

    .venv/bin/python benchmarks/load.py [--learners 200] [--seconds 60] [--think 0] [--drain 60]

Needs redis-server, bubblewrap, root (the sandbox) and a PostgreSQL role that may create
databases: --admin-url, or $GRADER_TEST_DATABASE_URL, or grader:grader@127.0.0.1:5432/grader_test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

# Run as a script, so benchmarks/ is on sys.path.
from load_report import access_log, cpu_busy, cpu_by_process, cpu_used, percentile
from load_clients import CODE, DEFAULT_WEIGHTS, KINDS, Learner, Stats, act, run_learners, run_threads, weights_from
from load_stack import PASSWORD, Processes, create_database, flask, free_port, listening, log_in, query, request, wait_until

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
DEFAULT_ADMIN = "postgresql+psycopg://grader:grader@127.0.0.1:5432/grader_test"
SECRET = "L" * 64
LEARNERS_SCRIPT = """
import json, sys
from grader import create_app
from grader.extensions import db
from grader.models import User
from grader.services import accounts, api_tokens, api_tokens

count = int(sys.argv[1])
app = create_app()
with app.app_context():
    first = accounts.create_user("load0@example.com", sys.argv[2], "learner")
    # one argon2 hash for everyone: the same password, so hashing 200 times would only cost time
    db.session.add_all([User(email=f"load{i}@example.com", password_hash=first.password_hash, role="learner")
                        for i in range(1, count)])
    db.session.commit()
    users = db.session.scalars(db.select(User).order_by(User.id)).all()
    made = []
    for user in users:
        # The signed session cookie the login form would set, with its sign-in kept on the server as the
        # form's is, without argon2 (~0.15 s CPU a login).
        with app.test_request_context("/login", method="POST", headers={"User-Agent": "load test"}):
            from flask import session
            from grader.web.auth import sign_in
            sign_in(user)
            cookie = app.session_interface.get_signing_serializer(app).dumps(dict(session))
        made.append([user.email, api_tokens.create_token(user, "load"), cookie])
    print(json.dumps(made))
"""



# ---------------------------------------------------------------- main


def calibrate(processes: Processes, env: dict[str, str], count: int, seconds: float, directory: Path) -> float:
    """Requests/s the same client reaches against the bare Flask app (so: not the client's limit)."""
    port = free_port()
    argv = [PYTHON, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "bare_app:app"]
    settings = {"GRADER_BIND": f"127.0.0.1:{port}", "GRADER_ACCESS_LOG": str(directory / "bare-access.log"),
                "GRADER_LOG_LEVEL": "warning"}  # fmt: skip
    server = processes.start("bare", argv, {**env, **settings}, cwd=ROOT / "benchmarks")
    try:
        wait_until(lambda: listening(port), 30, "the bare app")
        done = Counter[int | None]()
        lock = threading.Lock()
        stop = threading.Event()

        def loop() -> None:
            body = b'{"answers": {"h": "[1.000; 2.000; 3.000; 4.000]"}}'
            headers = {"Content-Type": "application/json"}
            while not stop.is_set():
                status = request(port, "POST", "/api/v1/exercises/x/attempts", headers, body).status
                with lock:
                    done[status] += 1

        started = run_threads([loop] * count, stop, seconds, 60)
        return sum(done.values()) / (time.monotonic() - started)
    finally:
        processes.stop(server)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds, after the warm-up")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of load before measuring")
    parser.add_argument("--think", type=float, default=0.0, help="mean think time between a learner's requests (s)")
    parser.add_argument("--weights", default=DEFAULT_WEIGHTS, help=f"request mix (default {DEFAULT_WEIGHTS})")
    parser.add_argument("--drain", type=float, default=60.0, help="longest wait for the grading queue to empty (s)")
    parser.add_argument("--gunicorn-workers", type=int, default=None, help="default: gunicorn.conf.py's 2 * CPUs + 1")
    parser.add_argument("--celery-processes", type=int, default=2)
    parser.add_argument("--form-logins", action="store_true",
                        help="sign every learner in through the login form first (argon2: ~0.15 s CPU each)")
    parser.add_argument("--calibrate", type=float, default=5.0, help="seconds against the bare app first (0: skip)")
    parser.add_argument("--admin-url", default=os.environ.get("GRADER_TEST_DATABASE_URL") or DEFAULT_ADMIN)
    args = parser.parse_args()
    weights = weights_from(args.weights)
    kinds, cumulative = list(weights), list(weights.values())

    def pick(rng: random.Random) -> str:
        return rng.choices(kinds, cumulative)[0]

    directory = Path(tempfile.mkdtemp(prefix="grader-load-"))
    processes = Processes(directory)
    database, drop = create_database(args.admin_url)
    redis_port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADER_")}
    env.update({"GRADER_DATABASE_URL": database, "GRADER_SECRET_KEY": SECRET, "GRADER_RATELIMIT_ENABLED": "false",
                "GRADER_BROKER_URL": f"redis://127.0.0.1:{redis_port}/0", "PYTHONPATH": str(ROOT)})  # fmt: skip
    if args.gunicorn_workers:
        env["GRADER_WORKERS"] = str(args.gunicorn_workers)
    try:
        return run(args, env, processes, database, redis_port, directory, pick)
    finally:
        processes.stop_all()
        drop()
        print(f"(logs in {directory}; database {database.rsplit('/', 1)[-1]} dropped)")


def run(args: argparse.Namespace, env: dict[str, str], processes: Processes, database: str, redis_port: int,
        directory: Path, pick: Callable[[random.Random], str]) -> int:  # fmt: skip
    if args.calibrate > 0:
        bare_rate = calibrate(processes, env, args.learners, args.calibrate, directory)
    processes.start("redis", ["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(directory)], env)  # fmt: skip
    wait_until(lambda: listening(redis_port), 10, "redis-server")
    flask(env, "db", "upgrade")
    flask(env, "exercises", "sync")
    made = json.loads(subprocess.run([PYTHON, "-c", LEARNERS_SCRIPT, str(args.learners), PASSWORD], cwd=ROOT, env=env,
                                     check=True, capture_output=True, text=True).stdout)  # fmt: skip
    learners = [Learner(email, token, cookie) for email, token, cookie in made]

    port = free_port()
    access = directory / "access.log"
    gunicorn = processes.start(
        "gunicorn", [PYTHON, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "wsgi:app"],
        {**env, "GRADER_BIND": f"127.0.0.1:{port}", "GRADER_ACCESS_LOG": str(access), "GRADER_LOG_LEVEL": "warning"},
    )
    worker = processes.start("celery", [PYTHON, "-m", "celery", "-A", "grader.tasks", "worker", "--concurrency",
                                        str(args.celery_processes), "--pool", "prefork", "-Q", "grading",
                                        "--without-heartbeat", "--without-mingle", "--without-gossip",
                                        "--loglevel", "INFO"], env)  # fmt: skip
    wait_until(lambda: listening(port), 30, "gunicorn")
    wait_until(lambda: " ready." in (directory / "celery.log").read_text(errors="replace"), 60, "the Celery worker")
    started = time.monotonic()
    if args.form_logins:
        with ThreadPoolExecutor(16) as pool:
            for learner, cookie in zip(learners, pool.map(lambda lr: log_in(port, lr.email), learners)):
                learner.session = cookie
    login_seconds = time.monotonic() - started
    signed_in = request(port, "GET", f"/exercises/{CODE}", {"Cookie": f"session={learners[0].session}"})
    if signed_in.status != 200 or b"layer_norm" not in signed_in.body:
        raise SystemExit(f"the session cookie does not sign in: {signed_in.status}")
    # Warm-up, not measured: one code submission per Celery process starts each one's sandbox pool.
    warm_up = Stats()
    with ThreadPoolExecutor(args.celery_processes) as pool:
        list(pool.map(lambda i: act("code", learners[i % len(learners)], port, random.Random(i), warm_up),
                      range(args.celery_processes)))  # fmt: skip
    workers = len([p for p in subprocess.run(["ps", "--ppid", str(gunicorn.pid), "-o", "pid="],
                                             capture_output=True, text=True).stdout.split()])  # fmt: skip

    stats = Stats()
    log_lines = len(access.read_text().splitlines())
    cpu_before, process_before, parts_before = cpu_busy(), time.process_time(), cpu_by_process()
    begun = run_learners(learners, port, args.warmup + args.seconds, args.think, pick, stats)
    ended = time.monotonic()
    busy, total = (a - b for a, b in zip(cpu_busy(), cpu_before))
    parts = cpu_used(parts_before, cpu_by_process())
    client_cpu = time.process_time() - process_before
    measured_from = begun + args.warmup
    measured = [s for s in stats.samples if s.sent >= measured_from]
    duration = max(s.answered for s in measured) - measured_from if measured else float("nan")
    settled = log_lines + sum(1 for s in stats.samples if s.answered < measured_from)
    server_statuses, server_ms = access_log(access, skip=settled)
    with open(directory / "requests.csv", "w") as handle:  # every request, for a closer look
        handle.write("sent_s,kind,ms,status\n")
        handle.writelines(f"{s.sent - begun:.4f},{s.kind},{s.ms:.2f},{s.status}\n"
                          for s in sorted(stats.samples, key=lambda s: s.sent))  # fmt: skip

    print(f"stack: gunicorn {workers} sync workers, Celery 1 worker x {args.celery_processes} processes (sandbox), "
          f"PostgreSQL {database.rsplit('/', 1)[-1]}, redis-server :{redis_port}; {os.cpu_count()} CPUs")
    signed = f"signed in through the form in {login_seconds:.1f} s" if args.form_logins else \
        "sessions minted with the app's cookie signer, as the login form sets them"  # fmt: skip
    print(f"learners: {len(learners)} ({signed}); think time {args.think:g} s; mix {args.weights}")
    print(f"run: {ended - begun:.1f} s, of which the first {args.warmup:g} s are warm-up (every learner's first "
          f"views build its variants); the table covers the {duration:.1f} s after it")
    if args.calibrate > 0:
        print(f"client check: the same client, {args.learners} threads, reaches {bare_rate:.0f} req/s "
              "against the bare app")
    print(f"client CPU {client_cpu:.1f} s = {100 * client_cpu / (ended - begun):.0f}% of one core; "
          f"machine CPU busy {100 * busy / total:.0f}% of {os.cpu_count()} cores")
    print("CPU seconds during the run: " + ", ".join(f"{k} {v:.1f}" for k, v in parts.most_common() if v >= 0.05))
    print(f"\n{'kind':<8} {'requests':>8} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} {'server p50':>10} "
          f"{'server p99':>10}  statuses")
    for kind in [*KINDS, "all"]:
        mine = [s for s in measured if kind in ("all", s.kind)]
        values = [s.ms for s in mine]
        counted = sorted(Counter(s.status for s in mine).items(), key=lambda item: (item[0] is None, item[0] or 0))
        shown = ", ".join(f"{'no answer' if status is None else status}: {n}" for status, n in counted)
        server = server_ms.get(kind, []) if kind != "all" else [v for vs in server_ms.values() for v in vs]
        print(f"{kind:<8} {len(values):>8} {len(values) / duration:>7.1f} {percentile(values, 50):>8.1f} "
              f"{percentile(values, 99):>8.1f} {percentile(server, 50):>10.0f} {percentile(server, 99):>10.0f}  "
              f"{shown}")  # fmt: skip
    every = stats.samples + warm_up.samples
    errors = sum(1 for s in every if s.status is not None and s.status >= 500)
    no_answer = sum(1 for s in every if s.status is None)
    print(f"whole run, warm-up included: {len(every)} requests, 5xx responses: {errors}, "
          f"requests without any response: {no_answer}")
    print(f"code submissions answered: {dict(stats.code_answered)} (graded within the request's wait, or pending)")

    # Compare with the database once every request has been answered.
    stored_attempts = query(database, "SELECT count(*) FROM attempts")[0][0]
    stored_submissions = query(database, "SELECT count(*) FROM submissions")[0][0]
    for name, kind, stored in (("attempts", "attempt", stored_attempts), ("submissions", "code", stored_submissions)):
        logged, seen = server_statuses[kind][201], stats.created(kind) + warm_up.created(kind)
        verdict = "equal" if stored == logged == seen else "DIFFERENT"
        print(f"{name}: {stored} in the database, {logged} 201s in gunicorn's access log, {seen} 201s seen by "
              f"the client (warm-up included): {verdict}")

    pending = query(database, "SELECT count(*) FROM submissions WHERE status = 'pending'")[0][0]
    drained_from = time.monotonic()
    while pending and time.monotonic() - drained_from < args.drain:
        time.sleep(1.0)
        pending = query(database, "SELECT count(*) FROM submissions WHERE status = 'pending'")[0][0]
    waited = time.monotonic() - drained_from
    print(f"after the load: {pending} submissions still pending after {waited:.0f} s of draining "
          f"(limit {args.drain:g} s); Celery worker {'alive' if worker.poll() is None else 'DEAD'}")
    results = query(database, "SELECT status, result->>'status', count(*) FROM submissions "
                              "GROUP BY 1, 2 ORDER BY 1, 2")
    print("submissions by status / result: " + ", ".join(f"{s}/{r}: {n}" for s, r, n in results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
