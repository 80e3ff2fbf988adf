"""Code drafts: the hint and give-up buttons of a code exercise's page keep the code in its editor, without
JavaScript too; code too large to keep is refused by the editor and the help still happens; code sent to be
graded replaces the draft; drafts go with the account and the course, and their migration goes back."""

from __future__ import annotations

import html
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader import create_app
from grader.code_grading import MAX_SOURCE_BYTES, SourceRejected
from grader.extensions import db
from grader.course_models import Course
from grader.models import Exercise, Progress
from grader.code_models import CodeDraft, Submission
from grader.services import accounts, code_drafts, courses, submissions
from tests.web.conftest import PASSWORD, csrf_from, empty_database, seat, seat_key
from tests.web.test_app import flask_cli
from tests.web.test_help import _progress, _user_id
from tests.web.test_i18n import choose

URL = "/exercises/code-gelu"
TYPED = "import numpy as np\n\n\ndef gelu(z):\n    # half way: <b>tanh</b> next\n    return z\n"
RELU = "import numpy as np\n\n\ndef gelu(z):\n    return np.maximum(z, 0.0)\n"
BEFORE = "6a1d3c5e7f90"  # the revision before code drafts


def editor(page: str) -> str:
    """What the code page's editor (its textarea) holds."""
    found = re.search(r'<textarea id="source"[^>]*>(.*?)</textarea>', page, re.S)
    assert found, "no editor on the page"
    return html.unescape(found.group(1))


def press(client: FlaskClient, action: str, **fields: str):  # type: ignore[no-untyped-def]
    """A help button of the code page, as the page sends it: its form's token and fields with it."""
    token = csrf_from(client.get(URL).get_data(as_text=True))
    return client.post(f"{URL}/{action}", data={"csrf_token": token, **fields}, content_type="multipart/form-data")


def drafts(app: Flask) -> list[CodeDraft]:
    with app.app_context():
        return list(db.session.scalars(sa.select(CodeDraft)))


