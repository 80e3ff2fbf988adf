"""The API reference at /api/v1/docs: Swagger UI from this site's own files lists every call, inside the CSP."""

from __future__ import annotations

from pathlib import Path
from typing import Callable
from urllib.parse import urlsplit

from playwright.sync_api import ConsoleMessage, Page, Request, expect

from tests.browser.conftest import LiveServer, NewPage, register
from tests.shots import snap


def watch(page: Page, base: str) -> tuple[list[str], list[str], list[str]]:
    """Collect the page's console errors, its uncaught exceptions and requests to any other host."""
    errors: list[str] = []
    crashes: list[str] = []
    foreign: list[str] = []
    origin = urlsplit(base).netloc

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" or "Content Security Policy" in message.text:
            errors.append(message.text)

    def on_request(request: Request) -> None:
        if urlsplit(request.url).scheme in ("http", "https") and urlsplit(request.url).netloc != origin:
            foreign.append(request.url)

    page.on("console", on_console)
    page.on("pageerror", lambda error: crashes.append(str(error)))
    page.on("request", on_request)
    return errors, crashes, foreign


def test_the_profile_links_a_reference_that_lists_every_call_within_the_csp(
        live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path) -> None:
    page = new_page()
    errors, crashes, foreign = watch(page, live_server.url)
    register(page, live_server.url, unique_email("ada"))
    page.goto(f"{live_server.url}/profile")
    page.get_by_role("link", name="The API reference: every call, with what it takes and returns").click()
    page.wait_for_url(f"{live_server.url}/api/v1/docs")

    document = page.request.get(f"{live_server.url}/api/v1/openapi.json").json()
    operations = sum(len(item) for item in document["paths"].values())
    blocks = page.locator("#swagger-ui .opblock")
    expect(blocks.first).to_be_visible()
    expect(blocks).to_have_count(operations)
    expect(page.locator("#swagger-ui .opblock-summary-path", has_text="/api/v1/exercises/{exercise_id}/submissions").first
           ).to_be_visible()  # fmt: skip
    snap(page, artifacts / "api-reference-desktop.png")

    # Opening a call shows its parameters and response schemas, rendered by the same vendored script.
    page.locator("#swagger-ui .opblock-summary-path", has_text="/api/v1/submissions/{submission_id}").first.click()
    expect(page.locator("#swagger-ui .parameters-container").first).to_contain_text("submission_id")
    expect(page.locator("#swagger-ui .responses-wrapper").first).to_contain_text("401")

    page.set_viewport_size({"width": 390, "height": 844})
    snap(page, artifacts / "api-reference-phone.png")
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
    assert errors == [] and crashes == [], (errors, crashes)
    assert foreign == [], foreign


def test_the_reference_link_and_page_speak_the_readers_language(
        live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str]) -> None:
    for locale, link, title in (
            ("pt-BR", "A referência da API: cada chamada, com o que recebe e o que devolve", "Referência da API"),
            ("ru-RU", "Справочник API: каждый вызов, что он принимает и что возвращает", "Справочник API")):
        page = new_page(locale=locale)
        register(page, live_server.url, unique_email("bea"))
        page.goto(f"{live_server.url}/profile")
        page.get_by_role("link", name=link).click()
        expect(page.locator("h1")).to_have_text(title)
        expect(page.locator("#swagger-ui .opblock").first).to_be_visible()
