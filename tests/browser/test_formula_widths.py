"""Every formula of the shipped exercises fits a 320 px screen: display formulas one equation per block,
inline ones short (docs/development/accessibility.md). Each text (prompt, hints, solution, in every
language) is rendered as the pages do, in a card of the exercise page's width, with the app's stylesheet."""

from __future__ import annotations

import re
from html import escape
from pathlib import Path
from typing import Any, Iterator

import yaml
from playwright.sync_api import Page

from grader.markup import render_markdown
from tests.browser.conftest import LiveServer

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
# Each formula wider than its room: the list item it sits in (a step of a solution or a hint is indented), else
# its card. Where it is, how wide, the room's width, its LaTeX.
TOO_WIDE = """() => [...document.querySelectorAll("math")].flatMap((m) => {
  const card = m.closest("section"), box = m.closest("li") || card, style = getComputedStyle(box);
  const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const width = m.getBoundingClientRect().width;
  const inner = m.getAttribute("display") === "block" ? m.parentElement.scrollWidth : width;
  return Math.max(width, inner) > room + 1 ? [[card.id, Math.round(Math.max(width, inner)), Math.round(room), m.getAttribute("alttext")]] : [];
})"""


def _texts(node: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(node, str):
        if "$" in node:
            yield where, node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _texts(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, f"{where}[{i}]")


def _card(where: str, text: str) -> str:
    """A text in a card as the exercise page shows it: a step of the solution or a hint as an item of its
    card's numbered list (indented by that card's style), any other text as it is."""
    html, kind = render_markdown(text), re.search(r"/(solution|hints)\[\d+\]$", where)
    if kind is None:
        return f'<section class="card prompt" id="{escape(where)}">{html}</section>'
    card, items = ("solution", "<ol>") if kind.group(1) == "solution" else ("help", '<ol class="hints">')
    return f'<section class="card {card}" id="{escape(where)}">{items}<li>{html}</li></ol></section>'


def test_every_shipped_formula_fits_a_320_px_screen(live_server: LiveServer, page: Page) -> None:
    cards = [_card(where, text)
             for path in sorted(EXERCISES.rglob("*.yaml"))
             for where, text in _texts(yaml.safe_load(path.read_text(encoding="utf-8")), path.stem)]  # fmt: skip
    assert len(cards) > 100
    page.set_viewport_size({"width": 320, "height": 640})
    page.goto(f"{live_server.url}/login")  # the app's origin, so its stylesheet loads
    page.set_content(f'<!doctype html><html><head><link rel="stylesheet" href="{live_server.url}/static/style.css">'
                     f'</head><body><main class="page"><div class="layout"><div>{"".join(cards)}</div></div></main></body></html>')  # fmt: skip
    page.wait_for_load_state("networkidle")
    assert page.locator("math").count() > 300
    wide = [f"{where}: {width} > {room} px: {latex}" for where, width, room, latex in page.evaluate(TOO_WIDE)]
    assert not wide, "formulas wider than a 320 px screen's card:\n" + "\n".join(wide)
