"""The editor's live preview says when it is behind, and never shows an older answer over a newer one."""

from __future__ import annotations

import re
from typing import Callable

from playwright.sync_api import Route

from tests.browser.conftest import LiveServer, NewPage, login
from tests.web.conftest import make_user


def test_a_preview_that_could_not_be_updated_says_so_until_one_is(
        live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str]) -> None:  # fmt: skip
    base = live_server.url
    teacher = unique_email("teacher")
    make_user(live_server.app, teacher, "instructor")
    page = new_page()
    login(page, base, teacher)
    page.goto(f"{base}/teach/exercises/block-residual/edit")
    preview = page.locator("[data-preview-target]")
    stale = preview.locator("[data-stale-note]")

    def offline(route: Route) -> None:
        route.abort("internetdisconnected")

    page.route(re.compile(r"/teach/exercises/preview$"), offline)
    page.fill("input[name=title]", "The first residual, offline")
    stale.wait_for()
    assert stale.inner_text().startswith("The preview could not be updated just now")
    assert stale.get_attribute("role") == "status"
    page.unroute(re.compile(r"/teach/exercises/preview$"), offline)
    page.fill("input[name=title]", "The first residual, online again")
    preview.get_by_text("Valid, and the self-check passed on 20 variants.").wait_for()
    assert stale.count() == 0
