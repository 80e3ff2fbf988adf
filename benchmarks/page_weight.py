"""Bytes per page, signed in, before and after compression and hashed static names, in one run.

Builds the app twice on fresh SQLite files with the shipped exercises, a learner (who has solved
block-layernorm, so its practice page opens) and an instructor: "before" with COMPRESS_RESPONSES and
STATIC_HASHED_NAMES off (the app as it was: nothing compressed, static files `no-cache`), "after"
as shipped. For each page it fetches the HTML and the static files the page links to, offering what
Chromium offers (gzip, deflate, br, zstd), and counts the body bytes sent:

- first view: an empty cache, every file in full;
- repeat view: the HTML again, and each static file only when its Cache-Control says to ask
  (`no-cache`: a conditional request, answered 304 with no body but still one round trip;
  a max-age: nothing at all until it runs out).

"3G s" is those bytes at Lighthouse's regular 3G (700 kbit/s), transfer alone, no round trips;
benchmarks/lighthouse.py measures the time to the largest content in Chromium.

    .venv/bin/python benchmarks/page_weight.py
"""

from __future__ import annotations

import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402

from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.services import accounts, courses  # noqa: E402
from grader.services.sync import sync_directory  # noqa: E402
from benchmarks.pages import EXERCISE, PASSWORD, solve, token  # noqa: E402

BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}
BEFORE = {"COMPRESS_RESPONSES": False, "STATIC_HASHED_NAMES": False}
THREE_G_BITS = 700_000  # Lighthouse's regular 3G throughput, bits per second
LEARNER, INSTRUCTOR = "reader@example.com", "teacher@example.com"


@dataclass
class Site:
    """The app with a signed-in learner and instructor, and the pages to measure: name -> (who, path)."""

    app: Flask
    clients: dict[str, FlaskClient]
    pages: dict[str, tuple[str, str]]


def build_site(work: Path, config: dict[str, Any]) -> Site:
    """The app on a fresh database under `work`, its users signed in, and the pages' paths."""
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{work / 'weight.db'}", "SECRET_KEY": "w" * 64,
                      "RATELIMIT_ENABLED": False, "INSTANCE_PATH": str(work), **config})  # fmt: skip
    with app.app_context():
        db.create_all()
        sync_directory(app.config["EXERCISES_DIR"])
        accounts.create_user(LEARNER, PASSWORD, "learner")
        courses.add_member(courses.ensure_default(), accounts.create_user(INSTRUCTOR, PASSWORD, "staff"), "instructor")
    clients = {"nobody": app.test_client(), "learner": sign_in(app, LEARNER), "instructor": sign_in(app, INSTRUCTOR)}
    solve(app, clients["learner"], EXERCISE)
    practice = clients["learner"].get(f"/exercises/{EXERCISE}/practice").headers["Location"]
    pages = {
        "home": ("learner", "/"),
        "login": ("nobody", "/login"),
        "exercise": ("learner", f"/exercises/{EXERCISE}"),
        "code exercise": ("learner", "/exercises/code-layer-norm"),
        "practice": ("learner", practice),
        "teach: exercises": ("instructor", "/teach/exercises"),
        "gradebook": ("instructor", "/teach/gradebook"),
    }
    return Site(app, clients, pages)


def sign_in(app: Flask, email: str) -> FlaskClient:
    """A client signed in as `email`."""
    client = app.test_client()
    reply = client.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token(client)})
    assert reply.status_code == 302, f"{email} could not sign in"
    return client


def static_links(html: str) -> list[str]:
    """The static files a page loads (stylesheets, scripts, icon)."""
    return sorted(set(re.findall(r'(?:href|src)="(/static/[^"]+)"', html)))


def must_ask_again(cache_control: str) -> bool:
    """Whether a browser holding the file asks the server before using it again within minutes."""
    return "no-cache" in cache_control or "max-age" not in cache_control


def weigh(client: FlaskClient, path: str) -> tuple[int, int, int, int, int]:
    """Bytes of (HTML, static on first view, static on repeat view), raw bytes, and repeat-view requests."""
    page = client.get(path, headers=BROWSER)
    assert page.status_code == 200, f"{path}: {page.status_code}"
    first = repeat = raw = asked = 0
    for url in static_links(client.get(path).get_data(as_text=True)):  # the links, read uncompressed
        reply = client.get(url, headers=BROWSER)
        assert reply.status_code == 200, url
        first += len(reply.data)
        raw += len(client.get(url).data)
        if must_ask_again(reply.headers.get("Cache-Control", "")):
            asked += 1
            again = client.get(url, headers={**BROWSER, "If-None-Match": reply.headers["ETag"]})
            repeat += len(again.data)
    raw += len(client.get(path).data)  # the CSRF token's length never changes
    return len(page.data), first, repeat, raw, 1 + asked


def report(name: str, site: Site) -> dict[str, int]:
    """Print one line per page; return each page's first-view bytes."""
    print(f"\n{name}: page          HTML B   static B  first view B  (uncompressed)  3G s   repeat view B  requests")
    totals = {}
    for page, (who, path) in site.pages.items():
        html, first, repeat, raw, requests = weigh(site.clients[who], path)
        totals[page] = html + first
        print(f"  {page:<18} {html:8d} {first:10d} {html + first:13d} {raw:15d} {(html + first) * 8 / THREE_G_BITS:6.2f}"
              f" {html + repeat:15d} {requests:9d}")
    return totals


def main() -> int:
    """Weigh each page before and after, and print the ratio."""
    work = Path(tempfile.mkdtemp(prefix="grader-weight-"))
    (work / "before").mkdir()
    (work / "after").mkdir()
    before = report("before (nothing compressed, static no-cache)", build_site(work / "before", BEFORE))
    after = report("after (compressed, hashed static names kept a year)", build_site(work / "after", {}))
    print("\nfirst view, after / before: " + ", ".join(f"{p} {after[p] / before[p]:.2f}" for p in before))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
