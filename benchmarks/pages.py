"""Learner pages in each language, against a bare Flask endpoint in the same process and run.

Builds the app on a fresh SQLite file with the shipped exercises and one learner, then times the
dashboard, an exercise page (with feedback on a malformed answer) and, once the learner has solved
it, a practice page and a practice check (new numbers, nothing stored) through Flask's test client,
in English, Portuguese and Russian. The baseline is a route on the same app that returns a short
string, so the ratios show what the pages themselves cost, and what translating them adds.

Then the pages with pictures (grader/pictures), each timed with its diagrams and again, in the same
run, with the picture helpers swapped for ones that draw nothing: the solved block-layernorm page
(the block diagram by the prompt and in the worked solution), block-gelu (diagram and GELU curve),
a wrong vector answer shown with its per-entry comparison, and ffn-edit's solution heatmap.

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
from grader.pictures import Pictures  # noqa: E402
from grader.services.courses import default_seat  # noqa: E402
from grader.services import accounts, attempts  # noqa: E402
from grader.services.sync import sync_directory  # noqa: E402

PASSWORD = "benchmark password"
EXERCISE = "block-layernorm"


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
    with app.app_context():
        user = accounts.user_by_email("reader@example.com")
        assert user is not None
        right = {f"part-{p.spec.id}": _typed(p.answer_json()) for p in attempts.learner_variant(default_seat(user.id), EXERCISE)[1].parts}
    solved = client.post(f"/exercises/{EXERCISE}", data={"csrf_token": token(client), **right})
    assert solved.status_code == 303, "the learner must solve the exercise before practising it"
    return app, client


PICTURED = ("block-gelu", "ffn-edit")  # solved in the picture timings, so their solutions' pictures show


def solve(app: Flask, client: FlaskClient, exercise: str) -> None:
    """Answer `exercise` right as the benchmark's learner."""
    with app.app_context():
        user = accounts.user_by_email("reader@example.com")
        assert user is not None
        parts = attempts.learner_variant(default_seat(user.id), exercise)[1].parts
    right = {f"part-{p.spec.id}": _typed(p.answer_json(), p.spec.type) for p in parts}
    assert client.post(f"/exercises/{exercise}", data={"csrf_token": token(client), **right}).status_code == 303


def _typed(value: object, kind: str = "") -> str:
    if kind == "index-set":
        return "{" + ", ".join(str(v) for v in value) + "}"  # type: ignore[attr-defined]
    return "[" + "; ".join(f"{v:.4f}" for v in value) + "]" if isinstance(value, list) else f"{value:.4f}"


def drawing(app: Flask, on: bool) -> None:
    """Let the templates draw the pictures, or swap the helpers for ones that draw nothing."""
    from grader.web.pictures import answer_comparison
    from grader.pictures import variant_pictures

    if on:
        app.jinja_env.globals.update(exercise_pictures=variant_pictures, answer_comparison=answer_comparison)
    else:
        app.jinja_env.globals.update(exercise_pictures=lambda *a: Pictures(), answer_comparison=lambda *a: None)
    # An imported template (the macros) keeps the globals it was first made with: load them all again.
    app.jinja_env.cache.clear()


def picture_pages(app: Flask, client: FlaskClient, requests: int, bare: float) -> None:
    """Each page with pictures timed with and without them, in every language."""
    for exercise in PICTURED:
        solve(app, client, exercise)
    wrong = client.post(f"/exercises/{EXERCISE}", data={"csrf_token": token(client), "part-mu": "0.1000",
                                                       "part-sigma": "1.0000", "part-u": "[1.0000; 2.0000; 3.0000; 4.0000]"})  # fmt: skip
    pages = {"block-layernorm": f"/exercises/{EXERCISE}", "block-gelu": "/exercises/block-gelu",
             "wrong vector": wrong.headers["Location"], "ffn-edit": "/exercises/ffn-edit"}  # fmt: skip
    print("\npages with pictures, timed with them and without (same run):")
    for locale in ("en", "pt", "ru"):
        client.post("/language", data={"csrf_token": token(client), "locale": locale, "next": "/"})
        for name, url in pages.items():
            drawn = client.get(url).get_data(as_text=True).count("<svg")
            with_ms = without_ms = float("inf")
            for _ in range(2):  # alternated, best of each: other work on the machine hits both alike
                drawing(app, True)
                with_ms = min(with_ms, per_request_ms(lambda: client.get(url), requests))
                drawing(app, False)
                assert "<svg" not in client.get(url).get_data(as_text=True)
                without_ms = min(without_ms, per_request_ms(lambda: client.get(url), requests))
            drawing(app, True)
            print(f"{locale}  {name:<16} {drawn} svg  with {with_ms:7.3f} ms   without {without_ms:7.3f} ms"
                  f"   pictures {with_ms - without_ms:6.3f} ms   / bare {with_ms / bare:5.1f}")


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
        numbers = client.get(f"/exercises/{EXERCISE}/practice").headers["Location"]
        practice = {"csrf_token": token(client), "numbers": numbers.split("numbers=")[1], "part-mu": "0.1000",
                    "part-sigma": "1.0000", "part-u": "[1; 2; 3; 4]"}  # fmt: skip
        pages = {
            "dashboard": lambda: client.get("/"),
            "exercise": lambda: client.get(f"/exercises/{EXERCISE}"),
            "feedback (422)": lambda: client.post(f"/exercises/{EXERCISE}", data=broken),
            "practice": lambda: client.get(numbers),
            "practice check": lambda: client.post(f"/exercises/{EXERCISE}/practice", data=practice),
        }
        for name, call in pages.items():
            ms = per_request_ms(call, args.requests)
            print(f"{locale}  {name:<15} {ms:7.3f} ms   / bare {ms / bare:5.1f}")
    picture_pages(app, client, args.requests, bare)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
