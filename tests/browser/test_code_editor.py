"""The code page in Chromium: the editor (Tab indents, line numbers, Python colours, the stub once),
what it sends, and a failing visible case showing inputs to paste; screenshots at desktop and phone width."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from playwright.sync_api import Browser, Page, expect

from grader.extensions import db
from grader.code_models import Submission
from grader.services import submissions
from tests.browser.conftest import LiveServer, register
from tests.shots import snap

URL = "/exercises/code-gelu"
RELU = "import numpy as np\n\n\ndef gelu(z):\n    return np.maximum(z, 0.0)\n"
EDITOR = ".code-form .CodeMirror"
Emails = Callable[[str], str]


def editor_text(page: Page) -> str:
    return page.evaluate("document.querySelector('.code-form .CodeMirror').CodeMirror.getValue()")


def focused_in_editor(page: Page) -> bool:
    return page.evaluate("document.querySelector('.code-form .CodeMirror').contains(document.activeElement)")


CONTRAST = """() => {
  const rgb = (text) => text.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; })
    .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i], 0);
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const editor = document.querySelector(".code-form .CodeMirror");
  const back = rgb(getComputedStyle(editor).backgroundColor);
  const tokens = [...editor.querySelectorAll(".cm-keyword, .cm-def, .cm-number, .cm-string, .cm-builtin, .CodeMirror-linenumber")];
  return { dark: lum(back) < 0.2, worst: Math.min(...tokens.map((t) => ratio(rgb(getComputedStyle(t).color), back))),
           kinds: new Set(tokens.map((t) => t.className)).size };
}"""


def test_the_editor_indents_with_tab_and_lets_the_keyboard_leave_after_esc(
    live_server: LiveServer, page: Page, unique_email: Emails
) -> None:
    register(page, live_server.url, unique_email("typist"))
    page.goto(live_server.url + URL)
    editor = page.locator(EDITOR)
    expect(editor).to_be_visible()
    expect(page.locator("textarea#source")).to_be_hidden()  # the editor stands in for it
    assert page.locator(".CodeMirror-linenumber", has_text=re.compile(r"^1$")).count() == 1
    assert page.locator(f"{EDITOR} .cm-keyword", has_text="def").count() == 1  # Python, coloured
    # The stub is shown once: in the editor, not again above it.
    assert editor_text(page).startswith("import numpy as np") and page.locator("pre.stub").count() == 0
    expect(page.locator("#editor-help")).to_be_visible()

    page.locator("label[for=source]").click()  # the label still leads to the code
    assert focused_in_editor(page)
    page.keyboard.press("Control+A")
    page.keyboard.type("x = 1")
    page.keyboard.press("Home")
    page.keyboard.press("Tab")
    assert editor_text(page) == "    x = 1" and focused_in_editor(page)
    page.keyboard.press("Tab")  # again: the next indent stop, still in the editor
    assert editor_text(page) == "        x = 1" and focused_in_editor(page)
    page.keyboard.press("Shift+Tab")
    assert editor_text(page) == "    x = 1"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")  # after Esc, Tab moves on and leaves the code as it was
    assert not focused_in_editor(page) and editor_text(page) == "    x = 1"


def test_a_failing_run_from_the_editor_shows_pasteable_inputs_at_desktop_and_phone_width(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    register(page, live_server.url, unique_email("relu"))
    page.goto(live_server.url + URL)
    page.locator(EDITOR).click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    # Typed as a learner would; the editor keeps the indent after a colon, so the body's is typed once.
    page.keyboard.type("import numpy as np\n\n\ndef gelu(z):\n")
    page.keyboard.press("Home")
    page.keyboard.press("Shift+End")
    page.keyboard.type("    return np.maximum(z, 0.0)\n")
    assert editor_text(page).rstrip("\n ") == RELU.rstrip("\n")
    page.get_by_role("button", name="Run the tests").click()
    page.wait_for_url(re.compile(r"/exercises/code-gelu\?submission=\d+$"))
    submission = int(page.url.rsplit("=", 1)[1])
    with live_server.app.app_context():
        row = submissions.wait_until_graded(submission, seconds=120)
        # What the editor held was sent (a form sends a textarea's lines with CRLF, as without the editor).
        assert row is not None and row.source.replace("\r\n", "\n").rstrip("\n ") == RELU.rstrip("\n")
        assert row.result is not None and row.result["status"] == "failed"
    page.goto(page.url)
    expect(page.locator("#feedback .notice").first).to_contain_text("Some cases failed")
    scalar = page.locator("table.cases tr", has=page.locator("th", has_text="scalar"))
    expect(scalar.locator("details.inputs pre")).to_have_text("gelu(z=-1.5)")
    vector = page.locator("table.cases tr", has=page.locator("th", has_text=re.compile(r"^vector$")))
    expect(vector.locator("details.inputs pre")).to_contain_text("z = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])")
    hidden = page.locator("table.cases tr", has=page.locator("th", has_text="random-1"))
    assert hidden.count() == 0 or hidden.locator("details.inputs").count() == 0
    # The starter code is a click away now that the editor holds other code.
    expect(page.locator("details.more summary", has_text="Starter code")).to_be_visible()
    snap(page, artifacts / "code-failing-desktop.png", full_page=True)
    # Coloured code stays readable (WCAG AA, 4.5:1) on the editor's background in light and in dark mode.
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        seen = page.evaluate(CONTRAST)
        assert seen["dark"] == (scheme == "dark") and seen["kinds"] >= 4 and seen["worst"] >= 4.5, (scheme, seen)
    snap(page.locator(".code-form"), artifacts / "code-editor-dark.png")
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 390, "height": 844})
    snap(page, artifacts / "code-failing-phone.png", full_page=True)
    # On a phone the page does not scroll sideways: long input lines scroll inside their own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_without_javascript_the_plain_textarea_is_the_editor(
    live_server: LiveServer, browser: Browser, unique_email: Emails
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        register(page, live_server.url, unique_email("nojs"))
        page.goto(live_server.url + URL)
        assert page.locator(".CodeMirror").count() == 0
        expect(page.locator("#editor-help")).to_be_hidden()  # Tab there is the browser's own
        area = page.locator("textarea#source")
        expect(area).to_be_visible()
        assert area.input_value().startswith("import numpy as np")
        area.fill(RELU)
        page.get_by_role("button", name="Run the tests").click()
        page.wait_for_url(re.compile(r"/exercises/code-gelu\?submission=\d+$"))
        with live_server.app.app_context():
            row = db.session.get(Submission, int(page.url.rsplit("=", 1)[1]))
            assert row is not None and row.source.replace("\r\n", "\n") == RELU
    finally:
        context.close()


def test_a_hint_and_giving_up_keep_the_code_in_the_editor(
    live_server: LiveServer, page: Page, unique_email: Emails, artifacts: Path
) -> None:
    register(page, live_server.url, unique_email("helped"))
    page.goto(live_server.url + URL)
    page.locator(EDITOR).click()
    page.keyboard.press("Control+A")
    page.keyboard.type("import numpy as np\n\n\ndef gelu(z):\n")
    page.keyboard.type("return 0.5 * z  # half way\n")
    typed = editor_text(page)
    assert "half way" in typed
    page.get_by_role("button", name="Show a hint").click()  # a button of the hint card, sending the code form
    page.wait_for_url(re.compile(r"/exercises/code-gelu#hints$"))
    expect(page.locator("#hints ol.hints li")).to_have_count(1)
    assert editor_text(page).replace("\r\n", "\n") == typed
    snap(page, artifacts / "code-hint-kept-desktop.png", full_page=True)
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Give up and show the solution").click()
    assert asked and "stops counting" in asked[0]
    expect(page.locator("section.solution")).to_have_count(0)  # declined: nothing sent
    page.locator(EDITOR).click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# and more")
    typed = editor_text(page)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Give up and show the solution").click()
    page.wait_for_url(re.compile(r"#solution$"))
    expect(page.locator("section.solution")).to_contain_text("You gave up on this exercise")
    assert editor_text(page).replace("\r\n", "\n") == typed
    page.set_viewport_size({"width": 390, "height": 844})
    snap(page, artifacts / "code-gave-up-kept-phone.png", full_page=True)


def test_without_javascript_giving_up_asks_on_a_page_and_no_leads_back_to_the_typed_code(
    live_server: LiveServer, browser: Browser, unique_email: Emails
) -> None:
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        register(page, live_server.url, unique_email("nojs-help"))
        page.goto(live_server.url + URL)
        page.locator("textarea#source").fill(RELU)
        page.get_by_role("button", name="Give up and show the solution").click()
        expect(page.locator("h1")).to_have_text("Give up?")
        page.get_by_role("button", name="No, back to the exercise").click()
        page.wait_for_url(re.compile(r"/exercises/code-gelu$"))
        assert page.locator("textarea#source").input_value().replace("\r\n", "\n") == RELU
        expect(page.locator("section.solution")).to_have_count(0)
        page.get_by_role("button", name="Show a hint").click()
        page.wait_for_url(re.compile(r"/exercises/code-gelu#hints$"))
        expect(page.locator("#hints ol.hints li")).to_have_count(1)
        assert page.locator("textarea#source").input_value().replace("\r\n", "\n") == RELU
    finally:
        context.close()
