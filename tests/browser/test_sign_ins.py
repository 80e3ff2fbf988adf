"""A learner signs another browser out from their profile page, in real Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from playwright.sync_api import expect

from tests.browser.conftest import LiveServer, NewPage, login, register
from tests.shots import snap


def test_a_learner_signs_out_another_browser(live_server: LiveServer, new_page: NewPage,
                                            unique_email: Callable[[str], str], artifacts: Path) -> None:  # fmt: skip
    email = unique_email("ines")
    laptop, phone = new_page(), new_page()
    register(laptop, live_server.url, email)
    login(phone, live_server.url, email)
    laptop.goto(f"{live_server.url}/profile")
    sign_ins = laptop.locator("table", has=laptop.get_by_role("columnheader", name="Browser")).locator("tbody tr")
    expect(sign_ins).to_have_count(2)
    expect(sign_ins.filter(has_text="this browser")).to_have_count(1)
    expect(sign_ins.first).to_contain_text("Chrome on Linux")
    snap(laptop, artifacts / "profile-sign-ins.png", full_page=True)
    sign_ins.filter(has_not_text="this browser").get_by_role("button", name="Sign out").click()
    expect(laptop.get_by_text("Signed out of 1 browser.")).to_be_visible()
    expect(sign_ins).to_have_count(1)
    phone.goto(f"{live_server.url}/profile")
    expect(phone).to_have_url(f"{live_server.url}/login?next=%2Fprofile")
    laptop.goto(f"{live_server.url}/profile")
    expect(laptop).to_have_url(f"{live_server.url}/profile")
