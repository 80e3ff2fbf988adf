"""axe-core in the browser tests: run it on the page as it is now, fail with a readable list.

axe-core is vendored for the tests only (tests/browser/vendor/axe-core-4.14.1, with its licence);
the app never serves it. It is injected into the page with Playwright's add_script_tag, which writes an
inline <script>: the app's Content-Security-Policy forbids those, so the browser context that runs axe
is made with bypass_csp=True (see test_axe.py). Nothing is downloaded at test time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Page

AXE_VERSION = "4.14.1"
AXE = Path(__file__).resolve().parent / "vendor" / f"axe-core-{AXE_VERSION}" / "axe.min.js"

# Rules axe leaves off by default that the pages must pass too, each with the reason it is on.
RULES_ON: dict[str, str] = {
    # WCAG 2.2 AA 2.5.8: a control is at least 24×24 px, or has room around it (the audit found small ones).
    "target-size": "WCAG 2.2 AA tap targets",
    # An id used twice breaks aria-describedby and label-for pairs, which the answer fields depend on.
    "duplicate-id": "fields are named and described by id",
    "duplicate-id-active": "fields are named and described by id",
}
# Rules switched off, each with the reason written next to it. Keep it empty unless a rule is wrong
# for these pages; a real problem is fixed in the page, not listed here.
RULES_OFF: dict[str, str] = {}


def _options() -> dict[str, Any]:
    rules = {rule: {"enabled": True} for rule in RULES_ON}
    rules.update({rule: {"enabled": False} for rule in RULES_OFF})
    return {"rules": rules, "resultTypes": ["violations"]}


def violations(page: Page) -> list[dict[str, Any]]:
    """axe's violations on the page as it is now (axe is injected first when the page lacks it)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    # Two frames first: what the page's scripts do on a resize (ResizeObserver) is done before axe looks.
    script = "async options => { await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));" \
             " return axe.run(document, options); }"
    found: list[dict[str, Any]] = page.evaluate(script, _options())["violations"]
    return found


def describe(found: list[dict[str, Any]]) -> str:
    """One line per rule (id, impact, help) and one per element it failed on (its selector and axe's summary)."""
    lines = []
    for rule in found:
        lines.append(f"- {rule['id']} ({rule['impact']}): {rule['help']}  [{rule['helpUrl']}]")
        for node in rule["nodes"]:
            target = " ".join(" >>> ".join(t) if isinstance(t, list) else t for t in node["target"])
            summary = " ".join(node.get("failureSummary", "").split())
            lines.append(f"    {target}: {summary[:300]}")
    return "\n".join(lines)


def assert_accessible(page: Page, where: str) -> None:
    """Fail with axe's violations on the page as it is now, listed readably; `where` names the page state."""
    found = violations(page)
    assert not found, f"axe {AXE_VERSION} found {len(found)} violated rule(s) on {where} ({page.url}):\n{describe(found)}"
