"""The self-check's notes in the instructor's editor: a code mistake that passes some hidden cases is
shown as a warning beside the check's result and after a save, in the page's language, and does not stop
the save; the notes are kept with a cached pass."""

from __future__ import annotations

from flask import Flask, get_flashed_messages
from flask.testing import FlaskClient

from grader.services import save_check
from grader.texts import say
from grader.web import saved_notices
from tests.web.conftest import csrf_from
from tests.web.test_i18n import choose
from tests.web.test_learn import EXERCISES
from tests.web.test_teach import exercise_row, source_of, upload

RMSNORM = (EXERCISES / "code" / "code-rmsnorm.yaml").read_text(encoding="utf-8")
SWIGLU = (EXERCISES / "code" / "code-swiglu.yaml").read_text(encoding="utf-8")
URL = "/teach/exercises/code-rmsnorm/edit?mode=yaml"
# ε left out (or put outside the root) changes nothing for the random rows: only the visible edge cases show it.
NOTES = [f"code-rmsnorm: mistake {name} passes 50 of 50 hidden cases at seeds 0 to 4 (seed 0 random-1, seed 0 "
         f"random-2, seed 0 random-3, ...); those cases do not test it" for name in ("no-eps", "eps-outside-sqrt")]  # fmt: skip


def retitled(source: str, title: str) -> str:
    """The exercise with another English title (a change that leaves its cases and mistakes alone)."""
    old = source.split("\n", 2)[1]
    assert old.startswith("title: ")
    return source.replace(old, f"title: {title}", 1)


def post_yaml(client: FlaskClient, url: str, source: str, action: str):  # type: ignore[no-untyped-def]
    """Press Preview or Save on the editor's YAML tab, without JavaScript."""
    token = csrf_from(client.get(url).get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, "mode": "yaml", "source": source, "action": action,
                                  "base_version": "1"})  # fmt: skip


def preview(client: FlaskClient, source: str):  # type: ignore[no-untyped-def]
    """The live preview's fragment (what the editor's JavaScript fetches while the author types)."""
    token = csrf_from(client.get("/teach/exercises/new?mode=yaml").get_data(as_text=True))
    return client.post("/teach/exercises/preview", data={"csrf_token": token, "mode": "yaml", "source": source})


def notes_in(html: str) -> str:
    """The HTML of the notes' warning, or "" when the page has none."""
    if "self-check-notes" not in html:
        return ""
    start = html.index('<div class="notice warn self-check-notes"')
    return html[start: html.index("</div>", start)]


def test_the_check_and_the_save_show_a_code_mistakes_notes_and_the_save_is_stored(
        app: Flask, instructor: FlaskClient) -> None:  # fmt: skip
    edited = retitled(RMSNORM, "Write RMSNorm, with its epsilon")
    checked = post_yaml(instructor, URL, edited, "preview")
    html = checked.get_data(as_text=True)
    assert checked.status_code == 200
    assert "Valid, and the self-check passed on the cases of 5 seeds." in html  # a warning, not a failure
    notes = notes_in(html)
    assert "The self-check has 2 notes. They do not stop saving" in notes
    assert all(f"<li>{note}</li>" in notes for note in NOTES), notes
    assert exercise_row(app, "code-rmsnorm") == (1, 1)  # a check stores nothing

    saved = post_yaml(instructor, URL, edited, "save")
    assert saved.status_code == 303 and exercise_row(app, "code-rmsnorm") == (2, 2)
    assert source_of(app, "code-rmsnorm") == edited
    page = instructor.get(saved.headers["Location"]).get_data(as_text=True)
    assert "Saved a new version of code-rmsnorm as a draft" in page
    for note in NOTES:
        assert f'<p class="flash warn" role="status">Note from the self-check: {note}</p>' in page
    assert "self-check" not in instructor.get(saved.headers["Location"]).get_data(as_text=True)  # shown once


def test_the_live_preview_shows_the_notes_in_the_instructors_language(instructor: FlaskClient) -> None:
    choose(instructor, "ru")
    html = preview(instructor, retitled(RMSNORM, "RMSNorm in Russian")).get_data(as_text=True)
    notes = notes_in(html)
    assert "У самопроверки 2 замечания. Они не мешают сохранить" in notes
    assert ("<li>code-rmsnorm: ошибка no-eps проходит 50 из 50 скрытых тестов на зёрнах 0–4 (зерно 0 random-1, "
            "зерно 0 random-2, зерно 0 random-3, ...); там она не видна</li>") in notes  # fmt: skip


def test_a_clean_exercise_gets_no_note(instructor: FlaskClient) -> None:
    edited = retitled(SWIGLU, "Write SwiGLU")
    checked = preview(instructor, edited)
    assert checked.status_code == 200 and "self-check passed" in checked.get_data(as_text=True)
    assert notes_in(checked.get_data(as_text=True)) == ""
    saved = post_yaml(instructor, "/teach/exercises/code-swiglu/edit?mode=yaml", edited, "save")
    assert saved.status_code == 303
    page = instructor.get(saved.headers["Location"]).get_data(as_text=True)
    assert "Saved a new version of code-swiglu" in page and "flash warn" not in page


def test_the_notes_survive_a_second_check_of_the_same_source(instructor: FlaskClient) -> None:
    source = retitled(RMSNORM, "RMSNorm, checked twice")
    before = save_check._passes_by_hash.cache_info()
    first = notes_in(preview(instructor, source).get_data(as_text=True))
    second = notes_in(preview(instructor, source).get_data(as_text=True))
    after = save_check._passes_by_hash.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 1)  # the second check was the cache's
    assert first == second and all(note in second for note in NOTES)


def test_a_failure_is_not_cached_and_has_no_notes(instructor: FlaskClient) -> None:
    loose = retitled(RMSNORM, "RMSNorm, too loose").replace("tolerance: {rtol: 1e-5, atol: 1e-8}",
                                                             "tolerance: {rtol: 1.0, atol: 1000000.0}")  # fmt: skip
    assert "rtol: 1.0" in loose
    before = save_check._passes_by_hash.cache_info()
    for _ in range(2):
        refused = preview(instructor, loose)
        assert refused.status_code == 422 and "The self-check failed" in refused.get_data(as_text=True)
        assert notes_in(refused.get_data(as_text=True)) == ""
    after = save_check._passes_by_hash.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (2, 0)  # checked afresh each time


def test_a_save_with_many_notes_shows_a_few_and_counts_the_rest(app: Flask) -> None:
    # The next page's messages travel in the session cookie: a formula task may list any number of mistakes.
    with app.test_request_context():
        saved_notices.flash_notes(tuple(say("note %(n)d", n=n) for n in range(7)))
        flashed = get_flashed_messages(with_categories=True)
    assert flashed == [*(("warning", f"Note from the self-check: note {n}") for n in range(5)),
                       ("warning", "… and 2 more notes: the preview lists them all.")]  # fmt: skip


def test_an_imported_file_with_notes_is_stored_and_its_page_shows_them(app: Flask, instructor: FlaskClient) -> None:
    copy = RMSNORM.replace("id: code-rmsnorm", "id: my-rmsnorm")
    imported = upload(instructor, copy.encode(), "my-rmsnorm.yaml")
    assert imported.status_code == 303 and exercise_row(app, "my-rmsnorm") == (1, 1)
    page = instructor.get(imported.headers["Location"]).get_data(as_text=True)
    assert "Created my-rmsnorm as a draft" in page
    assert page.count('<p class="flash warn" role="status">Note from the self-check: my-rmsnorm: mistake ') == 2
