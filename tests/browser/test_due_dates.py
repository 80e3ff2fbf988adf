"""Due dates in a real browser: written in UTC, shown in the reader's own time zone and language."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

from grader.services.exercises import save_source
from tests.browser.conftest import LiveServer, NewPage, register
from tests.web.test_learn import EXERCISES
from tests.shots import snap

Emails = Callable[[str], str]


def test_a_due_date_is_shown_in_the_readers_time_zone(live_server: LiveServer, new_page: NewPage,
                                                      unique_email: Emails, artifacts: Path) -> None:  # fmt: skip
    source = (EXERCISES / "gpt2-block" / "block-gelu.yaml").read_text(encoding="utf-8")
    with live_server.app.app_context():
        save_source(source.replace("id: block-gelu", "id: gelu-due") + "due: 2999-12-15T23:59:00Z\n", None, "web")
    page = new_page("pt-BR", "America/Sao_Paulo")  # UTC−3
    register(page, live_server.url, unique_email("bia"))
    badges = page.locator('a[href="/exercises/gelu-due"] + .badges time')  # upcoming, and in its lesson
    assert badges.count() == 2
    for badge in badges.all():
        assert re.search(r"15 de dez\.? de 2999.*20:59", badge.inner_text()), badge.inner_text()
        assert badge.get_attribute("title") == "15 dez. 2999, 23:59 UTC"  # what the page says without JavaScript
    page.goto(f"{live_server.url}/exercises/gelu-due")
    notice = page.locator("p.notice.due").inner_text()
    assert "20:59" in notice and "UTC" not in notice, notice
    snap(page, artifacts / "due-date-local-time.png", full_page=True)
