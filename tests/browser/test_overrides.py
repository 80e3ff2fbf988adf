"""A score set by hand in a real browser: an instructor sets it from the gradebook, the learner reads it in Portuguese."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from tests.browser.conftest import LiveServer, NewPage, gradebook_columns, login, register
from tests.web.conftest import make_user
from tests.shots import snap

REASON = "Resolveu no papel durante a aula."


def test_an_instructor_sets_a_score_and_the_learner_sees_it_with_the_reason(
    live_server: LiveServer, new_page: NewPage, unique_email: Callable[[str], str], artifacts: Path
) -> None:
    base = live_server.url
    learner, teacher = unique_email("bia"), unique_email("prof")
    student = new_page("pt-BR")
    register(student, base, learner)
    make_user(live_server.app, teacher, "instructor")
    staff = new_page()
    login(staff, base, teacher)

    staff.goto(f"{base}/teach/gradebook?learner={learner}")
    headers = gradebook_columns(staff)
    empty = staff.locator("table tbody tr").locator("th, td").nth(headers.index("block-gelu"))
    assert empty.inner_text() == "—"
    empty.locator("a").click()  # an exercise never tried opens the learner's page too
    staff.wait_for_url(re.compile(rf"{base}/teach/gradebook/\d+/block-gelu$"))
    staff.fill("#score", "150")
    staff.fill("#reason", REASON)
    staff.get_by_role("button", name="Set this score").click()
    assert staff.locator("#score + .error").inner_text() == "Give a score between 0 and 100."
    staff.fill("#score", "85")
    staff.get_by_role("button", name="Set this score").click()
    assert f"{learner} now has 85\u00a0% on this exercise." in staff.locator("main").inner_text()
    assert staff.locator("#reason").input_value() == REASON
    snap(staff, artifacts / "learner-work-score-set-by-hand.png", full_page=True)
    staff.goto(f"{base}/teach/gradebook?learner={learner}")
    cell = staff.locator("table tbody tr").locator("th, td").nth(headers.index("block-gelu"))
    assert cell.inner_text().split()[:3] == ["85", "%", "✎"]

    student.goto(base)
    badge = student.locator('a[href="/exercises/block-gelu"] + .badges .badge').first
    assert badge.inner_text() == "85\u00a0% · definida pelo seu professor"
    student.goto(f"{base}/exercises/block-gelu")
    notice = student.locator("p.notice.override").inner_text()
    assert notice == f"Seu professor definiu sua pontuação neste exercício como 85\u00a0%: {REASON}", notice
    snap(student, artifacts / "exercise-score-set-by-hand.png")
