"""An instructor imports a class list in a real browser: the bad rows are listed and nothing is imported, then
the good rows on request; a person's role changed from their page. Both pages pass axe, at desktop and phone
widths."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from grader.services import accounts, courses
from tests.browser.axe import assert_accessible
from tests.browser.conftest import TIMEOUT_MS, LiveServer, login
from tests.web.conftest import make_user
from tests.shots import snap

CLASS_CSV = "email;name;role\n{a};Ada;\nnot-an-email;Nobody;\n{b};Bo;professor\n{c};Cy;ta\n"
WIDTHS = {"desktop": 1280, "phone": 390}


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page whose context lets axe's script in (the site's CSP allows no inline script)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US", bypass_csp=True)
    context.set_default_timeout(TIMEOUT_MS)
    yield context.new_page()
    context.close()


def shoot(page: Page, artifacts: Path, name: str) -> None:
    """A full-page screenshot at each width, under tests/artifacts/enrol-<name>-<width>.png."""
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 800})
        snap(page, artifacts / f"enrol-{name}-{label}.png", full_page=True)
    page.set_viewport_size({"width": WIDTHS["desktop"], "height": 800})


def upload(page: Page, text: str, good_only: bool = False) -> None:
    page.set_input_files("#upload", files=[{"name": "class.csv", "mimeType": "text/csv", "buffer": text.encode()}])
    if good_only:
        page.check("#good_only")
    page.locator("form[action$='/people/import'] button[type=submit]").click()


def test_an_instructor_imports_a_class_list_and_changes_a_role(
    live_server: LiveServer, page: Page, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, app = live_server.url, live_server.app
    teacher, a, b, c = (unique_email(who) for who in ("teach", "ada", "bo", "cy"))
    make_user(app, teacher, "instructor")
    login(page, base, teacher)
    page.get_by_role("navigation", name="Main menu").get_by_role("link", name="People").click()
    expect(page.get_by_role("heading", name="People", level=1)).to_be_visible()

    upload(page, CLASS_CSV.format(a=a, b=b, c=c))
    expect(page.get_by_role("heading", name="Nothing imported")).to_be_visible()
    bad = page.locator("#report table tbody tr")
    expect(bad).to_have_count(2)
    expect(bad.nth(0)).to_contain_text("Enter a valid email address.")
    expect(bad.nth(1)).to_contain_text("unknown role professor")
    assert_accessible(page, "the People page with bad rows")
    shoot(page, artifacts, "people-bad-rows")
    with app.app_context():
        assert accounts.user_by_email(a) is None

    upload(page, CLASS_CSV.format(a=a, b=b, c=c), good_only=True)
    expect(page.get_by_role("heading", name="Imported")).to_be_visible()
    expect(page.locator("#report [role=status]")).to_contain_text("2 people added (2 new accounts)")
    shoot(page, artifacts, "people-imported")

    page.get_by_role("link", name=c).click()
    page.select_option("#role", "instructor")
    page.get_by_role("button", name="Change the role").click()
    expect(page.locator(".flash")).to_contain_text("The role is now instructor.")
    assert_accessible(page, "a person's page")
    shoot(page, artifacts, "person")
    with app.app_context():
        course = courses.ensure_default()
        cy = accounts.user_by_email(c)
        assert cy is not None and courses.memberships(cy.id)[0].role == "instructor"
        assert course.code == "default"
