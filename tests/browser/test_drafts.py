"""Drafts in a real browser: an exercise imported on the web is a draft no learner can reach; the
instructor previews it as a learner (nothing stored), publishes it, and the learner finds it; unpublishing
hides it and keeps the learner's attempt, which shows again once it is republished."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

import sqlalchemy as sa
from playwright.sync_api import Page

from grader.extensions import db
from grader.models import Attempt, Progress, Variant
from grader.services import publishing
from tests.browser.conftest import LiveServer, NewPage, expected, fmt, login, register, user_id
from tests.web.conftest import make_user
from tests.web.test_learn import EXERCISES
from tests.shots import snap

DRAFT = "browser-draft"
TITLE = "A residual not yet shown"
SOURCE = ((EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
          .replace("id: block-residual", f"id: {DRAFT}").replace("title: The first residual", f"title: {TITLE}")
          .replace("lesson: gpt2-block", "lesson: drafts-lesson"))  # fmt: skip


def stored(live_server: LiveServer, model: type) -> int:
    with live_server.app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model).where(model.exercise_id == DRAFT))


def shot(page: Page, artifacts: Path, name: str) -> None:
    """The page at 1280 px and at 390 px, whole."""
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 800})
        snap(page, artifacts / f"drafts-{name}-{width}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def press(staff: Page, button: str) -> None:
    staff.locator("section.publishing button", has_text=button).click()
    staff.wait_for_url(re.compile(rf"/teach/exercises/{DRAFT}$"))


def test_a_draft_is_hidden_until_published_and_unpublishing_keeps_the_work(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path, tmp_path: Path
) -> None:
    base, app = live_server.url, live_server.app
    teacher, learner = unique_email("teacher"), unique_email("learner")
    make_user(app, teacher, "instructor")

    # The instructor imports a file: it is stored as a draft.
    staff = new_page()
    login(staff, base, teacher)
    upload = tmp_path / f"{DRAFT}.yaml"
    upload.write_text(SOURCE, encoding="utf-8")
    staff.goto(f"{base}/teach/import")
    staff.set_input_files("input[type=file]", str(upload))
    staff.locator("main button[type=submit]").click()
    staff.wait_for_url(f"{base}/teach/exercises/{DRAFT}")
    assert "as a draft" in staff.locator(".flash").inner_text()
    assert staff.locator("section.publishing .badge").inner_text() == "draft"
    shot(staff, artifacts, "exercise-draft")

    # A learner cannot find it, nor open it by its address.
    student = new_page()
    register(student, base, learner)
    assert student.locator("a", has_text=TITLE).count() == 0
    assert student.goto(f"{base}/exercises/{DRAFT}").status == 404  # type: ignore[union-attr]

    # The instructor previews it as a learner: numbers of their own, answers checked, nothing stored.
    staff.locator("section.publishing a", has_text="Preview as learner").click()
    staff.wait_for_url(f"{base}/teach/exercises/{DRAFT}/as-learner")
    with app.app_context():
        variant = publishing.preview(user_id(app, teacher), DRAFT).variant
        assert variant is not None
        right = fmt(variant.part("h").answer_json())
    staff.fill("#part-h", right)
    staff.locator("form.answers button.primary").click()
    assert "Score a learner would get for these answers: 100" in staff.locator("#feedback .notice").inner_text()
    assert staff.locator("#part-h-msg .verdict.correct").count() == 1
    shot(staff, artifacts, "preview")
    assert stored(live_server, Attempt) == stored(live_server, Variant) == stored(live_server, Progress) == 0

    # Published, the learner finds it and solves it.
    staff.goto(f"{base}/teach/exercises/{DRAFT}")
    press(staff, "Publish version 1")
    assert staff.locator(".flash").inner_text() == "Published version 1: learners see it now."
    student.goto(base)
    student.locator("a", has_text=TITLE).click()
    student.wait_for_url(f"{base}/exercises/{DRAFT}")
    student.fill("#part-h", fmt(expected(app, learner, DRAFT)["h"]))
    student.click("button.primary")
    student.wait_for_url(re.compile(rf"/exercises/{DRAFT}\?attempt=\d+"))

    # Unpublished, it is gone for the learner; their attempt is kept and shows again once republished.
    press(staff, "Unpublish")
    assert staff.locator("section.publishing .badge").inner_text() == "unpublished"
    shot(staff, artifacts, "exercise-unpublished")
    student.goto(base)
    assert student.locator("a", has_text=TITLE).count() == 0
    assert student.goto(f"{base}/exercises/{DRAFT}").status == 404  # type: ignore[union-attr]
    assert stored(live_server, Attempt) == 1
    press(staff, "Publish version 1")
    student.goto(f"{base}/exercises/{DRAFT}")
    assert student.locator("aside.history tbody tr").count() == 1

    # The exercise list says where each exercise stands.
    staff.goto(f"{base}/teach/exercises")
    listed = staff.locator("tbody tr", has=staff.locator("a", has_text=TITLE))
    assert listed.locator(".badge").inner_text() == "published"
    shot(staff, artifacts, "list")
