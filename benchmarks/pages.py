"""Learner pages in each language, against a bare Flask endpoint in the same process and run.

Builds the app on a fresh SQLite file with the shipped exercises and one learner, then times the
dashboard and an exercise page (with feedback on a malformed answer) through Flask's test client,
in English, Portuguese and Russian. The baseline is a route on the same app that returns a short
string, so the ratios show what the pages themselves cost, and what translating them adds.

    .venv/bin/python benchmarks/pages.py [--requests 300]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.services import accounts  # noqa: E402
from grader.services.exercises import sync_directory  # noqa: E402

PASSWORD = "benchmark password"


def app_with_learner(work: Path) -> tuple[Flask, FlaskClient]:
    """The app on a fresh database, and a client signed in as a learner."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{work / 'pages.db'}", "SECRET_KEY": "p" * 64,
                      "RATELIMIT_ENABLED": False, "INSTANCE_PATH": str(work)})  # fmt: skip
    app.add_url_rule("/bench-bare", "bench_bare", lambda: "ok")
    with app.app_context():
        db.create_all()
        sync_directory(app.config["EXERCISES_DIR"])
        accounts.create_user("reader@example.com", PASSWORD, "learner")
    client = app.test_client()
    client.post("/login", data={"email": "reader@example.com", "password": PASSWORD, "csrf_token": token(client)})
    return app, client


def token(client: FlaskClient) -> str:
    """A CSRF token from the login page."""
    found = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', client.get("/login").get_data(as_text=True))
    assert found, "no CSRF token"
    return found.group(1)


def per_request_ms(call: Callable[[], object], requests: int) -> float:
    """The best of three timed rounds, in milliseconds per request."""
    for _ in range(20):
        call()
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(requests):
            call()
        best = min(best, (time.perf_counter() - start) / requests * 1000)
    return best


def main() -> int:
    """Time the pages per language and print them against the bare endpoint."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    app, client = app_with_learner(Path(tempfile.mkdtemp(prefix="grader-pages-")))
    bare = per_request_ms(lambda: client.get("/bench-bare"), args.requests)
    print(f"bare endpoint (same app, same client): {bare:.3f} ms per request")
    for locale in ("en", "pt", "ru"):
        client.post("/language", data={"csrf_token": token(client), "locale": locale, "next": "/"})
        broken = {"csrf_token": token(client), "part-mu": "", "part-sigma": "1", "part-u": "[1; 2; 3]"}
        pages = {
            "dashboard": lambda: client.get("/"),
            "exercise": lambda: client.get("/exercises/block-layernorm"),
            "feedback (422)": lambda: client.post("/exercises/block-layernorm", data=broken),
        }
        for name, call in pages.items():
            ms = per_request_ms(call, args.requests)
            print(f"{locale}  {name:<15} {ms:7.3f} ms   / bare {ms / bare:5.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
