"""An instructor writes a new computation as formulas in the browser's YAML editor, watches the live preview,
saves, and a learner solves it: no Python anywhere."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, NewPage, expected, fmt, login, mistake, register
from tests.web.conftest import make_user
from tests.shots import snap

SOURCE = (Path(__file__).resolve().parents[1] / "catalog" / "formula_examples" / "softmax-temperature.yaml").read_text(
    encoding="utf-8").replace("id: softmax-temperature", "id: browser-softmax").replace("lesson: demo", "lesson: browser-formulas")
EXERCISE = "browser-softmax"
# Text put into the YAML tab's editor, as a paste would (typing it would let the editor indent it again).
WRITE = "(text) => document.querySelector('.code-form .CodeMirror').CodeMirror.setValue(text)"


def test_an_instructor_writes_a_formula_exercise_in_the_browser_and_a_learner_solves_it(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, app = live_server.url, live_server.app
    teacher, learner = unique_email("teacher"), unique_email("learner")
    make_user(app, teacher, "instructor")

    staff = new_page()
    login(staff, base, teacher)
    staff.goto(f"{base}/teach/exercises/new?mode=yaml")
    # The YAML tab is a CodeMirror editor over the textarea, as the code page is.
    expect(staff.locator(".code-form .CodeMirror")).to_be_visible()
    expect(staff.locator("textarea.source")).to_be_hidden()
    expect(staff.locator("#editor-help")).to_be_visible()
    staff.evaluate(WRITE, SOURCE.replace("z: s / T", "z: s.__class__"))  # a refused formula first
    preview = staff.locator("[data-preview-target]")
    preview.get_by_text("compute.z").first.wait_for()
    assert "the only attribute is .T" in preview.inner_text()
    assert staff.locator(".code-form .CodeMirror .cm-atom", has_text="compute").count() == 1  # YAML, coloured
    staff.evaluate(WRITE, SOURCE.replace("z: s / T", "z: s / T + "))
    staff.locator(".code-form .CodeMirror .CodeMirror-line", has_text="z: s / T +").click()
    staff.keyboard.press("End")
    staff.keyboard.press("Backspace")
    staff.keyboard.press("Backspace")
    staff.keyboard.press("Backspace")  # typed by hand: the preview follows the keyboard too
    preview.get_by_text("Valid, and the self-check passed on 20 variants.").wait_for()
    assert "Compute" in preview.locator(".prompt").inner_text() and "{{" not in preview.locator(".prompt").inner_text()
    snap(staff, artifacts / "formula-editor-desktop.png", full_page=True)
    staff.locator("form .actions button.primary", has_text="Save").click()
    staff.wait_for_url(f"{base}/teach/exercises/{EXERCISE}")
    assert staff.locator(".flash").inner_text() == (
        f"Created {EXERCISE} as a draft: learners do not see it until you publish it.")
    staff.locator("section.publishing button", has_text="Publish version 1").click()  # learners see it from now
    staff.locator(".flash", has_text="Published version 1: learners see it now.").wait_for()

    student = new_page()
    register(student, base, learner)
    student.goto(f"{base}/exercises/{EXERCISE}")
    student.fill("#part-p", fmt(mistake(app, learner, EXERCISE, "p", "no-temperature")))
    student.click("button.primary")
    student.wait_for_url(re.compile(rf"/exercises/{EXERCISE}\?attempt=\d+"))
    assert "the temperature left out" in student.locator("#part-p-msg").inner_text()
    student.fill("#part-p", fmt(expected(app, learner, EXERCISE)["p"]))
    student.click("button.primary")
    student.wait_for_url(re.compile(rf"/exercises/{EXERCISE}\?attempt=\d+"))
    assert student.locator("#feedback .notice").inner_text() == "Score for this attempt: 100\u00a0%"
    student.set_viewport_size({"width": 390, "height": 844})
    snap(student, artifacts / "formula-solved-phone.png", full_page=True)
