"""The instructor area: role checks, the no-code editor, preview, self-check, versions, import/export,
exercise statistics and the gradebook, against a real SQLite database."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from grader.catalog.loader import spec_from_text
from grader.extensions import db
from grader.models import Attempt, Exercise, ExerciseVersion, User, Variant
from grader.services import accounts, attempts, privacy
from grader.services.exercises import latest_version
from tests.web.conftest import csrf_from, in_default_course, login, make_user, PASSWORD, seat
from tests.web.test_i18n import choose

GET_ROUTES = [
    "/teach/exercises", "/teach/exercises/block-residual", "/teach/exercises/new",
    "/teach/exercises/block-residual/edit", "/teach/exercises/block-residual/export", "/teach/import",
    "/teach/gradebook", "/teach/gradebook.csv",
]  # fmt: skip
ZEROS = "[0.000; 0.000; 0.000; 0.000]"
POST_ROUTES = ["/teach/exercises/preview", "/teach/exercises/new", "/teach/exercises/block-residual/edit", "/teach/import"]


class _FormFields(HTMLParser):
    """What a browser without JavaScript would submit from a form: inputs, checked boxes, selections, text."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[tuple[str, str]] = []
        self._text: list[str] | None = None
        self._select: tuple[str, bool, list[str], list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        name = a.get("name") or ""
        if tag == "input" and name and a.get("type") not in ("submit", "file"):
            if a.get("type") not in ("checkbox", "radio") or "checked" in a:
                self.fields.append((name, a.get("value") or ""))
        elif tag == "textarea":
            self._text = [name, ""]
        elif tag == "select":
            self._select = (name, "multiple" in a, [], [])
        elif tag == "option" and self._select is not None:
            self._select[2].append(a.get("value") or "")
            if "selected" in a:
                self._select[3].append(a.get("value") or "")

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text[1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea" and self._text is not None:
            self.fields.append((self._text[0], self._text[1]))
            self._text = None
        elif tag == "select" and self._select is not None:
            name, multiple, options, chosen = self._select
            chosen = chosen if chosen or multiple else options[:1]  # a browser submits the first option
            self.fields.extend((name, value) for value in chosen)
            self._select = None


def editor_fields(html: str, form_class: str = "editor") -> MultiDict:
    """The editor's fields as the page renders them: the structured form, or the YAML one (class "card")."""
    form = html[html.index(f'<form method="post" class="{form_class}"'):]
    parser = _FormFields()
    parser.feed(form[: form.index("</form>")])
    return MultiDict(parser.fields)


def residual_form(client: FlaskClient, **changes: str) -> dict[str, str]:
    """A copy of block-residual typed into the structured form under a new id and lesson."""
    data = {
        "csrf_token": csrf_from(client.get("/teach/exercises/new").get_data(as_text=True)),
        "mode": "form", "action": "save", "id": "my-residual", "title": "My own residual", "lesson": "practice",
        "model": "gpt2-toy", "prompt": "Add the correction $a =$ {{a}} to the row $x =$ {{x}}.",
        "param-0-name": "x", "param-0-shape": "4", "param-0-low": "-2.0", "param-0-high": "2.0",
        "param-0-decimals": "1", "param-1-name": "a", "param-1-shape": "4", "param-1-low": "-1.5",
        "param-1-high": "1.5", "param-1-decimals": "3", "part-0-id": "h", "part-0-label": "h",
        "part-0-type": "vector", "part-0-quantity": "h", "part-0-tol_kind": "abs", "part-0-tol_value": "0.0005",
        "part-0-mistakes": "no-residual-attention", "part-0-partial_credit": "y",
        "solution": "Add entry by entry.\n\n$h =$ {{h}}.",
    }  # fmt: skip
    return data | changes


def exercise_row(app: Flask, exercise_id: str) -> tuple[int, int] | None:
    """(newest version, number of stored versions), or None when there is no such exercise. The newest
    is what the editor saved: learners get it once it is published (see publish)."""
    with app.app_context():
        found = db.session.get(Exercise, exercise_id)
        if found is None:
            return None
        stored = db.session.scalar(sa.select(sa.func.count()).where(ExerciseVersion.exercise_id == exercise_id))
        return found.latest_version, stored


def publish(instructor: FlaskClient, exercise_id: str) -> None:
    """Press Publish on the exercise's page: learners get its newest version from now on."""
    page = instructor.get(f"/teach/exercises/{exercise_id}").get_data(as_text=True)
    done = instructor.post(f"/teach/exercises/{exercise_id}/publish", data={"csrf_token": csrf_from(page)})
    assert done.status_code == 303


def source_of(app: Flask, exercise_id: str) -> str:
    """The newest version's source (what the editor saved last)."""
    with app.app_context():
        stored = latest_version(exercise_id)
        assert stored is not None
        return stored.source


def part_area(html: str, number: int) -> str:
    """The HTML of one part row of the editor."""
    start = html.index(f"<legend>Part {number}</legend>")
    return html[start: html.index("</fieldset>", start)]


# ---- roles -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", GET_ROUTES)
def test_get_routes_need_an_instructor(app: Flask, client: FlaskClient, instructor: FlaskClient, url: str) -> None:
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and "/login" in anonymous.headers["Location"]
    make_user(app, "ada@example.com")
    login(client, "ada@example.com")
    assert client.get(url).status_code == 403
    assert instructor.get(url).status_code == 200


@pytest.mark.parametrize("url", POST_ROUTES)
def test_post_routes_need_an_instructor(app: Flask, client: FlaskClient, url: str) -> None:
    token = csrf_from(client.get("/login").get_data(as_text=True))
    anonymous = client.post(url, data={"csrf_token": token})
    assert anonymous.status_code == 302 and "/login" in anonymous.headers["Location"]
    make_user(app, "ada@example.com")
    login(client, "ada@example.com")
    token = csrf_from(client.get("/").get_data(as_text=True))
    assert client.post(url, data={"csrf_token": token, "source": "id: x"}).status_code == 403


# ---- the editor ------------------------------------------------------------------------------------


def test_create_through_the_form_reaches_learners(app: Flask, instructor: FlaskClient, learner: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor))
    assert response.status_code == 303
    assert response.headers["Location"].endswith("/teach/exercises/my-residual")
    assert exercise_row(app, "my-residual") == (1, 1)
    assert "shape: [4]" in source_of(app, "my-residual")
    assert "Created my-residual as a draft" in instructor.get(response.headers["Location"]).get_data(as_text=True)
    assert "My own residual" not in learner.get("/").get_data(as_text=True)  # a draft until published
    publish(instructor, "my-residual")
    dashboard = learner.get("/").get_data(as_text=True)
    assert "My own residual" in dashboard and "Practice" in dashboard


def test_invalid_spec_shows_message_at_its_field_and_saves_nothing(app: Flask, instructor: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor, **{"part-0-tol_value": "-1"}))
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "parts.0.tolerance.abs: Input should be greater than 0" in part_area(html, 1)
    assert "Not saved" in html
    assert 'value="My own residual"' in html  # the author's input is kept
    assert exercise_row(app, "my-residual") is None


