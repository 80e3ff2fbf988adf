"""An instructor in a real browser: build an exercise in the structured form (no YAML), watch the
live preview, save it; a learner solves it; the instructor reads the gradebook."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import Page

from tests.browser.conftest import LiveServer, NewPage, expected, fmt, gradebook_columns, login, mistake, register
from tests.web.conftest import make_user
from tests.shots import snap

EXERCISE = "browser-residual"
TITLE = "The first residual, made in the browser"
# As in exercises/gpt2-block/block-residual.yaml.
PROMPT = """In the toy GPT-2 block ($d = 4$) the last token's row of the residual stream is
$x_5 =$ {{x}}, and the attention sub-layer returns the correction $a_5 =$ {{a}}.

The block keeps the token's own vector and adds the correction to it.
Compute the first residual $h_5 = x_5 + a_5$."""
SOLUTION = """Add entry by entry: $h_5 = x_5 + a_5 =$ {{x}} + {{a}}.

$h_5 =$ {{h}}. This is the only place in the block where a token receives numbers from the other
tokens."""
PARAMS = [
    {"name": "x", "shape": "4", "low": "-2.0", "high": "2.0", "decimals": "1",
     "page": "[-0.5, -0.5, -0.5, 1.5]"},
    {"name": "a", "shape": "4", "low": "-1.5", "high": "1.5", "decimals": "3",
     "page": "[-0.739, 1.411, -0.521, -0.520]"},
]  # fmt: skip


def fill_structured_form(page: Page) -> None:
    """A copy of block-residual, typed into the no-code form."""
    page.select_option("select[name=model]", "gpt2-toy")
    page.fill("input[name=lesson]", "browser-lesson")
    page.fill("input[name=title]", TITLE)
    page.fill("input[name=id]", EXERCISE)
    page.fill("input[name=position]", "1")
    for i, row in enumerate(PARAMS):
        for key, value in row.items():
            page.fill(f"input[name=param-{i}-{key}]", value)
    page.fill("input[name=part-0-id]", "h")
    page.fill("input[name=part-0-label]", "h₅")
    page.select_option("select[name=part-0-type]", "vector")
    page.select_option("select[name=part-0-quantity]", "h")
    page.select_option("select[name=part-0-tol_kind]", "abs")
    page.fill("input[name=part-0-tol_value]", "0.0005")
    page.get_by_role("group", name="Mistakes it must recognise").get_by_label("no-residual-attention").check()
    page.check("input[name=part-0-partial_credit]")
    page.fill("textarea[name=solution]", SOLUTION)
    page.fill("textarea[name=prompt]", PROMPT)  # last: the preview follows every field anyway


def test_instructor_builds_an_exercise_without_yaml_and_a_learner_solves_it(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, app = live_server.url, live_server.app
    teacher, learner = unique_email("teacher"), unique_email("learner")
    make_user(app, teacher, "instructor")

    # The instructor writes the exercise in the form and watches the live preview.
    staff = new_page()
    login(staff, base, teacher)
    staff.locator("header.topbar nav a", has_text="Exercises").click()
    staff.wait_for_url(f"{base}/teach/exercises")
    staff.locator(".head-actions a", has_text="New exercise").click()
    staff.wait_for_url(re.compile(r"/teach/exercises/new"))
    assert staff.locator("nav.tabs a[aria-current=page]").inner_text() == "Form"
    fill_structured_form(staff)

    preview = staff.locator("[data-preview-target]")
    preview.locator(".prompt", has_text="Compute the first residual").wait_for()
    assert preview.locator(".prompt math").count() > 0
    assert "{{" not in preview.locator(".prompt").inner_text()  # a variant's numbers filled in
    preview.get_by_text("Valid, and the self-check passed on 20 variants.").wait_for()
    row = preview.locator("tbody tr", has_text="h₅")
    assert "the first residual forgotten (h = a)" in row.inner_text()  # the mistake by its title, as learners see it
    assert "abs 0.0005" in row.inner_text()

    staff.locator("form.editor .actions button.primary", has_text="Save").click()
    staff.wait_for_url(f"{base}/teach/exercises/{EXERCISE}")
    assert staff.locator(".flash").inner_text() == (
        f"Created {EXERCISE} as a draft: learners do not see it until you publish it.")
    staff.locator("section.publishing button", has_text="Publish version 1").click()  # learners see it from now
    staff.locator(".flash", has_text="Published version 1: learners see it now.").wait_for()
    assert staff.locator("h1").inner_text() == TITLE
    assert "from the web editor" in staff.locator("main").inner_text()

    # A learner finds it on the dashboard, makes the recognised mistake, then solves it.
    student = new_page()
    register(student, base, learner)
    lesson = student.locator("section.lesson", has=student.locator("a", has_text=TITLE))
    assert lesson.locator("h2").inner_text() == "Browser lesson"
    assert lesson.locator(".pill").inner_text() == "0 / 1 solved"
    lesson.locator("a", has_text=TITLE).click()
    student.wait_for_url(f"{base}/exercises/{EXERCISE}")
    assert student.locator("section.prompt math").count() > 0
    h = expected(app, learner, EXERCISE)["h"]
    assert isinstance(h, list) and len(h) == 4

    student.fill("#part-h", fmt(mistake(app, learner, EXERCISE, "h", "no-residual-attention")))
    student.click("button.primary")
    student.wait_for_url(re.compile(rf"/exercises/{EXERCISE}\?attempt=\d+"))
    assert student.locator("#part-h-msg .verdict.incorrect").inner_text().startswith("✗")
    assert student.locator("#part-h-msg .misconception").inner_text().startswith("Likely mistake.")

    student.fill("#part-h", fmt(h))
    student.click("button.primary")
    student.wait_for_url(re.compile(rf"/exercises/{EXERCISE}\?attempt=\d+"))
    assert student.locator("#feedback .notice").inner_text() == "Score for this attempt: 100\u00a0%"
    assert student.locator("#part-h-msg .verdict.correct").inner_text().startswith("✓")
    assert student.locator("section.solution li").count() == 2
    assert student.locator("aside.history tbody tr").count() == 2

    # The instructor sees the learner's row in the gradebook, and the exercise in the list.
    staff.locator("header.topbar nav a", has_text="Gradebook").click()
    staff.wait_for_url(f"{base}/teach/gradebook")
    headers = gradebook_columns(staff)
    column = headers.index(EXERCISE)
    learner_row = staff.locator("table tbody tr", has=staff.locator("th", has_text=learner))
    assert learner_row.count() == 1
    cells = learner_row.locator("th, td")
    shown = len(headers) - 3  # learner, solved and average come first
    assert cells.nth(1).inner_text() == f"1 / {shown}"
    assert cells.nth(2).inner_text() == f"{round(100 / shown)}\u00a0%"  # one exercise solved, the rest not tried
    assert cells.nth(column).inner_text().split() == ["100", "%", "2", "att."]
    assert staff.locator("tbody tr", has=staff.locator("td", has_text=teacher)).count() == 0
    snap(staff, artifacts / "gradebook.png", full_page=True)

    # The score opens the learner's two attempts, newest first, the first one's mistake named.
    cells.nth(column).locator("a").click()
    staff.wait_for_url(re.compile(rf"{base}/teach/gradebook/\d+/{EXERCISE}$"))
    rows = staff.locator("table.work tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator(".badge").inner_text() == "correct"
    assert rows.nth(1).locator(".pill").inner_text() == "the first residual forgotten (h = a)"
    snap(staff, artifacts / "learner-work.png", full_page=True)

    staff.locator("header.topbar nav a", has_text="Exercises").click()
    staff.wait_for_url(f"{base}/teach/exercises")
    listed = staff.locator("table tbody tr", has=staff.locator("a", has_text=TITLE))
    assert listed.count() == 1
    assert EXERCISE in listed.inner_text()
    # Exercises sit under their lesson's heading row: the nearest one above this row names the lesson.
    heading = listed.locator("xpath=preceding-sibling::tr[contains(@class, 'group')][1]")
    assert (heading.text_content() or "").strip() == "Browser lesson"
    assert listed.locator(".wrong-line").inner_text().startswith("the first residual forgotten (h = a) ·")
    snap(staff, artifacts / "teach-exercises.png", full_page=True)
