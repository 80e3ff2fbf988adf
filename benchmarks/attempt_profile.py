"""An API attempt in one process: CPU per request against raw sqlite3 and bare Flask, and where it goes.

Builds the app on a fresh SQLite file (the shipped exercises, learners with API tokens) and calls
the WSGI apps directly, one request after another, with the bodies benchmarks/attempts.lua sends:
POST /api/v1/exercises/block-residual/attempts with a random well-formed answer. In the same run,
on the same database: benchmarks/raw_app.py grading and storing, storing only, and
benchmarks/bare_app.py, in interleaved rounds (the box is shared: the least round of each is
shown). Prints CPU and wall time per request and the ratios to raw grade+store (the goal of issue
23: at most 1.25 through gunicorn; here, without gunicorn's own cost, the ratio is higher). With
--profile, then times each part of a request with wrappers (CPU µs, inclusive, so nested parts
count in their callers too; the wrappers add their own cost to the outer lines), then lists the
functions costing most by their own time under cProfile.

    .venv/bin/python benchmarks/attempt_profile.py [--requests 2000] [--rate-limit] [--cold] [--profile]

--rate-limit keeps the API's rate limit on (the SQLite counter file, as shipped); off by default,
as in benchmarks/http_attempts.py. --cold empties the CPU caches before each request: under
gunicorn, five workers and wrk share two cores, so a request mostly starts with caches another
process filled, and costs more the more code and data it touches; cold figures come closer to
http_attempts.py's than a hot loop's do.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import io
import json
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import numpy  # noqa: E402

from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.services import accounts, api_tokens  # noqa: E402
from grader.services.sync import sync_directory  # noqa: E402

PATH = "/api/v1/exercises/block-residual/attempts"
LEARNERS = 64
_EVICT = numpy.ones(64 * 2**20 // 8)  # 64 MB of float64: more than this box's caches
Wsgi = Callable[[dict[str, Any], Callable[..., Any]], Any]
def body() -> bytes:
    """A random well-formed answer, as benchmarks/attempts.lua writes it."""
    entries = "; ".join(f"{(random.random() - 0.5) * 6:.3f}" for _ in range(4))
    return json.dumps({"answers": {"h": f"[{entries}]"}}).encode()


def call(app: Wsgi, token: str) -> int:
    """One POST through the WSGI app; returns the status code."""
    data = body()
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": PATH, "SCRIPT_NAME": "", "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1", "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr, "wsgi.multithread": False,
        "wsgi.multiprocess": True, "wsgi.run_once": False, "wsgi.version": (1, 0), "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)), "HTTP_AUTHORIZATION": f"Bearer {token}", "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_USER_AGENT": "attempt_profile",  # no Accept-Encoding: wrk sends none
    }  # fmt: skip
    status: list[str] = []
    chunks = app(environ, lambda s, headers, exc_info=None: status.append(s))
    b"".join(chunks)
    getattr(chunks, "close", lambda: None)()
    return int(status[0].split()[0])


def measure(apps: dict[str, Wsgi], tokens: list[str], requests: int, cold: bool,
            rounds: int = 10) -> dict[str, tuple[float, float]]:  # fmt: skip
    """CPU and wall µs per request of each app: the least over `rounds` interleaved rounds (the box is shared:
    the least is the figure other work disturbed least); every reply must be a 2xx. With `cold`, the CPU
    caches are emptied before each request and only the requests are timed."""
    best = {name: (float("inf"), float("inf")) for name in apps}
    for wsgi in apps.values():  # warm-up: caches, connections, seeds
        for i in range(200):
            call(wsgi, tokens[i % len(tokens)])
    per_round = max(requests // rounds, 1)
    for _ in range(rounds):
        for name, wsgi in apps.items():
            cpu = wall = 0.0
            for i in range(per_round):
                if cold:
                    _EVICT.sum()  # reading more than the caches hold pushes the last request's code and data out
                started_cpu, started_wall = time.process_time(), time.perf_counter()
                status = call(wsgi, tokens[i % len(tokens)])
                cpu, wall = cpu + time.process_time() - started_cpu, wall + time.perf_counter() - started_wall
                assert 200 <= status < 300, status
            spent = (1e6 * cpu / per_round, 1e6 * wall / per_round)
            best[name] = (min(best[name][0], spent[0]), min(best[name][1], spent[1]))
    return best


def prepare(work: Path, rate_limit: bool, learners: int = LEARNERS) -> tuple[Wsgi, list[str], str]:
    """The app on a fresh database with learners; returns it, their tokens and the database file."""
    database = work / "profile.db"
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}", "SECRET_KEY": "p" * 64,
                      "RATELIMIT_ENABLED": rate_limit, "INSTANCE_PATH": str(work)})  # fmt: skip
    with app.app_context():
        db.create_all()
        sync_directory(app.config["EXERCISES_DIR"])
        tokens = [api_tokens.create_token(accounts.create_user(f"p{i}@example.com", "profile password", "learner"), "p")
                  for i in range(learners)]  # fmt: skip
    return app, tokens, str(database)


def baselines(database: str) -> dict[str, Wsgi]:
    """raw_app in both modes and bare_app, on the same database."""
    os.environ["GRADER_DATABASE_URL"] = f"sqlite:///{database}"
    found: dict[str, Wsgi] = {}
    for name, mode in (("raw grade+store", "1"), ("raw store-only", "")):
        os.environ["RAW_GRADE"] = mode
        sys.modules.pop("raw_app", None)
        found[name] = importlib.import_module("raw_app").app
    found["bare Flask"] = importlib.import_module("bare_app").app
    return found


def _timed(owner: Any, name: str, label: str, spent: dict[str, float]) -> None:
    """Replace owner.name with a wrapper adding its inclusive CPU time to spent[label]."""
    original = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - started

    setattr(owner, name, timed)


def _parts(app: Any) -> list[tuple[str, Any, str]]:
    """The parts of an attempt request to time: (label, owner, attribute), outermost first."""
    from flask import Flask
    from flask.ctx import RequestContext
    from flask_limiter import Limiter
    from sqlalchemy.engine.default import DefaultDialect
    from sqlalchemy.orm.scoping import scoped_session

    from grader.lti import outbox
    from grader.services import attempts, progress
    from grader.web import api

    return [
        ("whole request (WSGI call)", Flask, "wsgi_app"),
        ("  request context push (session open, URL match)", RequestContext, "push"),
        ("  before_request hooks", Flask, "preprocess_request"),
        ("  the view", Flask, "dispatch_request"),
        ("    bearer: token owner (SELECT)", api_tokens, "token_owner"),
        ("    bearer: touch token", api_tokens, "touch_token"),
        ("    rate limit: count and check", Limiter, "_check_request_limit"),
        ("    body: answers_from_body", api, "answers_from_body"),
        ("    attempts.submit", attempts, "submit"),
        ("      _current (SELECT version, seed)", attempts, "_current"),
        ("      _variant (cached)", attempts, "_variant"),
        ("      known_answers", attempts, "known_answers"),
        ("      check_answers (grading)", attempts, "check_answers"),
        ("      _record", attempts, "_record"),
        ("        progress.lock_counting (upsert)", progress, "lock_counting"),
        ("        answers_digest", attempts, "answers_digest"),
        ("        progress.credit (UPDATE)", progress, "credit"),
        ("          outbox.queue_scores (SELECT links)", outbox, "queue_scores"),
        ("        db.session.commit", scoped_session, "commit"),
        ("    reply: _attempt_out", api, "_attempt_out"),
        ("    reply: jsonify", api, "jsonify"),
        ("  after_request hooks", Flask, "process_response"),
        ("  request context pop (teardown)", RequestContext, "pop"),
        ("  in the DB driver: statements", DefaultDialect, "do_execute"),
        ("  in the DB driver: commits (fsync)", DefaultDialect, "do_commit"),
    ]


def _name(hook: Any) -> str:
    """A hook's module and name (Flask-Limiter registers a functools.partial)."""
    hook = getattr(hook, "func", hook)
    return f"{hook.__module__}.{hook.__qualname__}"