def test_wrong_quantity_and_placeholder_are_reported(app: Flask, instructor: FlaskClient) -> None:
    data = residual_form(instructor, **{"part-0-quantity": "nonsense", "prompt": "Compute {{nope}}."})
    html = instructor.post("/teach/exercises/new", data=data).get_data(as_text=True)
    assert "part h: quantity must be one of" in part_area(html, 1)
    data = residual_form(instructor, prompt="Compute {{nope}}.")
    html = instructor.post("/teach/exercises/new", data=data).get_data(as_text=True)
    assert "placeholder {{nope}} names no parameter or quantity" in html
    assert exercise_row(app, "my-residual") is None


def test_new_id_must_be_free(app: Flask, instructor: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor, id="block-residual"))
    assert response.status_code == 422
    assert "already taken" in response.get_data(as_text=True)
    assert exercise_row(app, "block-residual") == (1, 1)


def test_self_check_failure_blocks_saving(app: Flask, instructor: FlaskClient) -> None:
    loose = source_of(app, "block-gelu").replace("abs: 0.0005", "abs: 0.5")
    page = instructor.get("/teach/exercises/block-gelu/edit?mode=yaml").get_data(as_text=True)
    response = instructor.post("/teach/exercises/block-gelu/edit?mode=yaml",
                               data={"csrf_token": csrf_from(page), "mode": "yaml", "action": "save", "source": loose})  # fmt: skip
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "self-check failed" in html and "relu cannot be told apart" in html
    assert exercise_row(app, "block-gelu") == (1, 1)


