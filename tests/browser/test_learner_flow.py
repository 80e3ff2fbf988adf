"""A learner in a real browser: register, open an exercise from the dashboard, answer, read
the feedback."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import sqlalchemy as sa
from flask import Flask
from playwright.sync_api import Page, expect

from grader.extensions import db
from grader.models import Attempt
from tests.browser.conftest import LiveServer, expected, fmt, mistake, register, user_id
from tests.shots import snap

EXERCISE = "block-layernorm"
TITLE = "LayerNorm of a row"
Emails = Callable[[str], str]


def open_from_dashboard(page: Page) -> None:
    page.locator("ul.exercise-list a", has_text=TITLE).click()
    page.wait_for_url(re.compile(rf"/exercises/{EXERCISE}$"))
    assert page.locator("h1").inner_text() == TITLE


def counter(page: Page) -> str:
    return page.locator("form.answers .actions .muted").inner_text()


def attempts_of(app: Flask, email: str) -> int:
    uid = user_id(app, email)
    with app.app_context():
        query = sa.select(sa.func.count()).select_from(Attempt).where(Attempt.user_id == uid)
        return db.session.scalar(query)


def test_learner_registers_solves_with_decimal_commas_and_sees_progress(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("solver")
    register(page, base, email)
    assert page.locator(".flash").inner_text() == "Welcome! Pick an exercise to start."
    open_from_dashboard(page)
    assert counter(page).startswith("Unlimited attempts · 0 used")

    right = expected(live_server.app, email, EXERCISE)
    answers = {part: fmt(value) for part, value in right.items()}
    assert set(answers) == {"mu", "sigma", "u"}
    assert all("," in text and "." not in text for text in answers.values())
    for part, text in answers.items():
        page.fill(f"#part-{part}", text)
    page.click("button.primary")

    page.wait_for_url(re.compile(rf"/exercises/{EXERCISE}\?attempt=\d+&outcome=graded$"))
    assert page.locator("#feedback .notice").inner_text() == "Score for this attempt: 100\u00a0%"
    expect(page.locator("#feedback .notice")).to_be_focused()  # so a screen reader reads the result out
    for part, text in answers.items():
        verdict = page.locator(f"#part-{part}-msg .verdict")
        assert "correct" in (verdict.get_attribute("class") or "").split()
        assert verdict.inner_text().startswith("✓"), verdict.inner_text()
        assert page.input_value(f"#part-{part}") == text  # what was typed stays in the field
    solution = page.locator("section.solution")
    assert solution.locator("h2").inner_text() == "Worked solution"
    assert solution.locator("ol > li").count() == 3
    assert page.locator("aside.history tbody tr").count() == 1
    assert attempts_of(live_server.app, email) == 1

    page.click("header.topbar a.brand")
    page.wait_for_url(f"{base}/")
    lesson = page.locator("section.lesson", has=page.locator("a", has_text=TITLE))
    assert lesson.locator(".pill").inner_text() == "1 / 8 solved"
    assert lesson.locator("li", has_text=TITLE).locator(".badge.ok").inner_text() == "solved"
    snap(page, artifacts / "dashboard.png", full_page=True)


def test_mixed_attempt_marks_each_field_and_names_the_likely_mistake(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("mixed")
    register(page, base, email)
    open_from_dashboard(page)

    right = expected(live_server.app, email, EXERCISE)
    wrong_sigma = mistake(live_server.app, email, EXERCISE, "sigma", "sample-variance")
    assert fmt(wrong_sigma) != fmt(right["sigma"])
    page.fill("#part-mu", fmt(right["mu"]))
    page.fill("#part-sigma", fmt(wrong_sigma))
    page.fill("#part-u", fmt(right["u"]))
    page.click("button.primary")

    page.wait_for_url(re.compile(r"\?attempt=\d+"))
    score = page.locator("#feedback .notice").inner_text()
    assert re.fullmatch(r"Score for this attempt: \d+\u00a0%", score), score
    assert score != "Score for this attempt: 100\u00a0%"
    assert page.locator("#part-mu-msg .verdict.correct").inner_text().startswith("✓")
    assert page.locator("#part-u-msg .verdict.correct").inner_text().startswith("✓")
    sigma = page.locator("#part-sigma-msg")
    assert sigma.locator(".verdict.incorrect").inner_text().startswith("✗")
    hint = sigma.locator(".misconception")
    assert hint.is_visible()
    assert hint.inner_text().startswith("Likely mistake.")
    assert page.get_attribute("#part-sigma", "aria-invalid") == "true"
    assert page.locator("#part-mu-msg .misconception").count() == 0
    assert page.locator("section.solution").count() == 0  # not solved yet: no worked solution
    assert counter(page).startswith("Unlimited attempts · 1 used")
    assert attempts_of(live_server.app, email) == 1
    snap(page, artifacts / "exercise.png", full_page=True)


def test_garbage_is_flagged_inline_and_not_counted(
    live_server: LiveServer, page: Page, unique_email: Emails
) -> None:
    base, email = live_server.url, unique_email("garbage")
    register(page, base, email)
    open_from_dashboard(page)

    right = expected(live_server.app, email, EXERCISE)
    page.fill("#part-mu", "abc")
    page.fill("#part-sigma", fmt(right["sigma"]))
    page.fill("#part-u", fmt(right["u"]))
    page.click("button.primary")

    page.wait_for_load_state()
    message = page.locator("#part-mu-msg .verdict.invalid")
    assert message.is_visible()
    assert "could not read" in message.inner_text()
    assert page.get_attribute("#part-mu", "aria-invalid") == "true"
    assert page.input_value("#part-mu") == "abc"  # kept, so it can be fixed
    assert "this try was not counted" in page.locator("#feedback .notice.warn").inner_text()
    assert counter(page).startswith("Unlimited attempts · 0 used")
    assert page.locator("aside.history").get_by_text("No attempts yet.").is_visible()
    assert attempts_of(live_server.app, email) == 0


def test_mathml_is_rendered_and_nothing_leaves_the_server(
    live_server: LiveServer, page: Page, unique_email: Emails
) -> None:
    base, email = live_server.url, unique_email("offline")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    register(page, base, email)
    open_from_dashboard(page)
    page.wait_for_load_state("networkidle")

    formulas = page.locator("section.prompt math")
    assert formulas.count() > 0
    assert formulas.first.is_visible()
    namespace = page.evaluate("document.querySelector('section.prompt math').namespaceURI")
    assert namespace == "http://www.w3.org/1998/Math/MathML"
    assert "$" not in page.locator("section.prompt").inner_text()  # no raw LaTeX left over
    assert any(re.search(r"/static/style\.[0-9a-f]{10}\.css$", url) for url in requested)  # content-hashed
    assert requested and all(url.startswith(base + "/") for url in requested), requested
