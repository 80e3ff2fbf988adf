"""Lighthouse on the pages, signed in, with Debian's Chromium: the four scores and the largest paint.

Serves the app (built as benchmarks/page_weight.py builds it: fresh SQLite, the shipped exercises, a
learner and an instructor signed in) on 127.0.0.1 from a thread, and runs Lighthouse on each page
as a phone (Lighthouse's default: simulated slow 4G, 4x slower CPU), passing the session cookie in
--extra-headers. It prints the performance, accessibility, best-practices and SEO scores, the
largest contentful paint (LCP) and the bytes transferred, then the LCP again on regular 3G
(300 ms round trips, 700 kbit/s), and for each score under 95 the audits that pulled it down.

`--before` runs it all a second time on the app with compression and hashed static names off
(COMPRESS_RESPONSES, STATIC_HASHED_NAMES), the app as it was, for the same figures side by side.

Lighthouse is pinned in benchmarks/lighthouse/package.json (12.x: 13 needs node 22.19, the machines
have node 20) and installed there with `npm ci` by this script when missing; tests never use it.
Each run takes some 15 to 40 seconds.

    .venv/bin/python benchmarks/lighthouse.py [--before] [--pages home,login] [--reports DIR]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from werkzeug.serving import make_server  # noqa: E402

from benchmarks.page_weight import BEFORE, Site, build_site  # noqa: E402

HERE = Path(__file__).resolve().parent / "lighthouse"
LIGHTHOUSE = HERE / "node_modules" / ".bin" / "lighthouse"
CHROMIUM = "/usr/bin/chromium"
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking " \
               "--disable-component-update --disable-sync --no-first-run --disable-default-apps"  # fmt: skip
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
REGULAR_3G = ["--throttling.rttMs=300", "--throttling.throughputKbps=700", "--throttling.cpuSlowdownMultiplier=4"]
GOOD = 0.95


def install() -> None:
    """Lighthouse from the lock file, unless it is there already."""
    if not LIGHTHOUSE.exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)


@contextmanager
def served(site: Site) -> Iterator[str]:
    """The site's app on a free port of 127.0.0.1, for as long as the block runs."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    server = make_server("127.0.0.1", 0, site.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join()


def cookie_header(site: Site, who: str) -> dict[str, str]:
    """The Cookie header of a signed-in client, for Lighthouse's --extra-headers."""
    found = site.clients[who].get_cookie("session")
    return {"Cookie": f"session={found.value}"} if found is not None else {}


def lighthouse(url: str, headers: dict[str, str], out: Path, extra: list[str]) -> dict[str, Any]:
    """One Lighthouse run, its JSON report (also kept at `out`)."""
    command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}",
               f"--chrome-flags={CHROME_FLAGS}", f"--extra-headers={json.dumps(headers)}", *extra]
    subprocess.run(command, check=True, env={**os.environ, "CHROME_PATH": CHROMIUM}, timeout=300)
    report: dict[str, Any] = json.loads(out.read_text())
    return report


def shortfalls(report: dict[str, Any], category: str) -> list[str]:
    """The audits that cost a category points: id and score."""
    audits = report["audits"]
    found = []
    for ref in report["categories"][category]["auditRefs"]:
        audit = audits[ref["id"]]
        if ref["weight"] > 0 and audit.get("score") is not None and audit["score"] < 1:
            shown = f" ({audit['displayValue']})" if audit.get("displayValue") else ""
            found.append(f"{ref['id']} {audit['score']:.2f}{shown}")
    return found


def run(name: str, site: Site, pages: list[str], reports: Path) -> None:
    """Lighthouse on each page of the site; print a line per page, then what is under 95."""
    print(f"\n{name}\n  {'page':<18} perf  a11y  b-p   seo   LCP 4G s  LCP 3G s  KiB")
    notes = []
    with served(site) as base:
        for page in pages:
            who, path = site.pages[page]
            headers = cookie_header(site, who)
            stem = reports / f"{name.split()[0]}-{page.replace(' ', '-').replace(':', '')}"
            every = [f"--only-categories={','.join(CATEGORIES)}"]
            main = lighthouse(base + path, headers, stem.with_suffix(".json"), every)
            slow = lighthouse(base + path, headers, stem.with_suffix(".3g.json"),
                              ["--only-categories=performance", *REGULAR_3G])
            scores = [main["categories"][c]["score"] for c in CATEGORIES]
            lcp, lcp_3g = (r["audits"]["largest-contentful-paint"]["numericValue"] / 1000 for r in (main, slow))
            kib = main["audits"]["total-byte-weight"]["numericValue"] / 1024
            shown = "  ".join(f"{100 * s:4.0f}" for s in scores)
            print(f"  {page:<18} {shown}  {lcp:8.2f}  {lcp_3g:8.2f}  {kib:5.0f}")
            notes += [f"  {page} {c}: " + "; ".join(shortfalls(main, c))
                      for c, s in zip(CATEGORIES, scores) if s < GOOD]
    print("under 95:" if notes else "every score 95 or more")
    print("\n".join(notes))


def main() -> int:
    """Run Lighthouse on the pages after (and with --before, before) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", action="store_true", help="also measure the app with both switched off")
    parser.add_argument("--pages", help="comma-separated page names (default: all)")
    parser.add_argument("--reports", type=Path, help="where to keep the JSON reports (default: a temporary folder)")
    args = parser.parse_args()
    install()
    work = Path(tempfile.mkdtemp(prefix="grader-lighthouse-"))
    reports = args.reports or work / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    configs = {"after (compressed, hashed static names)": {}, **({"before (as it was)": BEFORE} if args.before else {})}
    for name, config in configs.items():
        folder = work / name.split()[0]
        folder.mkdir()
        site = build_site(folder, config)
        run(name, site, args.pages.split(",") if args.pages else list(site.pages), reports)
    print(f"\nreports: {reports}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