def profile(app: Any, tokens: list[str], requests: int) -> None:
    """Time each part of the attempts (wrappers, inclusive CPU µs), then cProfile's costliest functions."""
    spent: dict[str, float] = {}
    parts = _parts(app)
    for label, owner, name in parts:
        _timed(owner, name, label, spent)
    hooks = [(f"    before_request {_name(f)}", app.before_request_funcs, f)
             for f in app.before_request_funcs.get(None, [])]
    hooks += [(f"    after_request {_name(f)}", app.after_request_funcs, f)
              for f in app.after_request_funcs.get(None, [])]
    hooks += [(f"    teardown {_name(f)}", app.teardown_appcontext_funcs, f)
              for f in app.teardown_appcontext_funcs]
    for label, registry, function in hooks:
        funcs = registry.get(None, []) if isinstance(registry, dict) else registry
        holder = SimpleNamespace(f=function)  # _timed replaces an attribute: give the hook one
        _timed(holder, "f", label, spent)
        funcs[funcs.index(function)] = holder.f
    for i in range(requests):
        call(app, tokens[i % len(tokens)])
    print("\nparts of an attempt, CPU µs per request, inclusive (a part's lines below it are within it):")
    for label in [p[0] for p in parts] + [h[0] for h in hooks]:
        print(f"  {label:<64} {1e6 * spent.get(label, 0.0) / requests:7.0f}")
    profiler = cProfile.Profile()
    profiler.enable()
    for i in range(requests):
        call(app, tokens[i % len(tokens)])
    profiler.disable()
    print("\nunder cProfile, own time, costliest functions:")
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main() -> int:
    """Measure, compare, and profile on request."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rate-limit", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--cold", action="store_true", help="empty the CPU caches before each request")
    args = parser.parse_args()
    random.seed(23)
    # With the limit on (30 attempts a minute each), enough learners that none reaches it.
    learners = LEARNERS if not args.rate_limit else max(LEARNERS, (200 + 3 * args.requests) // 30 + 1)
    app, tokens, database = prepare(Path(tempfile.mkdtemp(prefix="grader-profile-")), args.rate_limit, learners)
    runs = {"grader attempts": app, **baselines(database)}
    figures = measure(runs, tokens, args.requests, args.cold)
    raw = figures["raw grade+store"][0]
    print(f"{args.requests} requests each in 10 interleaved rounds, the least round shown, one process; "
          f"rate limit {'on' if args.rate_limit else 'off'}, caches {'emptied before each request' if args.cold else 'as the previous request left them'}")
    for name, (cpu, wall) in figures.items():
        print(f"{name:<16} CPU {cpu:6.0f} µs   wall {wall:6.0f} µs   CPU / raw grade+store {cpu / raw:.2f}")
    if args.profile:
        profile(app, tokens, args.requests)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