class _FormFields(HTMLParser):
    """The fields a page's form sends: hidden inputs and textareas, by name (buttons apart)."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self._area: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        if tag == "input" and named.get("type") == "hidden" and named.get("name"):
            self.fields[str(named["name"])] = named.get("value") or ""
        elif tag == "textarea" and named.get("name"):
            self._area = str(named["name"])
            self.fields[self._area] = ""

    def handle_data(self, data: str) -> None:
        if self._area is not None:
            self.fields[self._area] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea" and self._area is not None:
            self.fields[self._area] = self.fields[self._area].removeprefix("\n")  # as a browser reads it
            self._area = None


def sent_by(page: str) -> dict[str, str]:
    reader = _FormFields()
    reader.feed(page)
    return reader.fields


def test_the_code_pages_help_buttons_belong_to_its_code_form(learner: FlaskClient) -> None:
    page = learner.get(URL).get_data(as_text=True)
    assert re.search(r'<form [^>]*id="code-form"', page)
    for action in ("hint", "give-up"):
        button = re.search(rf'<button[^>]*formaction="{URL}/{action}"[^>]*>', page)
        assert button and 'form="code-form"' in button.group(0), action


def test_a_hint_keeps_the_typed_code_in_the_editor_and_grades_nothing(app: Flask, learner: FlaskClient) -> None:
    assert editor(learner.get(URL).get_data(as_text=True)).startswith("import numpy as np")  # the stub, first
    response = press(learner, "hint", source=TYPED)
    assert response.status_code == 303 and response.headers["Location"].endswith(f"{URL}#hints")
    page = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert editor(page) == TYPED and "&lt;b&gt;tanh&lt;/b&gt;" in page  # kept, and escaped
    assert "Show the next step" in page  # the hint was taken
    assert editor(learner.get(URL).get_data(as_text=True)) == TYPED  # and kept: not shown once only
    [draft] = drafts(app)
    assert draft.exercise_id == "code-gelu" and draft.source == TYPED
    mine = _progress(app, "code-gelu")
    assert mine is not None and mine.hints_used == 1 and mine.attempts_used == 0
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Submission)) == 0


def test_giving_up_once_confirmed_keeps_the_typed_code(app: Flask, learner: FlaskClient) -> None:
    response = press(learner, "give-up", confirm="yes", source=TYPED)  # app.js's confirm() said yes
    assert response.status_code == 303 and response.headers["Location"].endswith("#solution")
    page = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert "Worked solution" in page and editor(page) == TYPED
    mine = _progress(app, "code-gelu")
    assert mine is not None and mine.gave_up_at is not None


def test_without_javascript_the_question_page_leads_back_to_the_typed_code(app: Flask, learner: FlaskClient) -> None:
    question = press(learner, "give-up", confirm="ask", source=TYPED)
    assert question.status_code == 200 and "Give up?" in question.get_data(as_text=True)
    fields = sent_by(question.get_data(as_text=True))
    assert "source" not in fields  # kept as the draft already, not carried
    back = learner.post(f"{URL}/give-up", data={**fields, "confirm": "no"})
    assert back.status_code == 303 and not back.headers["Location"].endswith("#solution")
    page = learner.get(back.headers["Location"]).get_data(as_text=True)
    assert editor(page) == TYPED and "Worked solution" not in page
    mine = _progress(app, "code-gelu")
    assert mine is None or mine.gave_up_at is None
    question = press(learner, "give-up", confirm="ask", source=TYPED + "# more\n")
    given_up = learner.post(f"{URL}/give-up", data={**sent_by(question.get_data(as_text=True)), "confirm": "yes"})
    assert given_up.status_code == 303 and given_up.headers["Location"].endswith("#solution")
    page = learner.get(given_up.headers["Location"]).get_data(as_text=True)
    assert editor(page) == TYPED + "# more\n" and "Worked solution" in page


def test_code_too_large_to_keep_is_refused_by_the_editor_and_the_hint_still_comes(
        app: Flask, learner: FlaskClient) -> None:  # fmt: skip
    press(learner, "hint", source=TYPED)
    large = TYPED + "# " + "x" * MAX_SOURCE_BYTES + "\n"
    response = press(learner, "hint", source=large)
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    error = re.search(r'<p class="notice warn" role="alert" id="code-error">([^<]*)</p>', page)
    assert error and "Your code could not be kept: The code is larger than 64 KB." in html.unescape(error.group(1))
    assert 'aria-describedby="code-error"' in page.split('<textarea id="source"')[1].split(">")[0]
    assert editor(page) == large  # there until the page is left
    assert [d.source for d in drafts(app)] == [TYPED]  # the earlier draft, untouched
    mine = _progress(app, "code-gelu")
    assert mine is not None and mine.hints_used == 2
    assert editor(learner.get(URL).get_data(as_text=True)) == TYPED


def test_code_a_submission_would_refuse_is_not_kept_but_empty_code_is(app: Flask, learner: FlaskClient) -> None:
    response = press(learner, "hint", source="x = 1\x00\n")
    assert response.status_code == 422 and "could not be kept: The code contains a NUL byte." in response.get_data(
        as_text=True)
    with app.app_context(), pytest.raises(SourceRejected, match="not valid Unicode"):
        code_drafts.keep(seat(_user_id(app)), "code-gelu", "x = '\ud800'\n")  # what no form sends, the API might
    assert drafts(app) == []
    assert press(learner, "hint", source="").status_code == 303  # an emptied editor comes back empty
    assert [d.source for d in drafts(app)] == [""] and editor(learner.get(URL).get_data(as_text=True)) == ""


def test_the_refusal_to_keep_code_is_said_in_the_pages_language(learner: FlaskClient) -> None:
    choose(learner, "ru", URL)
    page = press(learner, "hint", source="x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1)).get_data(as_text=True)
    assert "Ваш код не удалось сохранить: Код больше 64 КБ. Он останется в редакторе" in html.unescape(page)


def test_giving_up_with_code_too_large_to_keep_asks_gives_up_and_says_so(app: Flask, learner: FlaskClient) -> None:
    large = "x = 1\n" * (MAX_SOURCE_BYTES // 6 + 1)
    question = press(learner, "give-up", confirm="ask", source=large)
    text = question.get_data(as_text=True)
    assert question.status_code == 200 and "Your code could not be kept" in text
    fields = sent_by(text)
    assert fields["source"] == large  # carried, so the page after can show it again
    response = learner.post(f"{URL}/give-up", data={**fields, "confirm": "yes"})
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert "Your code could not be kept" in page and "Worked solution" in page and editor(page) == large
    assert drafts(app) == []
    mine = _progress(app, "code-gelu")
    assert mine is not None and mine.gave_up_at is not None


def test_code_sent_to_be_graded_replaces_the_draft_and_an_older_submission_shows_its_own(
        app: Flask, learner: FlaskClient) -> None:  # fmt: skip
    token = csrf_from(learner.get(URL).get_data(as_text=True))
    press(learner, "hint", source=TYPED)
    first = learner.post(URL, data={"csrf_token": token, "source": RELU})
    assert first.status_code == 303 and drafts(app) == []
    assert editor(learner.get(URL).get_data(as_text=True)) == RELU  # the latest submission's code
    with app.app_context():
        submissions.wait_until_graded(int(first.headers["Location"].rsplit("=", 1)[1]), seconds=120)
    press(learner, "hint", source=TYPED)
    assert editor(learner.get(URL).get_data(as_text=True)) == TYPED  # newer than the latest submission
    assert editor(learner.get(first.headers["Location"]).get_data(as_text=True)) == TYPED  # that one is the latest
    second = learner.post(URL, data={"csrf_token": token, "source": RELU + "# again\n"})
    assert second.status_code == 303 and drafts(app) == []
    assert editor(learner.get(first.headers["Location"]).get_data(as_text=True)) == RELU  # older: its own code
    press(learner, "hint", source=TYPED)
    again = learner.post(URL, data={"csrf_token": token, "source": RELU + "# again\n"})  # the same code: no new run
    assert again.headers["Location"] == second.headers["Location"] and drafts(app) == []
    assert editor(learner.get(URL).get_data(as_text=True)) == RELU + "# again\n"


def test_a_numeric_exercises_help_keeps_no_code(app: Flask, learner: FlaskClient) -> None:
    token = csrf_from(learner.get("/exercises/block-layernorm").get_data(as_text=True))
    response = learner.post("/exercises/block-layernorm/hint", data={"csrf_token": token, "source": TYPED})
    assert response.status_code == 303 and drafts(app) == []


def test_a_deleted_course_takes_its_drafts_with_it(app: Flask, learner: FlaskClient) -> None:
    press(learner, "hint", source=TYPED)
    assert len(drafts(app)) == 1
    with app.app_context():
        course_id, _ = seat_key(_user_id(app))
        db.session.execute(sa.delete(Course).where(Course.id == course_id))
        db.session.commit()
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Progress)) == 0
    assert drafts(app) == []


def test_the_migration_adds_the_drafts_table_and_goes_back(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", BEFORE, env=env).returncode == 0
        upgraded = flask_cli("db", "upgrade", env=env)
        assert upgraded.returncode == 0, upgraded.stderr
        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
        with app.app_context():
            user = accounts.create_user("ada@example.com", PASSWORD)
            db.session.add(Exercise(id="e", lesson="l", title="E", kind="code"))
            db.session.flush()
            db.session.add(CodeDraft(course_id=courses.ensure_default().id, user_id=user.id, exercise_id="e",
                                     source="x = 1\n"))  # fmt: skip
            db.session.commit()
            assert db.session.scalar(sa.select(CodeDraft.source)) == "x = 1\n"
            db.engine.dispose()
        downgraded = flask_cli("db", "downgrade", BEFORE, env=env)
        assert downgraded.returncode == 0, downgraded.stderr
        engine = sa.create_engine(url)
        with engine.connect() as connection:
            tables = set(sa.inspect(connection).get_table_names())
        engine.dispose()
        assert "code_drafts" not in tables and "submissions" in tables
