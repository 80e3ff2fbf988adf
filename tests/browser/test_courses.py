"""Two courses on one site in a real browser: each has its own instructor; a learner joins both with their
codes and has separate work in each; an instructor of one cannot reach the other's learners."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from flask import Flask
from playwright.sync_api import Page

from grader.services import accounts, course_content, courses
from tests.browser.conftest import LiveServer, NewPage, gradebook_columns, user_id
from tests.web.conftest import PASSWORD
from tests.shots import snap

EXERCISE = "block-gelu"


def two_courses(app: Flask, first: str, second: str) -> dict[str, str]:
    """Two courses with join codes on, each using the same two exercises and its own instructor; returns
    their join codes. The `default` course stops taking every new account, as on a site of many courses."""
    codes = {}
    with app.app_context():
        courses.ensure_default().open_enrolment = False
        for code, teacher in ((first, f"t-{first}@example.com"), (second, f"t-{second}@example.com")):
            course = courses.create(code, f"Transformers {code}")
            course_content.use_exercises(course.id, ["block-residual", EXERCISE])
            courses.add_member(course, accounts.create_user(teacher, PASSWORD, "learner"), "instructor")
            codes[code] = courses.open_joining(course)
    return codes


def join(page: Page, base: str, code: str) -> None:
    """Follow a course's join link and confirm it: lands on that course's dashboard."""
    page.goto(f"{base}/join/{code}")
    page.get_by_role("button", name="Join", exact=True).click()
    page.wait_for_url(f"{base}/")


def answer_wrong(page: Page, base: str) -> None:
    page.goto(f"{base}/exercises/{EXERCISE}")
    fields = page.locator("main input[type=text]")
    for i in range(fields.count()):
        fields.nth(i).fill("0.000")
    page.get_by_role("button", name="Check my answers").click()
    page.wait_for_load_state()
    assert "No attempts yet." not in page.locator("main").inner_text()


def test_two_courses_keep_their_learners_and_work_apart(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base, app = live_server.url, live_server.app
    codes = two_courses(app, "ml101", "ml102")
    learner, only_first = unique_email("ada"), unique_email("bo")
    with app.app_context():
        accounts.create_user(only_first, PASSWORD, "learner")
        courses.add_member(courses.by_code("ml101"), accounts.user_by_email(only_first), "learner")  # type: ignore[arg-type]

    ada = new_page()
    ada.goto(f"{base}/register")
    ada.fill("#email", learner)
    ada.fill("#password", PASSWORD)
    ada.fill("#confirm", PASSWORD)
    ada.click("button.primary")
    ada.wait_for_url(f"{base}/courses")  # in no course yet: told how to join one
    assert "You are in no course yet" in ada.locator("main").inner_text()
    join(ada, base, codes["ml101"])
    answer_wrong(ada, base)
    join(ada, base, codes["ml102"])  # now working in ml102: the same exercise, untouched
    ada.goto(f"{base}/courses")
    listed = ada.locator("main ul.exercise-list li")
    assert listed.count() == 2 and "working in it now" in listed.nth(1).inner_text()
    snap(ada, artifacts / "courses-two.png", full_page=True)
    ada.set_viewport_size({"width": 390, "height": 844})
    snap(ada, artifacts / "courses-two-phone.png", full_page=True)
    ada.set_viewport_size({"width": 1280, "height": 800})
    ada.goto(f"{base}/")
    assert "Transformers ml102" in ada.locator("header").inner_text()
    assert "1 attempt" not in ada.locator("main").inner_text()

    first = new_page()
    login_to_courses(first, base, "t-ml101@example.com")
    first.goto(f"{base}/teach/gradebook?learner={learner}")
    row = first.locator("table tbody tr")
    assert row.count() == 1 and row.first.locator("th, td").nth(gradebook_columns(first).index(EXERCISE)).inner_text() != "—"

    second = new_page()
    login_to_courses(second, base, "t-ml102@example.com")
    second.goto(f"{base}/teach/gradebook")
    text = second.locator("main").inner_text()
    assert learner in text and only_first not in text  # ada is in both, bo in ml101 only
    denied = second.goto(f"{base}/teach/gradebook/{user_id(app, only_first)}/{EXERCISE}")
    assert denied is not None and denied.status == 404
    second.goto(f"{base}/courses")
    assert "ml101" not in second.locator("main").inner_text()
    snap(second, artifacts / "courses-other-instructor.png", full_page=True)


def login_to_courses(page: Page, base: str, email: str) -> None:
    """Sign in through the form as someone with no site role (an instructor of one course)."""
    page.goto(f"{base}/login")
    page.fill("#email", email)
    page.fill("#password", PASSWORD)
    page.click("button.primary")
    page.wait_for_url(re.compile(rf"{re.escape(base)}/(teach/)?$"))


