"""A learner downloads their data and deletes their account in a real browser, in Russian."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from grader.services import accounts
from tests.browser.conftest import PASSWORD, LiveServer, NewPage, register
from tests.shots import snap


def test_a_learner_downloads_their_data_then_deletes_the_account(live_server: LiveServer, new_page: NewPage,
                                                                 unique_email: Callable[[str], str],
                                                                 artifacts: Path) -> None:  # fmt: skip
    page = new_page("ru-RU")
    email = unique_email("dasha")
    register(page, live_server.url, email)
    page.goto(f"{live_server.url}/profile")
    with page.expect_download() as download:
        page.get_by_role("link", name="Скачать ваши данные").click()
    assert download.value.suggested_filename == "grader-my-data.json"
    data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert data["account"]["email"] == email and data["attempts"] == []
    page.fill("#close-password", "not my password")
    page.get_by_role("button", name="Удалить мою учётную запись").click()
    assert page.locator("#close-password + .error").inner_text() == "Текущий пароль указан неверно."
    snap(page, artifacts / "profile-delete-account.png", full_page=True)
    page.fill("#close-password", PASSWORD)
    page.get_by_role("button", name="Удалить мою учётную запись").click()
    page.wait_for_url(f"{live_server.url}/login")
    assert "Ваша учётная запись и всё, что с ней хранилось, удалены." in page.content()
    with live_server.app.app_context():
        assert accounts.user_by_email(email) is None