def test_edit_creates_a_version_and_attempts_keep_theirs(app: Flask, instructor: FlaskClient) -> None:
    learner_id = make_user(app, "ada@example.com")
    with app.app_context():
        assert attempts.submit(seat(learner_id), "block-residual", {"h": ZEROS}).outcome == "graded"
    page = instructor.get("/teach/exercises/block-residual/edit").get_data(as_text=True)
    fields = editor_fields(page)
    assert fields["part-0-quantity"] == "h" and fields.getlist("part-0-mistakes") == ["no-residual-attention"]
    fields["action"] = "save"
    unchanged = instructor.post("/teach/exercises/block-residual/edit", data=fields)
    assert unchanged.status_code == 303 and exercise_row(app, "block-residual") == (1, 1)
    fields["title"] = "The first residual, revisited"
    response = instructor.post("/teach/exercises/block-residual/edit", data=fields)
    assert response.status_code == 303
    assert exercise_row(app, "block-residual") == (2, 2)
    with app.app_context():
        assert db.session.get(Exercise, "block-residual").title == "The first residual"  # a draft: learners keep v1
    publish(instructor, "block-residual")
    with app.app_context():
        assert db.session.scalars(sa.select(Attempt.version)).all() == [1]
        assert db.session.get(Exercise, "block-residual").current_version == 2
        assert db.session.get(Exercise, "block-residual").title == "The first residual, revisited"
    history = instructor.get("/teach/exercises/block-residual").get_data(as_text=True)
    assert "teach@example.com" in history and "exercise file" in history


def test_a_version_by_an_erased_instructor_is_not_credited_to_the_exercise_file(app: Flask,
                                                                                instructor: FlaskClient) -> None:  # fmt: skip
    make_user(app, "gone@example.com", "instructor")
    editor = app.test_client()
    login(editor, "gone@example.com")
    fields = editor_fields(editor.get("/teach/exercises/block-residual/edit").get_data(as_text=True))
    fields["action"], fields["title"] = "save", "The first residual, revisited"
    assert editor.post("/teach/exercises/block-residual/edit", data=fields).status_code == 303
    publish(editor, "block-residual")
    with app.app_context():
        gone = accounts.user_by_email("gone@example.com")
        assert gone is not None
        privacy.erase(gone, None)
    history = instructor.get("/teach/exercises/block-residual").get_data(as_text=True)
    rows = history[history.index("Version history"):].split("</tr>")
    version_2 = next(row for row in rows if "<td class=\"num\">2 " in row)
    version_1 = next(row for row in rows if "<td class=\"num\">1" in row and "current" not in row)
    assert "deleted account" in version_2 and "exercise file" in version_1


def test_edit_cannot_change_the_id(app: Flask, instructor: FlaskClient) -> None:
    source = source_of(app, "block-residual").replace("id: block-residual", "id: other-residual")
    page = instructor.get("/teach/exercises/block-residual/edit?mode=yaml").get_data(as_text=True)
    response = instructor.post("/teach/exercises/block-residual/edit",
                               data={"csrf_token": csrf_from(page), "mode": "yaml", "action": "save", "source": source})  # fmt: skip
    assert response.status_code == 422 and "must stay" in response.get_data(as_text=True)
    assert exercise_row(app, "other-residual") is None


def test_preview_renders_a_variant_or_errors(app: Flask, instructor: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/preview", data=residual_form(instructor))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Add the correction" in html and "<math" in html and "{{a}}" not in html
    assert "the first residual forgotten (h = a)" in html and "self-check passed" in html  # a mistake by its title
    response = instructor.post("/teach/exercises/preview", data=residual_form(instructor, lesson="Not A Slug"))
    assert response.status_code == 422
    assert "lesson" in response.get_data(as_text=True) and "should match pattern" in response.get_data(as_text=True)
    assert exercise_row(app, "my-residual") is None


def test_preview_button_without_javascript(app: Flask, instructor: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor, action="preview"))
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "Add the correction" in html and "Preview" in html and 'value="my-residual"' in html
    assert exercise_row(app, "my-residual") is None


