"""Real-browser fixtures: the app served live on 127.0.0.1 from a thread, driven by Chromium.

Playwright is used directly (no pytest-playwright) with Debian's Chromium: one headless browser per
session and a fresh context per page, so tests share no cookies. Each test module gets its own
server and database, and every test makes its own users with unique emails, so tests never depend
on each other. Screenshots go to tests/artifacts/ (git ignores it); a failing test also leaves a
full-page screenshot of each of its pages under tests/artifacts/failures/.
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generator, Iterator

import pytest
import sqlalchemy as sa
from flask import Flask
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
from werkzeug.serving import make_server

from grader.extensions import db
from grader.models import User
from grader.services import attempts
from tests.web.conftest import build_app, PASSWORD, seat

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
TIMEOUT_MS = 10_000
REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()
NewPage = Callable[..., Page]


@dataclass(frozen=True)
class LiveServer:
    """The running app and the URL it answers on (no trailing slash)."""

    app: Flask
    url: str


# ---- skipping, artifacts, failure screenshots -------------------------------------------------


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    """Debian's Chromium; every test in this folder skips when it is not installed."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)")
    return CHROMIUM


@pytest.fixture(autouse=True)
def _needs_chromium(chromium_path: Path) -> None:
    """Skip before building anything when there is no browser."""


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Generator[None, Any, pytest.TestReport]:
    """Keep each phase's report on the test, so fixtures can tell whether it failed."""
    report: pytest.TestReport = yield
    item.stash.setdefault(REPORTS, {})[report.when] = report
    return report


def _failed(node: pytest.Item) -> bool:
    report = node.stash.get(REPORTS, {}).get("call")
    return bool(report and report.failed)


# ---- the live server --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app on a fresh SQLite file with the real exercises, served on a free port; one per
    test module, so one module's exercises and attempts never show up in another's pages."""
    app = build_app(tmp_path_factory.mktemp("browser"), RATELIMIT_ENABLED=False)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(app, f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        with app.app_context():
            db.engine.dispose()


# ---- the browser ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser(chromium_path: Path) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def new_page(
    browser: Browser, request: pytest.FixtureRequest, artifacts: Path
) -> Iterator[NewPage]:
    """Make pages, each in its own fresh context (its own cookies, the browser language and time
    zone given); all closed after the test."""
    contexts: list[BrowserContext] = []

    def make(locale: str = "en-US", timezone: str = "UTC") -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 800}, locale=locale, timezone_id=timezone)
        context.set_default_timeout(TIMEOUT_MS)
        context.set_default_navigation_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context.new_page()

    yield make
    if _failed(request.node):
        failures = artifacts / "failures"
        failures.mkdir(exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        for i, context in enumerate(contexts):
            for j, page in enumerate(context.pages):
                try:
                    page.screenshot(path=str(failures / f"{name}-{i}-{j}.png"), full_page=True)
                except Exception:  # noqa: BLE001 - a broken page must not hide the real failure
                    pass
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page: NewPage) -> Page:
    """One fresh page (in a fresh context) for the test."""
    return new_page()


@pytest.fixture
def unique_email() -> Callable[[str], str]:
    """Emails nobody else uses: unique_email("ada") -> ada-1a2b3c4d5e@example.com."""
    return lambda who: f"{who}-{uuid.uuid4().hex[:10]}@example.com"


# ---- helpers the tests share ------------------------------------------------------------------


def _signed_in(page: Page, base: str, email: str) -> None:
    """Signed in, on the learner's dashboard, or for an instructor on the class dashboard."""
    page.wait_for_url(re.compile(rf"{re.escape(base)}/(teach/)?$"))
    assert page.locator("header.topbar nav").get_by_text(email).is_visible()
    if page.url.endswith("/teach/"):
        assert page.locator("section[aria-labelledby=low-rates]").count() == 1  # the dashboard, not a refusal


def register(page: Page, base: str, email: str, password: str = PASSWORD) -> None:
    """Create a learner account through the form; it lands on the dashboard, logged in."""
    page.goto(f"{base}/register")
    page.fill("#email", email)
    page.fill("#password", password)
    page.fill("#confirm", password)
    page.click("button.primary")
    _signed_in(page, base, email)


def login(page: Page, base: str, email: str, password: str = PASSWORD) -> None:
    """Log in through the form; it lands on the dashboard."""
    page.goto(f"{base}/login")
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("button.primary")
    _signed_in(page, base, email)


def user_id(app: Flask, email: str) -> int:
    with app.app_context():
        found = db.session.scalar(sa.select(User.id).where(User.email == email))
        assert found is not None, f"no user {email}"
        return found


def expected(app: Flask, email: str, exercise: str) -> dict[str, Any]:
    """The right answer of each part of this learner's own variant, as JSON."""
    uid = user_id(app, email)
    with app.app_context():
        parts = attempts.learner_variant(seat(uid), exercise)[1].parts
        return {p.spec.id: p.answer_json() for p in parts}


def mistake(app: Flask, email: str, exercise: str, part: str, name: str) -> Any:
    """The answer a named misconception gives on one part of this learner's variant."""
    uid = user_id(app, email)
    with app.app_context():
        found = attempts.learner_variant(seat(uid), exercise)[1].part(part)
        value = next(m.routes[0] for m in found.target.mutants if m.name == name)
        return value.tolist() if hasattr(value, "tolist") else value


def fmt(value: Any) -> str:
    """A number to 3 decimals with a decimal comma; a vector as [a; b; c; d]."""
    if isinstance(value, (list, tuple)):
        return "[" + "; ".join(fmt(v) for v in value) + "]"
    return f"{float(value):.3f}".replace(".", ",")


def gradebook_columns(page: Page) -> list[str]:
    """The gradebook's columns in order: an exercise's by its id, the others by their heading."""
    return [th.get_attribute("data-exercise") or th.inner_text() for th in page.locator("table thead th").all()]
