"""Attempts through the JSON API under load, against a bare Flask endpoint on the same gunicorn settings.

Starts gunicorn (gunicorn.conf.py) on loopback with a fresh SQLite database, makes learners with API
tokens, and drives POST /api/v1/exercises/block-residual/attempts with wrk (32 connections, random
well-formed answers so each one is graded and stored). Then the same load on baselines under the
same settings: benchmarks/bare_app.py (does nothing) and benchmarks/raw_app.py in its two modes,
which do an attempt's work with raw sqlite3 and nothing else: storing only, then grading and
storing. They split the cost of an attempt into storage, grading and the service's own layers.
Prints throughput, p50, p99, the ratios to bare Flask, 5xx counts, the CPU time each request cost
the server (master and workers, recycled ones included) and wrk, and whether the attempts stored
equal the 201 responses.

    .venv/bin/python benchmarks/http_attempts.py [--seconds 30] [--connections 32] [--postgres ADMIN_URL]

With --postgres, the service runs on a new PostgreSQL database made on that server (and dropped at
the end) instead of SQLite; the raw baselines are raw sqlite3 by definition and stay on SQLite.

Needs wrk (Debian package `wrk`).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, so benchmarks/ is on sys.path.
from load_stack import create_database, query

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
LEARNERS = 64


def free_port() -> int:
    """An unused loopback port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prepare(env: dict[str, str]) -> str:
    """Migrate, sync exercises and make learners; returns their tokens comma-separated."""
    subprocess.run([PYTHON, "-m", "flask", "--app", "wsgi", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True)  # fmt: skip
    subprocess.run([PYTHON, "-m", "flask", "--app", "wsgi", "exercises", "sync"], cwd=ROOT, env=env, check=True,
                   capture_output=True)  # fmt: skip
    script = (
        "from grader import create_app\nfrom grader.services import accounts, api_tokens\napp = create_app()\n"
        "with app.app_context():\n"
        f"    for i in range({LEARNERS}):\n"
        "        user = accounts.create_user(f'load{i}@example.com', 'load test password', 'learner')\n"
        "        print(api_tokens.create_token(user, 'bench'))\n"
    )
    out = subprocess.run([PYTHON, "-c", script], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return ",".join(out.stdout.split())


def serve(app: str, port: int, env: dict[str, str], cwd: Path, access_log: Path) -> subprocess.Popen[bytes]:
    """Start gunicorn with the project's config and wait until it accepts connections."""
    process = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), app],
        cwd=cwd, env={**env, "GRADER_BIND": f"127.0.0.1:{port}", "GRADER_ACCESS_LOG": str(access_log),
                      "GRADER_LOG_LEVEL": "warning"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"gunicorn did not start for {app}")


def server_cpu_seconds(pid: int) -> float:
    """CPU time of a gunicorn master and its workers, live or already exited (cutime and cstime)."""
    workers = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    total = 0
    for process in [str(pid), *workers]:
        try:
            fields = Path(f"/proc/{process}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:  # a worker recycled meanwhile: the master's cutime has it
            continue
        total += sum(int(f) for f in fields[11:13]) + (sum(int(f) for f in fields[13:15]) if process == str(pid) else 0)
    return total / os.sysconf("SC_CLK_TCK")


def client_cpu_seconds() -> float:
    """CPU time of this script's finished children (each wrk run)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load(port: int, seconds: int, connections: int, tokens: str) -> dict[str, float]:
    """Run wrk with the attempts script; returns the RESULT line's figures."""
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "--latency", "-s", str(ROOT / "benchmarks" / "attempts.lua"),
         f"http://127.0.0.1:{port}"],
        env={**os.environ, "GRADER_TOKENS": tokens}, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    line = next(x for x in out.splitlines() if x.startswith("RESULT"))
    return {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)}


