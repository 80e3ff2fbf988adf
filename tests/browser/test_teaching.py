"""A learner in a real browser follows one token through the GPT-2 lesson, and gets help when stuck."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import Page, expect

from grader.catalog.display import ENGLISH, show
from grader.services import attempts
from tests.browser.conftest import LiveServer, expected, fmt, register, user_id
from tests.web.conftest import seat
from tests.shots import snap

# Each page of the lesson starts from a quantity of the learner's one token (decimals as printed).
BLOCK_PAGES = {"block-residual": ("x", 1), "block-layernorm": ("h", 3), "block-gelu": ("z1", 3),
               "block-mlp": ("h", 3), "block-output": ("x", 1)}
Emails = Callable[[str], str]




def test_one_token_through_the_five_block_pages(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("story")
    register(page, base, email)
    shown = []
    for exercise in BLOCK_PAGES:
        page.goto(f"{base}/exercises/{exercise}")
        shown.append(page.locator("section.prompt").inner_text())
    with live_server.app.app_context():
        first = attempts.learner_variant(seat(user_id(live_server.app, email)), "block-residual")[1]
    assert show(first.params["x"], 1, ENGLISH) != "[−0.5; −0.5; −0.5; 1.5]"  # the learner's own token, not the page's
    for (exercise, (name, decimals)), prompt in zip(BLOCK_PAGES.items(), shown):
        assert show(first.quantities[name], decimals, ENGLISH) in prompt, exercise  # where the story has got to
    snap(page, artifacts / "story-block-output.png", full_page=True)


def test_a_stuck_learner_asks_for_hints_then_sees_the_solution_after_three_wrong_attempts(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("stuck")
    register(page, base, email)
    page.goto(f"{base}/exercises/block-layernorm")
    page.get_by_role("button", name="Show a hint").click()
    page.wait_for_url(re.compile(r"/exercises/block-layernorm#hints$"))
    mu = fmt(expected(live_server.app, email, "block-layernorm")["mu"]).replace(",", ".").replace("-", "−")
    expect(page.locator("#hints ol.hints li")).to_have_count(1)
    assert mu in page.locator("#hints ol.hints li").first.inner_text()  # a step with the learner's own μ
    page.get_by_role("button", name="Show the next step").click()
    expect(page.locator("#hints ol.hints li")).to_have_count(2)
    for attempt in range(3):
        page.fill("#part-mu", f"{attempt + 7},000")
        page.fill("#part-sigma", "9,000")
        page.fill("#part-u", "[9,000; 9,000; 9,000; 9,000]")
        page.click("button.primary")
        page.wait_for_url(re.compile(r"outcome=graded$"))
    expect(page.locator("#hints .notice")).to_contain_text("You have tried several times")
    expect(page.locator("section.solution")).to_have_count(0)
    snap(page, artifacts / "stuck-offer-desktop.png", full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())  # giving up is asked first (app.js)
    page.get_by_role("button", name="Give up and show the solution").click()
    page.wait_for_url(re.compile(r"#solution$"))
    expect(page.locator("section.solution")).to_contain_text("You gave up on these numbers")
    expect(page.locator("button.primary")).to_be_disabled()
    expect(page.get_by_role("link", name="Practise with new numbers")).to_be_visible()
    page.set_viewport_size({"width": 390, "height": 844})
    snap(page, artifacts / "stuck-solution-phone.png", full_page=True)


def test_a_hint_and_giving_up_keep_what_was_typed_and_the_last_verdict(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    base = live_server.url
    register(page, base, unique_email("keeps"))
    page.goto(f"{base}/exercises/block-layernorm")
    page.fill("#part-mu", "9,000")
    page.fill("#part-sigma", "9,000")
    page.fill("#part-u", "[9,000; 9,000; 9,000; 9,000]")
    page.click("button.primary")
    page.wait_for_url(re.compile(r"outcome=graded$"))
    verdict = page.locator("#part-mu-msg .verdict.incorrect")
    expect(verdict).to_be_visible()
    page.fill("#part-mu", "1,25")  # typed since, not checked
    page.fill("#part-u", "[1; 2; 3; 4]")
    page.get_by_role("button", name="Show a hint").click()
    page.wait_for_url(re.compile(r"attempt=\d+#hints$"))
    expect(page.locator("#hints ol.hints li")).to_have_count(1)
    expect(page.locator("#part-mu")).to_have_value("1,25")
    expect(page.locator("#part-u")).to_have_value("[1; 2; 3; 4]")
    expect(verdict).to_be_visible()
    expect(page.locator("#feedback")).to_contain_text("Score for this attempt: 0")
    asked: list[str] = []

    def answer(dialog, accept: bool) -> None:  # type: ignore[no-untyped-def]
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.get_by_role("button", name="Give up and show the solution").click()
    assert asked and "stops counting" in asked[0]
    expect(page.locator("section.solution")).to_have_count(0)  # declined: nothing sent
    expect(page.locator("#part-mu")).to_have_value("1,25")
    page.once("dialog", lambda dialog: answer(dialog, True))
    page.get_by_role("button", name="Give up and show the solution").click()
    page.wait_for_url(re.compile(r"#solution$"))
    expect(page.locator("section.solution")).to_contain_text("You gave up on these numbers")
    expect(page.locator("#part-mu")).to_have_value("1,25")
    expect(verdict).to_be_visible()
    snap(page, artifacts / "gave-up-kept-desktop.png", full_page=True)