def test_yaml_preview_reports_invalid_yaml(instructor: FlaskClient) -> None:
    token = csrf_from(instructor.get("/teach/exercises/new?mode=yaml").get_data(as_text=True))
    response = instructor.post("/teach/exercises/preview", data={"csrf_token": token, "mode": "yaml", "source": "id: [oops"})
    assert response.status_code == 422 and "(yaml)" in response.get_data(as_text=True)


# ---- import and export -----------------------------------------------------------------------------


def upload(client: FlaskClient, content: bytes, name: str = "exercise.yaml"):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/teach/import").get_data(as_text=True))
    return client.post("/teach/import", data={"csrf_token": token, "upload": (io.BytesIO(content), name)},
                       content_type="multipart/form-data")  # fmt: skip


def test_export_then_import_round_trip(app: Flask, instructor: FlaskClient) -> None:
    exported = instructor.get("/teach/exercises/block-gelu/export")
    assert exported.mimetype == "text/yaml"
    assert exported.headers["Content-Disposition"] == 'attachment; filename="block-gelu.yaml"'
    assert exported.get_data(as_text=True) == source_of(app, "block-gelu")
    again = upload(instructor, exported.data, "block-gelu.yaml")
    assert again.status_code == 303 and exercise_row(app, "block-gelu") == (1, 1)
    copy = exported.get_data(as_text=True).replace("id: block-gelu", "id: gelu-copy")
    response = upload(instructor, copy.encode(), "gelu-copy.yaml")
    assert response.status_code == 303
    assert source_of(app, "gelu-copy") == copy
    assert instructor.get("/teach/exercises/gelu-copy/export").get_data(as_text=True) == copy


def test_import_refuses_bad_files(app: Flask, instructor: FlaskClient) -> None:
    latin = source_of(app, "block-gelu").replace("id: block-gelu", "id: latin").encode()
    response = upload(instructor, latin.replace(b"GELU by hand", "Café".encode("latin-1")))
    assert response.status_code == 422 and "not valid UTF-8" in response.get_data(as_text=True)
    big = upload(instructor, b"# padding\n" * 27_000)
    assert big.status_code == 422 and "larger than 256 KB" in big.get_data(as_text=True)
    wrong = upload(instructor, b"id: x\n", "notes.txt")
    assert wrong.status_code == 422 and ".yaml" in wrong.get_data(as_text=True)
    assert exercise_row(app, "latin") is None


def test_import_reports_errors_per_field(app: Flask, instructor: FlaskClient) -> None:
    broken = source_of(app, "block-gelu").replace("id: block-gelu", "id: broken").replace("penalty", "x")
    broken = broken.replace("position: 3", "position: -1")
    response = upload(instructor, broken.encode())
    assert response.status_code == 422
    assert "position</code>: Input should be greater than or equal to 0" in response.get_data(as_text=True)
    assert exercise_row(app, "broken") is None


# ---- statistics ------------------------------------------------------------------------------------


def test_stats_page_lists_common_wrong_answers(app: Flask, instructor: FlaskClient) -> None:
    with app.app_context():
        for email, typed in (("ada@example.com", "0.000"), ("bob@example.com", "  0.000 ")):
            user = User(email=email, password_hash="-")
            db.session.add(user)
            db.session.flush()
            db.session.add(Variant(user_id=user.id, exercise_id="block-gelu", seed=0))  # the page's own numbers
            db.session.commit()
            in_default_course(user.id)
            outcome = attempts.submit(seat(user.id), "block-gelu", {"neg": typed, "pos": "0.952"})
            assert outcome.outcome == "graded" and outcome.result.parts["neg"].misconception == "relu"
        # Ada sends it again while changing the other part: still two learners gave it, not three.
        assert attempts.submit(seat(user.id - 1), "block-gelu", {"neg": "0.000", "pos": "0.900"}).outcome == "graded"
    html = instructor.get("/teach/exercises/block-gelu").get_data(as_text=True)
    row = html[html.index('<code class="wrong">0.000</code>'):]
    # The mistake by its title as learners see it, not its id.
    assert '<td class="num">2</td>' in row[: row.index("</tr>")] and "ReLU in place of GELU" in row[: row.index("</tr>")]
    listing = instructor.get("/teach/exercises").get_data(as_text=True)
    gelu = listing[listing.index("GELU by hand"):]
    gelu = gelu[: gelu.index("</tr>")]
    assert '<td class="num">0\u00a0%</td>' in gelu
    # The list names mistakes (by title, not id), not texts: relu met by both learners, and Ada's 0.900 by none.
    lines = [re.sub(r"<[^>]+>|\s+", " ", line).split() for line in gelu.split('<div class="wrong-line">')[1:]]
    assert lines == [["ReLU", "in", "place", "of", "GELU", "·", "2", "learners"],
                     ["Unexplained", "wrong", "answers", "·", "1", "learner"]]