def run(app: str, cwd: Path, env: dict[str, str], args: argparse.Namespace, tokens: str) -> tuple[dict[str, float], int]:
    """Serve one app, warm it up, measure it, stop it; returns the figures and the 201s it sent.

    wrk abandons the requests in flight when its time is up, so the 201s are counted from
    gunicorn's access log (both apps log the same way): every response the server sent.
    """
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="grader-access-")) / "access.log"
    server = serve(app, port, env, cwd, log)
    try:
        load(port, 2, args.connections, tokens)  # warm-up: imports, caches, connections
        server_before, client_before = server_cpu_seconds(server.pid), client_cpu_seconds()
        measured = load(port, args.seconds, args.connections, tokens)
        measured["server_us"] = 1e6 * (server_cpu_seconds(server.pid) - server_before) / measured["requests"]
        measured["client_us"] = 1e6 * (client_cpu_seconds() - client_before) / measured["requests"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    created = sum(1 for line in log.read_text().splitlines() if '/attempts HTTP/1.1" 201 ' in line)
    return measured, created


def stored_attempts(database_url: str, graded: bool) -> int:
    """Attempts in the database: the service's (version 1 and up) or the raw baselines' (version 0)."""
    sql = f"SELECT count(*) FROM attempts WHERE {'version > 0' if graded else 'version = 0'}"
    if database_url.startswith("sqlite:///"):
        with sqlite3.connect(database_url.removeprefix("sqlite:///")) as connection:
            return int(connection.execute(sql).fetchone()[0])
    return int(query(database_url, sql)[0][0])


def main() -> int:
    """Measure grader and the bare baseline, print both and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--postgres", metavar="ADMIN_URL", help="run the service on a new database on this server")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    work = Path(tempfile.mkdtemp(prefix="grader-bench-"))
    sqlite_url = f"sqlite:///{work / 'bench.db'}"
    env = {**os.environ, "GRADER_DATABASE_URL": sqlite_url, "GRADER_SECRET_KEY": "b" * 64,
           "GRADER_RATELIMIT_ENABLED": "false"}  # fmt: skip
    tokens = prepare(env)
    service_url, drop = create_database(args.postgres) if args.postgres else (sqlite_url, lambda: None)
    try:
        service_env = {**env, "GRADER_DATABASE_URL": service_url}
        service_tokens = prepare(service_env) if args.postgres else tokens  # the same learners there
        grader, created = run("wsgi:app", ROOT, service_env, args, service_tokens)
        stored = stored_attempts(service_url, True)
    finally:
        drop()
    baseline_env = {**env, "PYTHONPATH": str(ROOT)}
    raw_runs: dict[str, dict[str, float]] = {}
    raw_sent: dict[str, int] = {}
    for name, mode in (("raw grade+store", "1"), ("raw store-only", "")):
        raw_runs[name], raw_sent[name] = run("raw_app:app", ROOT / "benchmarks", {**baseline_env, "RAW_GRADE": mode},
                                             args, tokens)  # fmt: skip
    bare, _ = run("bare_app:app", ROOT / "benchmarks", baseline_env, args, tokens)
    workers = subprocess.run([PYTHON, "-c", "import multiprocessing as m; print(2 * m.cpu_count() + 1)"],
                             capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"gunicorn: {os.environ.get('GRADER_WORKERS', workers)} sync workers, {args.connections} connections, "
          f"{args.seconds} s, the service on {'PostgreSQL' if args.postgres else 'SQLite'}, raw baselines on SQLite")
    for name, r in (("grader attempts", grader), *raw_runs.items(), ("bare Flask", bare)):
        print(f"{name:<16} {r['rps']:8.1f} req/s   p50 {r['p50_ms']:7.2f} ms   p99 {r['p99_ms']:7.2f} ms   "
              f"5xx {int(r['server_errors'])}   socket errors {int(r['errors'])}   / bare {r['rps'] / bare['rps']:.2f}   "
              f"CPU per request: server {r['server_us']:5.0f} µs, wrk {r['client_us']:3.0f} µs")  # fmt: skip
    print(f"ratio grader / bare: {grader['rps'] / bare['rps']:.2f}")
    per_request = 2 * (bare["server_us"] + bare["client_us"]) - grader["client_us"]
    print(f"at 0.5 of bare on the same cores an attempt could cost about {per_request:.0f} µs of server CPU; "
          f"it costs {grader['server_us']:.0f} µs (raw grade+store {raw_runs['raw grade+store']['server_us']:.0f} µs)")
    for name, kept, sent in (("grader", stored, created), ("raw baselines", stored_attempts(sqlite_url, False),
                                                           sum(raw_sent.values()))):  # fmt: skip
        verdict = "equal" if kept == sent else "DIFFERENT"
        print(f"{name} attempts stored: {kept}; 201 responses sent (warm-up included): {sent}: {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
