"""Practise next in a real browser: the same mistake twice, and the button sends the learner to that skill with
numbers where the mistake shows; the mastery pages at desktop and phone width (screenshots in /work/notes/shots
when that folder exists, else tests/artifacts)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page

from grader.services import practice
from grader.services.recommend import _gap
from tests.browser.conftest import LiveServer, NewPage, expected, fmt, login, mistake, register, user_id
from tests.web.conftest import make_user, seat
from tests.shots import snap

EXERCISE = "block-layernorm"
MISTAKE = "sample-variance"
SHOTS = Path("/work/notes/shots")


def _shot(page: Page, artifacts: Path, name: str) -> None:
    folder = SHOTS if SHOTS.is_dir() else artifacts
    snap(page, folder / f"adapt-{name}.png", full_page=True)


def _answer(page: Page, values: dict[str, str]) -> None:
    for part, text in values.items():
        page.fill(f"#part-{part}", text)
    page.click("button.primary")
    page.wait_for_url(re.compile(r"\?attempt=\d+"))


def test_the_same_mistake_twice_sends_the_learner_to_its_skill_with_numbers_that_show_it(
    live_server: LiveServer, page: Page, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("adaptive")
    register(page, base, email)
    page.goto(f"{base}/exercises/{EXERCISE}")
    right = expected(live_server.app, email, EXERCISE)
    wrong = {part: fmt(mistake(live_server.app, email, EXERCISE, part, MISTAKE)) for part in ("sigma", "u")}
    _answer(page, {"mu": fmt(right["mu"]), **wrong})
    _answer(page, {"mu": fmt(right["mu"]) + "0", **wrong})  # the same mistake again (other typing of mu)
    page.once("dialog", lambda dialog: dialog.accept())  # giving up is asked first (app.js)
    page.get_by_role("button", name="Give up and show the solution").click()
    page.wait_for_url(re.compile(r"#solution$"))

    page.get_by_role("link", name="Practise next").first.click()
    page.wait_for_url(re.compile(rf"/exercises/{EXERCISE}/practice\?numbers="))
    notice = page.get_by_text("You made the mistake").inner_text()
    assert "2 times this week" in notice and "These numbers make it show." in notice
    token = parse_qs(urlsplit(page.url).query)["numbers"][0]
    with live_server.app.app_context():
        current = practice.allowed(seat(user_id(live_server.app, email)), EXERCISE)
        opened = practice.from_token(current, token, live_server.app.config["SECRET_KEY"])
        assert opened is not None
        sigma = opened.variant.part("sigma")
        shown = next(m for m in sigma.target.mutants if m.name == MISTAKE)
        assert _gap(sigma.target.exact, shown.routes[0], sigma.tolerance) > 1  # beyond the accepted band
    _shot(page, artifacts, "practise-next-1280")


def test_the_mastery_pages_at_desktop_and_phone_width(live_server: LiveServer, new_page: NewPage,
                                                       unique_email: Callable[[str], str], artifacts: Path) -> None:  # fmt: skip
    base, email = live_server.url, unique_email("bars")
    learner = new_page()
    register(learner, base, email)
    learner.goto(f"{base}/exercises/{EXERCISE}")
    right = expected(live_server.app, email, EXERCISE)
    _answer(learner, {part: fmt(value) for part, value in right.items()})
    learner.goto(f"{base}/exercises/block-residual")
    _answer(learner, {"h": "[1,000; 2,000; 3,000; 4,000]"})
    for width in (1280, 390):
        learner.set_viewport_size({"width": width, "height": 900})
        learner.goto(f"{base}/mastery")
        assert learner.locator("svg.mastery-bars").first.is_visible()
        assert learner.evaluate("document.documentElement.scrollWidth") <= width
        _shot(learner, artifacts, f"mastery-{width}")
    teacher_email = unique_email("teach")
    make_user(live_server.app, teacher_email, "instructor")
    teacher = new_page()
    login(teacher, base, teacher_email)
    for width in (1280, 390):
        teacher.set_viewport_size({"width": width, "height": 900})
        teacher.goto(f"{base}/teach/mastery")
        assert teacher.get_by_role("cell", name=email).count() + teacher.get_by_role("rowheader", name=email).count() >= 1
        assert teacher.evaluate("document.documentElement.scrollWidth") <= width
        _shot(teacher, artifacts, f"heatmap-{width}")