# ---- gradebook -------------------------------------------------------------------------------------


def test_gradebook_shows_learners_and_filters(app: Flask, instructor: FlaskClient) -> None:
    ada = make_user(app, "ada@example.com")
    with app.app_context():
        # An account from before emails were checked (email-validator refuses < and > now): still shown escaped.
        db.session.add(User(email="<b>bob</b>@example.com", password_hash="x", role="learner"))
        db.session.commit()
        in_default_course(db.session.scalar(sa.select(User.id).where(User.email.startswith("<b>"))))
        assert attempts.submit(seat(ada), "block-residual", {"h": ZEROS}).outcome == "graded"
    html = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert "ada@example.com" in html and "&lt;b&gt;bob&lt;/b&gt;@example.com" in html and "<b>bob" not in html
    assert "teach@example.com" not in html.split("<tbody>")[1]  # instructors are not graded
    ada_row = html[html.index("ada@example.com"):]
    assert "1 att." in ada_row[: ada_row.index("</tr>")]
    only_ada = instructor.get("/teach/gradebook?learner=ADA").get_data(as_text=True)
    assert "ada@example.com" in only_ada and "bob" not in only_ada.split("<tbody>")[1]
    one = instructor.get("/teach/gradebook?exercise=block-gelu").get_data(as_text=True)
    assert 'data-exercise="block-gelu"' in one and 'data-exercise="block-residual"' not in one
    lesson = instructor.get("/teach/gradebook?lesson=microgpt").get_data(as_text=True)
    assert 'data-exercise="microgpt-params"' in lesson and 'data-exercise="block-gelu"' not in lesson
    assert 'href="/teach/gradebook.csv?lesson=microgpt"' in lesson
    for nothing in ("lesson=no-such-lesson", "lesson=microgpt&exercise=block-gelu"):  # no exercise matches
        empty = instructor.get(f"/teach/gradebook?{nothing}").get_data(as_text=True)
        assert "No exercise matches these filters." in empty and "ada@example.com" not in empty
        assert instructor.get(f"/teach/gradebook.csv?{nothing}").get_data(as_text=True) == "email,solved,average,set by hand\r\n"


def test_gradebook_is_paginated(app: Flask, instructor: FlaskClient) -> None:
    assert "No learners yet." in instructor.get("/teach/gradebook").get_data(as_text=True)
    with app.app_context():
        db.session.add_all(User(email=f"learner{i:03}@example.com", password_hash="-") for i in range(101))
        db.session.commit()
        for uid in db.session.scalars(sa.select(User.id).where(User.email.startswith("learner"))):
            in_default_course(uid)
    first = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert first.count("@example.com</th>") == 100 and "Next →" in first and "learner100@" not in first
    second = instructor.get("/teach/gradebook?page=2").get_data(as_text=True)
    assert second.count("@example.com</th>") == 1 and "learner100@" in second and "← Previous" in second
    past = instructor.get("/teach/gradebook?page=3&learner=learner").get_data(as_text=True)
    assert "The list ends before page 3." in past and 'href="/teach/gradebook?learner=learner">Go to the first page' in past
    assert "← Previous" not in past and "No learners match" not in past


