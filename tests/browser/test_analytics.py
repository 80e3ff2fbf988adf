"""Class analytics in a real browser: the instructor's dashboard, one exercise's charts and the gradebook
matrix, at desktop and phone widths, with the numbers read from the tables beside the charts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import LiveServer, NewPage, login
from tests.web.analytics_class import build_class
from tests.web.conftest import make_user
from tests.shots import snap

TEACHER = "analytics-teacher@example.com"
PHONE, SMALL_PHONE = {"width": 390, "height": 844}, {"width": 320, "height": 640}


@pytest.fixture(scope="module")
def taught(live_server: LiveServer) -> Iterator[LiveServer]:
    """The hand-built class of tests/web/analytics_class.py, and an instructor who tried the exercise too."""
    make_user(live_server.app, TEACHER, "instructor")
    build_class(live_server.app, TEACHER)
    yield live_server


def table_rows(page: Page, figures: str) -> list[list[str]]:
    """The cells of a figures table, row by row, as shown."""
    rows = page.locator(f'table[data-figures="{figures}"] tbody tr')
    return [[cell.inner_text().strip() for cell in row.locator("th, td").all()] for row in rows.all()]


def chart_names(page: Page) -> list[str]:
    return [svg.get_attribute("aria-label") or "" for svg in page.locator("svg.chart-svg[role=img]").all()]


def test_an_instructor_lands_on_the_class_dashboard(taught: LiveServer, new_page: NewPage, artifacts: Path) -> None:
    page = new_page()
    login(page, taught.url, TEACHER)
    assert page.url == f"{taught.url}/teach/"
    assert page.locator("h1").inner_text() == "Class dashboard"
    assert chart_names(page) == ["Solve rate of the exercises solved least", "Misconceptions met this week",
                                 "Completion over the last 30 days"]  # fmt: skip
    assert table_rows(page, "solve-rates") == [["GELU by hand", "block-gelu", "4", "2", "50\u00a0%", "1", "1"]]
    assert table_rows(page, "misconceptions-this-week") == [["ReLU in place of GELU", "relu", "GELU by hand", "3", "6"]]
    stuck = page.locator("table.stuck tbody tr")
    assert [row.locator("th").inner_text() for row in stuck.all()] == ["dee@example.com", "cy@example.com"]
    assert "viewed the solution" in stuck.nth(1).inner_text()
    # The learners' page is still a click away.
    assert page.locator("a.button", has_text="Lessons as a learner sees them").get_attribute("href") == "/"
    snap(page, artifacts / "dashboard-1280.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    snap(page, artifacts / "dashboard-390.png", full_page=True)
    # The low solve rate leads to that exercise's analytics.
    page.locator('table[data-figures="solve-rates"] a', has_text="GELU by hand").click()
    page.wait_for_url(f"{taught.url}/teach/exercises/block-gelu/analytics")


def test_an_exercise_s_analytics_draw_its_numbers(taught: LiveServer, new_page: NewPage, artifacts: Path) -> None:
    page = new_page()
    login(page, taught.url, TEACHER)
    page.goto(f"{taught.url}/teach/exercises/block-gelu/analytics")
    assert chart_names(page) == ["Attempts to solve", "Hints asked for", "Wrong answers by misconception"]
    assert page.locator(".figures-row dd").all_inner_texts() == ["4", "2", "50\u00a0%", "9", "1"]
    solved_in = {row[0]: row[1] for row in table_rows(page, "attempts-to-solve")}
    assert solved_in == {"1": "1", "2": "0", "3": "1", "4": "0", "5": "0", "6–9": "0", "10+": "0"}
    # The chart draws what the table says: one column per bucket, its count written over it.
    counts = page.locator("figure.chart-histogram").first.locator("text.chart-value").all_text_contents()
    assert counts == ["1", "0", "1", "0", "0", "0", "0"]
    wrong = table_rows(page, "misconceptions")
    assert [row[:4] for row in wrong] == [["ReLU in place of GELU", "relu", "3", "6"],
                                          ["Unexplained wrong answers", "", "1", "1"]]  # fmt: skip
    assert wrong[1][4] == "gelu(−z): 123.456" and "@" not in " ".join(wrong[0])  # examples name nobody
    bars = page.locator("figure.chart-bars rect.chart-bar")
    assert bars.count() == 2 and "chart-quiet" in (bars.nth(1).get_attribute("class") or "")
    snap(page, artifacts / "exercise-analytics-1280.png", full_page=True)
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    snap(page, artifacts / "exercise-analytics-390.png", full_page=True)
    csv = page.request.get(f"{taught.url}/teach/exercises/block-gelu/figures/misconceptions.csv").text()
    assert csv.splitlines()[1].startswith("ReLU in place of GELU,relu,3,6,")


def _left_edge_clear(page: Page) -> float:
    """How far the focused cell is clear of the sticky learner column on its left and of the scroll box's edge on
    its right, whichever is less (negative: partly hidden)."""
    return float(page.evaluate("""() => {
        const cell = document.activeElement.closest('td').getBoundingClientRect();
        const learner = document.activeElement.closest('tr').querySelector('th.email').getBoundingClientRect();
        const box = document.querySelector('.gradebook-scroll');
        const right = box.getBoundingClientRect().left + box.clientWidth;
        return Math.min(cell.left - learner.right, right - cell.right);
    }"""))


def test_the_gradebook_on_a_phone_keeps_focused_cells_clear_of_the_learner_column(
    taught: LiveServer, new_page: NewPage, artifacts: Path
) -> None:
    page = new_page()
    page.set_viewport_size(SMALL_PHONE)
    login(page, taught.url, TEACHER)
    page.goto(f"{taught.url}/teach/gradebook?lesson=gpt2-block")
    header = page.locator("th.vert[data-exercise=block-gelu]")
    # One name, seen and heard alike: the title; the id on hover.
    assert header.inner_text() == "GELU by hand" and header.get_attribute("title") == "block-gelu"
    assert page.get_by_role("columnheader", name="GELU by hand", exact=True).count() == 1
    learner = page.locator("tbody th.email").first.bounding_box()
    assert learner is not None and learner["width"] <= 110  # a narrow column on a phone: most of 320 px is scores
    note = page.locator("[data-offscreen]")
    assert note.inner_text().startswith("Columns off screen: 0 to the left,")
    # Tab along ada's row to its last cell, then back: every focused cell shows whole, never under the column.
    row = page.locator("tbody tr", has=page.locator("th", has_text="ada@example.com"))
    links = row.locator("td a")
    links.first.focus()
    for _ in range(links.count() - 1):
        page.keyboard.press("Tab")
        assert _left_edge_clear(page) >= -1
    snap(page, artifacts / "gradebook-320-scrolled.png")
    page.evaluate("document.querySelector('.gradebook-scroll').scrollLeft = 1e6")
    expect(note).to_contain_text(re.compile(r"Columns off screen: [1-9]\d* to the left, 0 to the right"))
    for _ in range(links.count() - 1):
        page.keyboard.press("Shift+Tab")
        assert _left_edge_clear(page) >= -1
    # Every cell's link, a "—" for an exercise not tried too, is a target of at least 24 × 24 px.
    for link in row.locator("td.cell a").all():
        box = link.bounding_box()
        assert box is not None and box["width"] >= 24 and box["height"] >= 24
    snap(page, artifacts / "gradebook-320.png", full_page=True)
    page.set_viewport_size(PHONE)
    snap(page, artifacts / "gradebook-390.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{taught.url}/teach/gradebook")
    gelu = row.locator("td.cell").nth(
        [th.get_attribute("data-exercise") for th in page.locator("thead th.vert").all()].index("block-gelu"))
    assert "score-full" in (gelu.get_attribute("class") or "")  # ada solved it: coloured as solved
    snap(page, artifacts / "gradebook-1280.png", full_page=True)


def test_a_learner_s_attempt_links_are_targets_of_24_px(taught: LiveServer, new_page: NewPage) -> None:
    page = new_page()
    page.set_viewport_size(PHONE)
    login(page, taught.url, "ada@example.com")
    page.goto(f"{taught.url}/exercises/block-gelu")
    links = page.locator("aside.history tbody th a")
    assert links.count() == 3
    for link in links.all():
        box = link.bounding_box()
        assert box is not None and box["width"] >= 24 and box["height"] >= 24, box
