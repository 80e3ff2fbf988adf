"""Languages in a real browser: a Russian browser gets Russian pages, and the menu at the foot of
the page switches to Portuguese with its button (choosing alone changes nothing, so arrow keys
never reload the page under the reader)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, NewPage, register
from tests.web.test_i18n import tr, translations
from tests.shots import snap

Emails = Callable[[str], str]


def test_a_russian_browser_gets_russian_and_can_switch_to_portuguese(
    live_server: LiveServer, new_page: NewPage, unique_email: Emails, artifacts: Path
) -> None:
    page = new_page("ru-RU")
    register(page, live_server.url, unique_email("ivan"))
    assert page.locator("html").get_attribute("lang") == "ru"
    assert page.locator(".flash").inner_text() == tr("ru", "Welcome! Pick an exercise to start.")
    assert page.locator("h1").inner_text() == tr("ru", "Lessons")
    # Choosing with the arrow keys must not reload the page under the reader: the button applies it.
    assert page.locator("footer .language button").is_visible()

    page.locator("ul.exercise-list a", has_text="LayerNorm строки").click()  # the exercise's own Russian title
    page.wait_for_url(re.compile(r"/exercises/block-layernorm$"))
    page.select_option("#language-choice", "pt")
    assert page.locator("html").get_attribute("lang") == "ru"  # nothing happens until the button
    page.click("footer .language button")
    expect(page.locator("html")).to_have_attribute("lang", "pt")  # polls without eval, which the CSP forbids
    assert re.search(r"/exercises/block-layernorm$", page.url), "the menu brings you back to the same page"
    assert page.locator("button.primary").inner_text() == tr("pt", "Check my answers")
    assert page.locator("h1").inner_text() == "LayerNorm de uma linha"  # the exercise's Portuguese text
    assert page.locator("#language-choice").input_value() == "pt"

    page.fill("#part-mu", "0,1")
    page.fill("#part-sigma", "1,02")
    page.fill("#part-u", "[1; 2; 3]")
    page.click("button.primary")
    counted = translations("pt").ungettext("expected %(num)d number, got %(got)d",
                                           "expected %(num)d numbers, got %(got)d", 4)  # fmt: skip
    assert page.locator("#part-u-msg .verdict").inner_text() == "⚠ " + counted % {"num": 4, "got": 3}
    assert page.locator("#feedback .notice").inner_text() == tr(
        "pt", "Some answers could not be read. Fix the fields marked below; this try was not counted.")
    snap(page, artifacts / "exercise-page-pt.png", full_page=True)