def test_gradebook_csv_streams_filtered_rows(app: Flask, instructor: FlaskClient) -> None:
    ada = make_user(app, "ada@example.com")
    make_user(app, "=cmd@example.com")
    with app.app_context():
        assert attempts.submit(seat(ada), "block-residual", {"h": ZEROS}).outcome == "graded"
    response = instructor.get("/teach/gradebook.csv?lesson=gpt2-block")
    assert response.is_streamed and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="gradebook.csv"'
    table = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert table[0][:5] == ["email", "solved", "average", "block-residual best", "block-residual attempts"]
    assert len(table[0]) == 3 + 2 * 8 + 1 and table[0][-1] == "set by hand"  # the block lesson's 8 exercises
    emails = {row[0]: row for row in table[1:]}
    assert set(emails) == {"ada@example.com", "'=cmd@example.com"}
    assert emails["ada@example.com"][4] == "1"
    lines = instructor.get("/teach/gradebook.csv?learner=cmd").get_data(as_text=True).splitlines()
    assert len(lines) == 2 and lines[1].startswith("'=cmd@example.com")


def test_the_form_edits_translations_and_keeps_the_others(app: Flask, instructor: FlaskClient) -> None:
    fields = editor_fields(instructor.get("/teach/exercises/block-residual/edit").get_data(as_text=True))
    assert fields["translation-pt-title"] == "O primeiro residual" and fields["translation-ru-prompt"]
    fields["action"], fields["translation-pt-title"] = "save", "O primeiro residual, revisto"
    assert instructor.post("/teach/exercises/block-residual/edit", data=fields).status_code == 303
    source = source_of(app, "block-residual")
    assert "title: O primeiro residual, revisto" in source and "title: Первая остаточная связь" in source
    publish(instructor, "block-residual")  # the list shows the titles of the version learners get
    with app.app_context():
        assert (db.session.get(Exercise, "block-residual").titles or {})["pt"] == "O primeiro residual, revisto"


def test_a_translation_with_a_missing_step_is_refused_in_the_form(app: Flask, instructor: FlaskClient) -> None:
    form = residual_form(instructor, **{"translation-pt-title": "Meu residual",
                                         "translation-pt-solution": "Só um passo."})  # fmt: skip
    response = instructor.post("/teach/exercises/new", data=form)
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "the solution needs 2 steps, as in English" in html
    assert exercise_row(app, "my-residual") is None


def test_the_form_edits_part_labels_per_language_and_keeps_the_others(app: Flask, instructor: FlaskClient) -> None:
    fields = editor_fields(instructor.get("/teach/exercises/microgpt-params/edit").get_data(as_text=True))
    assert fields["part-6-id"] == "outside_share" and fields["translation-pt-label-6"] == "parcela fora dos blocos"
    assert fields["translation-ru-label-3"] == "внимание" and fields["translation-pt-label-0"] == ""  # wte: as written
    fields["action"], fields["translation-pt-label-6"] = "save", "parcela de fora dos blocos"
    assert instructor.post("/teach/exercises/microgpt-params/edit", data=fields).status_code == 303
    spec, errors = spec_from_text(source_of(app, "microgpt-params"), "microgpt-params.yaml")
    assert errors == [] and spec is not None
    assert (spec.label_in("outside_share", "pt"), spec.label_in("attention", "ru")) == ("parcela de fora dos blocos",
                                                                                       "внимание")  # fmt: skip
    assert "wte" not in spec.translations["pt"].labels  # a blank field keeps the English label


def test_a_part_label_typed_in_the_form_reaches_learners_in_that_language(app: Flask, instructor: FlaskClient,
                                                                          learner: FlaskClient) -> None:  # fmt: skip
    form = residual_form(instructor, **{"translation-pt-label-0": "h corrigido", "translation-ru-label-0": "  ",
                                         "translation-pt-label-3": "sem parte"})  # fmt: skip
    preview = instructor.post("/teach/exercises/preview", data=form).get_data(as_text=True)
    assert 'h corrigido <span class="muted">(h)</span>' in preview  # as learners reading Português see it
    assert instructor.post("/teach/exercises/new", data=form).status_code == 303
    source = source_of(app, "my-residual")
    assert "labels: {h: h corrigido}" in source and "ru:" not in source and "sem parte" not in source
    publish(instructor, "my-residual")
    choose(learner, "pt", "/")
    assert 'class="label">h corrigido</label>' in learner.get("/exercises/my-residual").get_data(as_text=True)


