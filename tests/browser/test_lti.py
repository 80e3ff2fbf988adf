"""A launch from a page playing the LMS: the tool opens in its iframe, the learner answers inside it,
and the score reaches the platform's line item."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterator

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import LiveServer, expected, fmt
from tests.lti.platform import FakePlatform

EMAIL = "learner-1@school.example"  # the fake platform's learner


@pytest.fixture
def platform(live_server: LiveServer) -> Iterator[FakePlatform]:
    fake = FakePlatform()
    fake.start()
    fake.pending = {"custom": {"exercise": "block-layernorm"}}
    result = live_server.app.test_cli_runner().invoke(args=fake.cli_args())
    assert result.exit_code == 0, result.output
    fake.tool_jwks = live_server.app.test_client().get("/lti/jwks").get_json()
    yield fake
    live_server.app.test_cli_runner().invoke(args=["lti", "platform", "remove", "--issuer", fake.issuer])
    fake.stop()


def test_a_learner_launched_in_the_lms_iframe_answers_inside_it(
        live_server: LiveServer, platform: FakePlatform, page: Page, artifacts: Path) -> None:
    page.goto(f"{platform.url}/course?tool={live_server.url}")
    frame = page.frame_locator("iframe#tool")
    frame.locator("#part-mu").wait_for()  # login, authorisation and launch happened inside the frame
    tool = page.frame(name="tool")
    assert tool is not None and tool.url.endswith("/exercises/block-layernorm")
    assert EMAIL in frame.locator("header.topbar nav").inner_text()
    right = expected(live_server.app, EMAIL, "block-layernorm")
    for part in ("mu", "sigma", "u"):
        frame.locator(f"#part-{part}").fill(fmt(right[part]))
    frame.locator("button.primary").click()
    frame.locator("#feedback .notice").wait_for()
    assert re.fullmatch(r"Score for this attempt: 100\u00a0%", frame.locator("#feedback .notice").inner_text())
    page.screenshot(path=str(artifacts / "lti-iframe.png"), full_page=True)
    deadline = time.monotonic() + 20
    while not platform.scores and time.monotonic() < deadline:
        time.sleep(0.05)
    [sent] = platform.scores
    assert (sent["score"]["userId"], sent["score"]["scoreGiven"]) == ("learner-1", 100.0)


def test_an_unregistered_page_cannot_frame_the_tool(live_server: LiveServer, platform: FakePlatform,
                                                    page: Page) -> None:
    page.set_content(f'<iframe id="tool" src="{live_server.url}/login"></iframe>', wait_until="load")
    [frame] = page.main_frame.child_frames  # loaded (the load event waits for it), as the browser's error page
    assert frame.url.startswith("chrome-error://")  # refused by frame-ancestors 'none' and X-Frame-Options
