"""The README stays a short front door: at most 150 lines, and every link in it leads to a file here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def local_links(text: str) -> list[str]:
    """The targets of the Markdown links and images that point into the repository."""
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def test_the_readme_is_at_most_150_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; move the detail into docs/"


def test_every_link_in_the_readme_leads_to_a_file_that_exists() -> None:
    links = local_links(README.read_text(encoding="utf-8"))
    assert "docs/images/exercise.png" in links and "docs/index.md" in links
    missing = [t for t in links if not (ROOT / t.split("#", 1)[0]).is_file()]
    assert missing == [], missing


def test_the_link_check_sees_a_missing_file() -> None:
    # The check above is only as good as its link finder: a broken link must be found.
    assert local_links("see [x](docs/nowhere.md) and ![y](docs/images/none.png), not [z](https://a.b/)") == [
        "docs/nowhere.md", "docs/images/none.png"]


def test_the_readme_screenshot_is_a_small_png() -> None:
    image = ROOT / "docs" / "images" / "exercise.png"
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert image.stat().st_size < 150_000


@pytest.mark.database  # the docs' build serves the document from an app on a database of its own
def test_the_docs_api_reference_lists_every_call_of_the_served_document() -> None:
    # The page the docs hook generates, from the same document GET /api/v1/openapi.json serves.
    import importlib.util

    source = ROOT / "docs" / "hooks" / "openapi_reference.py"
    spec = importlib.util.spec_from_file_location("openapi_reference", source)
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    document = hook.openapi_document()
    page = hook.reference_page(document)
    calls = [(method, path) for path, item in document["paths"].items() for method in item]
    assert len(calls) >= 10 and ("get", "/api/v1/docs") in calls
    for method, path in calls:
        assert f"## `{method.upper()} {path}`" in page, (method, path)
    for name in document["components"]["schemas"]:
        assert f"### {name} {{#schema-{name.lower()}}}" in page, name
    assert "[AttemptOut](#schema-attemptout)" in page  # replies link their schemas
