"""Pages on a phone-sized screen and with the keyboard: nothing wider than the screen, and a field
to fix takes focus."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import Page, expect

from grader.services import submissions
from tests.browser.conftest import LiveServer, NewPage, login, register, user_id
from tests.layer_norm_sources import GOOD
from tests.web.conftest import make_user, seat
from tests.shots import snap

PHONE = {"width": 375, "height": 812}
NARROWEST = {"width": 320, "height": 640}


def overflow(page: Page) -> int:
    """How many pixels the page is wider than the screen (0 when nothing scrolls sideways)."""
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


def test_learner_pages_fit_a_phone_screen(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    page = new_page()
    page.set_viewport_size(PHONE)
    base = live_server.url
    register(page, base, unique_email("phone"))
    assert overflow(page) == 0, "dashboard"
    page.goto(base + "/profile")  # a token and its table on the profile
    page.fill("#name", "a token with a long name for a laptop")
    page.get_by_role("button", name="Make a token").click()
    for path in ("/exercises/block-layernorm", "/exercises/code-causal-attention", "/profile"):
        page.goto(base + path)
        assert overflow(page) == 0, path
    page.set_viewport_size(NARROWEST)  # 1280 px at 400 % zoom (WCAG 1.4.10): the upload field fits too
    for path in ("/exercises/code-layer-norm", "/exercises/block-layernorm"):
        page.goto(base + path)
        assert overflow(page) == 0, f"{path} at 320 px"
    page.set_viewport_size(PHONE)
    page.goto(base + "/exercises/block-layernorm")
    page.fill("#part-mu", "0,1")
    page.fill("#part-sigma", "what")
    page.fill("#part-u", "[0,100; -0,200; 0,300; -0,400]")
    page.click("button.primary")
    page.wait_for_load_state()
    assert overflow(page) == 0, "exercise with feedback"
    snap(page, artifacts / "exercise-phone.png", full_page=True)


def test_a_code_exercise_s_worked_solution_fits_the_narrowest_screen(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    """Its Python listing wraps instead of widening the page (it once made code-param-count 720 px wide)."""
    page = new_page()
    page.set_viewport_size(NARROWEST)
    register(page, live_server.url, unique_email("listing"))
    for exercise in ("code-param-count", "code-swiglu"):
        page.goto(f"{live_server.url}/exercises/{exercise}")
        page.once("dialog", lambda dialog: dialog.accept())  # giving up is asked first (app.js)
        page.get_by_role("button", name="Give up and show the solution").click()
        expect(page.locator("section.solution pre").first).to_be_visible()
        assert overflow(page) == 0, f"{exercise}'s solution at 320 px"
    snap(page, artifacts / "code-solution-320.png", full_page=True)


def test_instructor_pages_fit_a_phone_screen(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str]
) -> None:
    teacher = unique_email("teacher")
    make_user(live_server.app, teacher, "instructor")
    page = new_page()
    page.set_viewport_size(PHONE)
    login(page, live_server.url, teacher)
    for path in ("/teach/exercises", "/teach/gradebook", "/teach/exercises/new", "/teach/audit", "/teach/import",
                 "/teach/exercises/block-layernorm", "/teach/exercises/code-gelu"):
        page.goto(live_server.url + path)
        assert overflow(page) == 0, path


def test_after_a_check_the_first_field_to_fix_has_the_focus(
    live_server: LiveServer, page: Page, unique_email: Callable[[str], str]
) -> None:
    register(page, live_server.url, unique_email("keys"))
    page.goto(f"{live_server.url}/exercises/block-layernorm")
    page.fill("#part-mu", "0,100")  # readable, so not a field to fix
    page.fill("#part-sigma", "what")
    page.fill("#part-u", "also not numbers")
    page.click("button.primary")
    expect(page.locator("#part-sigma")).to_be_focused()  # polls without eval, which the CSP forbids
    assert page.locator("#feedback .notice.warn").get_attribute("role") == "alert"
    page.keyboard.type("1,000")  # typing goes straight into the field that needed fixing
    assert "1,000" in page.input_value("#part-sigma")


def test_a_form_error_is_tied_to_its_field_and_focused(live_server: LiveServer, page: Page) -> None:
    page.goto(f"{live_server.url}/register")
    page.fill("#email", "someone@example.com")
    page.fill("#password", "long enough password")
    page.fill("#confirm", "another password here")
    page.click("button.primary")
    expect(page.locator("#confirm")).to_be_focused()
    assert page.get_attribute("#confirm", "aria-describedby") == "confirm-error"
    assert "differ" in page.locator("#confirm-error").inner_text()
    assert page.get_by_label("Repeat password").count() == 1  # the error is not part of its name


def test_the_first_tab_stop_skips_to_the_content(live_server: LiveServer, page: Page) -> None:
    page.goto(f"{live_server.url}/login")
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    expect(skip).to_be_focused()
    assert skip.is_visible()  # hidden until focused, then on screen
    page.keyboard.press("Enter")
    expect(page.locator("main#main")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#email")).to_be_focused()  # the next stop is in the content, not the menu


def test_code_being_graded_is_shown_when_done_without_reloading_every_few_seconds(
    live_server: LiveServer, page: Page, unique_email: Callable[[str], str]
) -> None:
    email = unique_email("waits")
    register(page, live_server.url, email)
    app = live_server.app
    with app.app_context():
        submission_id = submissions.create(seat(user_id(app, email)), "code-layer-norm", GOOD).submission.id
    page.goto(f"{live_server.url}/exercises/code-layer-norm?submission={submission_id}")
    assert page.locator("[data-pending][role=status]").is_visible()
    assert page.locator("head > meta[http-equiv=refresh]").count() == 0  # only inside <noscript>
    with app.app_context():
        submissions.dispatch(app, submission_id)
    result = page.locator("#feedback .notice[role=status]")
    expect(result).to_contain_text("All 15 cases passed.", timeout=30_000)
    expect(result).to_be_focused()


def test_a_formula_is_named_by_its_words_in_the_pages_language(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str]
) -> None:
    for locale, words in (("en-US", "epsilon equals 10 to the power minus 5"),
                          ("ru-RU", "эпсилон равно 10 в степени минус 5")):  # fmt: skip
        page = new_page(locale=locale)
        register(page, live_server.url, unique_email("reader"))
        page.goto(f"{live_server.url}/exercises/block-layernorm")
        formula = page.locator("section.prompt").get_by_role("math", name=words, exact=True)
        expect(formula).to_have_count(1)
        # What the accessibility tree hands a screen reader: the words, not the bare symbols "ϵ = 10 − 5".
        assert f'math "{words}"' in page.locator("section.prompt").aria_snapshot()
        assert "0.00001" in page.locator("section.prompt").inner_text().replace(",", ".")  # and the number in prose


def test_a_display_formula_too_wide_for_the_screen_is_a_named_tab_stop_only_while_it_scrolls(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str]
) -> None:
    teacher = unique_email("teacher")
    make_user(live_server.app, teacher, "instructor")
    page = new_page()
    login(page, live_server.url, teacher)
    page.goto(f"{live_server.url}/teach/exercises/block-residual/edit")
    wide = " + ".join(f"x_{{{i}}}" for i in range(1, 13))  # one equation wider than a phone, narrower than the preview at 1280 px
    page.fill("textarea[name=prompt]", f"Add them up:\n\n$$s = {wide}$$\n\nThen {{{{x}}}} and {{{{a}}}}.")
    box = page.locator("[data-preview-target] .prompt .math")
    expect(box).to_have_count(1)
    expect(box).not_to_have_attribute("tabindex", "0")  # it fits at 1280 px: no stop
    page.set_viewport_size(NARROWEST)
    expect(box).to_have_attribute("tabindex", "0")
    expect(box).to_have_attribute("role", "region")
    expect(box).to_have_attribute("aria-label", re.compile(r"^s equals x sub 1 plus x sub 2 plus"))
    box.focus()
    page.keyboard.press("ArrowRight")  # the keyboard scrolls it
    expect(box).not_to_have_js_property("scrollLeft", 0)
    page.set_viewport_size({"width": 1280, "height": 800})
    expect(box).not_to_have_attribute("role", "region")
