"""The pictures in a real browser: drawn at desktop and phone widths with the learner's numbers,
named for screen readers, coloured by the page's own variables; screenshots for looking at.

Screenshots go to tests/artifacts/pictures/: each page state at 1280 and 390 px, with the browser
asking for light and for dark. The site has no dark theme of its own yet, so a third set ("dark-theme")
sets the stylesheet's colour variables to a dark palette, to show the pictures follow whatever theme
sets them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from playwright.sync_api import Browser, Page, expect

from grader.services import attempts
from tests.browser.conftest import TIMEOUT_MS, LiveServer, expected, register, user_id
from tests.web.conftest import seat
from tests.shots import snap

WIDTHS = (1280, 390)
MINUS = "\u2212"
DARK = (":root { --ink: #e6e8ee; --muted: #a3abbb; --line: #343a46; --field: #6b7385; --paper: #1c2027; "
        "--back: #12151a; --accent: #8ea6ff; --accent-soft: #232b45; --ok: #6fd08a; --ok-soft: #183222; "
        "--bad: #ff8a8a; --bad-soft: #3a1c1c; --warn: #f0b060; --warn-soft: #33261a; }")  # fmt: skip


def three(value: float) -> str:
    """Three places as the page draws them: a value that rounds to zero has no sign (−0.0 is drawn 0.000)."""
    text = f"{value:.3f}"
    return (text[1:] if text == "-0.000" else text).replace("-", MINUS)


def typed(value: Any) -> str:
    """An answer as a learner types it: 4 decimals, a vector in brackets, a shape in parentheses, a set in braces."""
    if isinstance(value, list) and all(isinstance(v, int) for v in value):
        return "(" + ", ".join(map(str, value)) + ")"
    if isinstance(value, list):
        return "[" + "; ".join(f"{v:.4f}" for v in value) + "]"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def send(page: Page, answers: dict[str, str]) -> None:
    for part, text in answers.items():
        page.fill(f"#part-{part}", text)
    page.click("form.answers button.primary")
    page.wait_for_load_state()


def params(server: LiveServer, email: str, exercise: str) -> dict[str, Any]:
    with server.app.app_context():
        return dict(attempts.learner_variant(seat(user_id(server.app, email)), exercise)[1].params)


def shoot(browser: Browser, page: Page, artifacts: Path, name: str) -> None:
    """Screenshots of the page's address at each width, light, dark, and with a dark palette set."""
    folder = artifacts / "pictures"
    folder.mkdir(exist_ok=True)
    state = page.context.storage_state()
    for width in WIDTHS:
        for scheme in ("light", "dark", "dark-theme"):
            context = browser.new_context(viewport={"width": width, "height": 900}, storage_state=state,
                                          color_scheme="light" if scheme == "light" else "dark",
                                          bypass_csp=scheme == "dark-theme")  # fmt: skip
            context.set_default_timeout(TIMEOUT_MS)
            try:
                other = context.new_page()
                other.goto(page.url)
                if scheme == "dark-theme":
                    other.add_style_tag(content=DARK)
                figures = other.locator("figure.pic")
                for i in range(figures.count()):
                    box = figures.nth(i).bounding_box()
                    assert box is not None and box["width"] > 150 and box["x"] + box["width"] <= width
                snap(other, folder / f"{name}-{width}-{scheme}.png", full_page=True)
            finally:
                context.close()


def test_the_block_diagram_and_gelu_curve_show_the_learners_numbers(
    live_server: LiveServer, page: Page, browser: Browser, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("pic")
    register(page, base, email)
    page.goto(f"{base}/exercises/block-residual")
    block = page.get_by_role("img", name="The GPT-2 block, one token at a time")
    expect(block).to_be_visible()
    mine = params(live_server, email, "block-residual")
    for value in [*mine["x"], *mine["a"]]:
        expect(block.locator("text", has_text=three(value)).first).to_be_visible()
    expect(block.locator("g.pic-current text").first).to_have_text("h₅")
    # Drawn in the page's own colours: the text in --ink, the asked station in --accent.
    colours = page.evaluate("""() => {
        const root = getComputedStyle(document.documentElement);
        const svg = document.querySelector('figure.pic-block svg');
        return {ink: root.color, text: getComputedStyle(svg.querySelector('text')).fill,
                accent: root.getPropertyValue('--accent').trim(),
                asked: getComputedStyle(svg.querySelector('.pic-current .pic-add')).stroke};
    }""")  # fmt: skip
    assert colours["text"] == colours["ink"] and colours["asked"] == "rgb(59, 91, 219)" == _rgb(colours["accent"])
    shoot(browser, page, artifacts, "block-residual")

    page.goto(f"{base}/exercises/block-gelu")
    curve = page.get_by_role("img", name="The GELU curve")
    expect(curve).to_be_visible()
    with live_server.app.app_context():
        z = attempts.learner_variant(seat(user_id(live_server.app, email)), "block-gelu")[1].quantities["z1"]
    expect(curve.locator("circle.pic-mark")).to_have_count(2)  # at −z and z, the prompt's printed z
    expect(curve.locator("text", has_text=f"z = {three(z)}")).to_have_count(1)
    expect(curve.locator("text", has_text=f"−z = {three(-z)}")).to_have_count(1)
    shoot(browser, page, artifacts, "block-gelu")


def test_after_solving_the_solution_pictures_and_the_comparison_of_a_wrong_try(
    live_server: LiveServer, page: Page, browser: Browser, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, email = live_server.url, unique_email("solved")
    register(page, base, email)
    right = expected(live_server.app, email, "block-residual")["h"]
    wrong = list(right)
    wrong[0] = -wrong[0] - 0.5
    page.goto(f"{base}/exercises/block-residual")
    send(page, {"h": typed(wrong)})
    first_try = page.url
    expect(page.locator("figure.pic-compare")).to_have_count(0)  # not solved yet: expected values stay hidden
    send(page, {"h": typed(right)})
    page.goto(first_try)
    compare = page.get_by_role("img", name="Your answer against the expected one")
    expect(compare).to_be_visible()
    expect(compare.locator("text.pic-wrong-text")).to_have_text([three(wrong[0])])
    solution = page.locator("section.solution figure.pic-block text")
    for value in right:
        expect(solution.filter(has_text=three(value)).first).to_be_visible()
    shoot(browser, page, artifacts, "block-residual-solved")

    for exercise, name in (("ffn-keys", "Which keys fire"), ("ffn-edit", "Which keys fire"),
                           ("microgpt-stations", "microGPT's path for one token")):  # fmt: skip
        answers = expected(live_server.app, email, exercise)
        page.goto(f"{base}/exercises/{exercise}")
        expect(page.get_by_role("img")).to_have_count(0)  # these pictures would give the answer away
        send(page, {part: "{" + ", ".join(map(str, v)) + "}" if part in ("active", "changed") else typed(v)
                    for part, v in answers.items()})  # fmt: skip
        expect(page.locator("section.solution").get_by_role("img", name=name)).to_be_visible()
        shoot(browser, page, artifacts, exercise)


def _rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(value[i : i + 2], 16) for i in (0, 2, 4)))
