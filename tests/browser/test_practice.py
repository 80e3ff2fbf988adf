"""Practice in a real browser: after solving, new numbers are checked and nothing is stored."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page

from grader.services import practice
from tests.browser.conftest import LiveServer, expected, fmt, register, user_id
from tests.browser.test_learner_flow import attempts_of
from tests.web.conftest import seat
from tests.shots import snap

EXERCISE = "block-gelu"


def practice_answers(live_server: LiveServer, email: str, url: str) -> dict[str, Any]:
    """The answers the practice numbers in the page's address expect."""
    token = parse_qs(urlsplit(url).query)["numbers"][0]
    uid = user_id(live_server.app, email)
    with live_server.app.app_context():
        opened = practice.from_token(practice.allowed(seat(uid), EXERCISE), token, live_server.app.config["SECRET_KEY"])
    assert opened is not None
    return {p.spec.id: p.answer_json() for p in opened.variant.parts}


def test_after_solving_a_learner_practises_with_new_numbers(
    live_server: LiveServer, page: Page, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("practice")
    register(page, base, email)
    page.goto(f"{base}/exercises/{EXERCISE}")
    assert page.get_by_role("link", name="Practise with new numbers").count() == 0
    own_prompt = page.locator("section.prompt").inner_text()
    for part, value in expected(live_server.app, email, EXERCISE).items():
        page.fill(f"#part-{part}", fmt(value))
    page.click("button.primary")
    page.wait_for_url(re.compile(r"\?attempt=\d+"))

    page.get_by_role("link", name="Practise with new numbers").click()
    page.wait_for_url(re.compile(rf"/exercises/{EXERCISE}/practice\?numbers="))
    assert page.locator("h1").inner_text() == "Practice: GELU by hand"
    assert page.locator("section.prompt").inner_text() != own_prompt
    assert not page.locator("section.solution ol").is_visible()  # folded until asked for, or a check
    wanted = practice_answers(live_server, email, page.url)
    page.fill("#part-neg", fmt(wanted["neg"]))
    page.fill("#part-pos", fmt(wanted["pos"] + 0.5))
    page.click("button.primary")

    page.wait_for_load_state()
    score = page.locator("#feedback .notice").inner_text()
    assert re.fullmatch(r"Score for these answers: \d+\u00a0%", score) and score != "Score for these answers: 100\u00a0%"
    assert page.locator("#part-neg-msg .verdict.correct").is_visible()
    assert page.locator("#part-pos-msg .verdict.incorrect").is_visible()
    assert page.locator("section.solution ol > li").count() == 4 and page.locator("section.solution ol").is_visible()
    assert attempts_of(live_server.app, email) == 1  # the solving attempt only
    snap(page, artifacts / "practice.png", full_page=True)

    numbers = page.locator("input[name=numbers]").input_value()
    page.get_by_role("link", name="Other numbers").click()
    page.wait_for_url(re.compile(rf"/exercises/{EXERCISE}/practice\?numbers="))
    assert page.locator("input[name=numbers]").input_value() != numbers
