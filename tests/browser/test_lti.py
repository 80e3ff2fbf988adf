"""A launch from a page playing the LMS: the tool opens in its iframe, the learner answers inside it,
and the score reaches the platform's line item."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterator

import jwt
import pytest
from playwright.sync_api import Page

from tests.browser.conftest import LiveServer, NewPage, expected, fmt
from tests.lti.conftest import map_context
from tests.lti.platform import INSTRUCTOR, FakePlatform
from tests.shots import snap

EMAIL = "learner-1@school.example"  # the fake platform's learner


@pytest.fixture
def platform(live_server: LiveServer) -> Iterator[FakePlatform]:
    fake = FakePlatform()
    fake.start()
    fake.pending = {"custom": {"exercise": "block-layernorm"}}
    result = live_server.app.test_cli_runner().invoke(args=fake.cli_args())
    assert result.exit_code == 0, result.output
    fake.tool_jwks = live_server.app.test_client().get("/lti/jwks").get_json()
    map_context(live_server.app, fake, "default")  # the LMS course is the one-class site's course
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
    snap(page, artifacts / "lti-iframe.png", full_page=True)
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


def test_an_instructor_adds_an_exercise_from_the_catalogue_inside_the_lms(
        live_server: LiveServer, platform: FakePlatform, new_page: NewPage, artifacts: Path) -> None:
    settings = {"deep_link_return_url": f"{platform.url}/deep-link-return", "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe"]}
    platform.pending = {"sub": "teacher-1", "roles": (INSTRUCTOR,), "message_type": "LtiDeepLinkingRequest",
                        "resource_link": None, "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings": settings}
    for width in (390, 320):  # the picker alone, as a phone shows it
        phone = new_page()
        phone.set_viewport_size({"width": width, "height": 800})
        phone.goto(f"{platform.url}/course?tool={live_server.url}")
        phone.frame_locator("iframe#tool").locator("fieldset").first.wait_for()
        tool = phone.frame(name="tool")
        assert tool is not None
        phone.goto(tool.url)  # the same session, top level: the page's own layout at this width
        snap(phone, artifacts / f"lti-pick-{width}.png", full_page=True)
    page = new_page()
    page.goto(f"{platform.url}/course?tool={live_server.url}")
    frame = page.frame_locator("iframe#tool")
    frame.get_by_label("LayerNorm of a row").check()
    snap(page, artifacts / "lti-pick.png")
    frame.get_by_role("button", name="Add to the course").click()
    frame.get_by_text("activity added").wait_for()  # the answer was posted to the LMS from the frame
    [returned] = platform.deep_link_returns
    claims = jwt.decode(returned["JWT"], options={"verify_signature": False})
    [item] = claims["https://purl.imsglobal.org/spec/lti-dl/claim/content_items"]
    assert item["custom"] == {"exercise": "block-layernorm"} and item["lineItem"]["scoreMaximum"] == 100.0


def test_a_refused_launch_shows_inside_the_lms_frame_with_a_new_window_link(
        live_server: LiveServer, platform: FakePlatform, page: Page, artifacts: Path) -> None:
    platform.pending = {"aud": "another-tool"}  # a token for another tool: refused
    page.goto(f"{platform.url}/course?tool={live_server.url}")
    frame = page.frame_locator("iframe#tool")
    link = frame.locator('a[target="_blank"]')
    link.wait_for()  # the refusal page, not the browser's error page: frame-ancestors allows the platform
    assert link.inner_text() == "Open in a new window" and link.get_attribute("href") == f"{platform.url}/course"
    assert "addressed to another tool" in frame.locator("main").inner_text()
    snap(page, artifacts / "lti-refused-in-frame.png", full_page=True)