def test_the_preview_shows_each_translation_with_the_variants_numbers(instructor: FlaskClient) -> None:
    form = residual_form(instructor, **{"translation-pt-prompt": "Some a correção {{a}} à linha {{x}}.",
                                         "translation-pt-solution": "Some entrada por entrada.\n\n$h =$ {{h}}."})  # fmt: skip
    html = instructor.post("/teach/exercises/preview", data=form).get_data(as_text=True)
    assert "As learners reading Português see it" in html and "{{a}}" not in html
    shown_a = html.split("Add the correction", 1)[1].split("to the row", 1)[0]  # the variant's a, in English
    numbers = shown_a[shown_a.rindex("</math>") + len("</math>"):].strip()
    assert f"Some a correção {numbers.replace('.', ',')} à linha" in html and "Some entrada por entrada." in html


def field_area(html: str, name: str) -> str:
    """The HTML of a textarea's field in the editor, from the textarea to the end of its field (its problems)."""
    start = html.index(f'<textarea id="f-{name}" name="{name}"')
    return html[start: html.index("</div>", start)]


def test_an_exercise_without_parts_is_refused_with_the_reason_at_the_parts(app: Flask, instructor: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor, **{"part-0-id": "",
                                                                                        "part-0-label": ""}))  # fmt: skip
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "Fix the problems marked below." in html
    parts = html[html.index("<h2>Parts</h2>"): html.index("<legend>Part 1</legend>")]
    assert "parts: List should have at least 1 item" in parts
    assert exercise_row(app, "my-residual") is None


def test_an_unknown_placeholder_in_a_translation_is_shown_at_that_language(app: Flask, instructor: FlaskClient) -> None:
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor, **{
        "translation-pt-prompt": "Some {{nope}}."}))  # fmt: skip
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    problem = "translations.pt.prompt: placeholder {{nope}} names no parameter or quantity"
    area = field_area(html, "translation-pt-prompt")
    assert f'<span class="error" id="translation-pt-prompt-problems"><span class="problem">{problem}' in area
    assert 'aria-describedby="translation-pt-prompt-problems"' in area and 'aria-invalid="true" autofocus>Some {{nope}}.' in area
    assert "{{nope}}" not in field_area(html, "prompt")  # the English prompt is fine
    assert exercise_row(app, "my-residual") is None


def test_teach_itself_is_the_class_dashboard(instructor: FlaskClient, learner: FlaskClient) -> None:
    landed = instructor.get("/teach", follow_redirects=True)
    assert landed.status_code == 200 and landed.request.path == "/teach/"
    assert "<h1>Class dashboard</h1>" in landed.get_data(as_text=True)
    assert learner.get("/teach/").status_code == 403


def test_an_instructor_signs_in_to_the_class_dashboard_and_a_learner_to_the_lessons(app: Flask, client: FlaskClient) -> None:
    make_user(app, "teach@example.com", "instructor")
    make_user(app, "ada@example.com")
    for email, home in (("teach@example.com", "/teach/"), ("ada@example.com", "/")):
        other = app.test_client()
        token = csrf_from(other.get("/login").get_data(as_text=True))
        sent = other.post("/login", data={"email": email, "password": PASSWORD, "csrf_token": token})
        assert sent.status_code == 302 and sent.headers["Location"] == home
    # A page asked for before signing in still wins over the dashboard.
    token = csrf_from(client.get("/login").get_data(as_text=True))
    sent = client.post("/login?next=/teach/gradebook", data={"email": "teach@example.com", "password": PASSWORD,
                                                             "csrf_token": token})  # fmt: skip
    assert sent.headers["Location"] == "/teach/gradebook"


def test_the_form_cannot_save_an_exercise_larger_than_a_file_may_be(app: Flask, instructor: FlaskClient) -> None:
    # Its own export would then be refused on import; the limit is the file's, whatever wrote it.
    long_prompt = "Add the correction $a =$ {{a}} to the row $x =$ {{x}}. " + "More words. " * 25_000
    sent = instructor.post("/teach/exercises/new", data=residual_form(instructor, prompt=long_prompt))
    assert sent.status_code == 422 and "larger than 262144 bytes" in sent.get_data(as_text=True)
    assert long_prompt[:200] in sent.get_data(as_text=True)  # what was typed is still there
    assert exercise_row(app, "my-residual") is None
