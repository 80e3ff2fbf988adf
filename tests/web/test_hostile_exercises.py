"""Hostile exercise YAML through every way an instructor can send it (the YAML editor, its live preview,
import, the structured form, an extension date, `flask exercises sync`): a 422 with the problem said at
its field, never a 500, and nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Extension
from tests.web.conftest import csrf_from
from tests.web.test_due_dates import PAST, with_due
from tests.web.test_extensions import set_due, user_id
from tests.web.test_teach import exercise_row, part_area, residual_form, upload

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
RESIDUAL = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
SOURCE = RESIDUAL.replace("id: block-residual", "id: hostile")
PART = "    partial_credit: true\n"
LAUGHS = "l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
    f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9))  # 10**9 values once expanded
HOSTILE_SOURCES = {  # what is wrong -> (the exercise's YAML, what the author is told)
    "infinite weight": (SOURCE.replace(PART, PART + "    weight: .inf\n"), "parts.0.weight</code>: Input should be a finite number"),
    "weight nan": (SOURCE.replace(PART, PART + "    weight: .nan\n"), "parts.0.weight</code>: Input should be a finite number"),
    "huge weight": (SOURCE.replace(PART, PART + "    weight: 1e300\n"), "parts.0.weight</code>: Input should be less than or equal to 1000"),
    "deep nesting": (SOURCE + "zz: " + "[" * 5000, "nested more than 32 levels deep"),
    "5000-digit position": (SOURCE.replace("position: 1", "position: 1" + "0" * 5000), "a number longer than 40 characters"),
    "position beyond 64 bits": (SOURCE.replace("position: 1", "position: 9999999999999999999999999"),
                                "position</code>: Input should be less than or equal to 2147483647"),
    "self-referential alias": (SOURCE.replace("position: 1", "position: &a [*a]"), "the alias *a is inside the value it names"),
    "billion laughs": (SOURCE + LAUGHS, "values (aliases count each time)"),
    "due in year 0 UTC": (SOURCE + "due: 0001-01-01T00:00:00+14:00\n", "the due date falls outside the years 1 to 9999 in UTC"),
    "due in year 10000 UTC": (SOURCE + "due: 9999-12-31T23:59:59-14:00\n", "the due date falls outside the years 1 to 9999 in UTC"),
    "opens in year 0 UTC": (SOURCE + "opens: 0001-01-01T00:00:00+14:00\n",
                            "the opening date falls outside the years 1 to 9999 in UTC"),
}  # fmt: skip


def post_yaml(client: FlaskClient, url: str, source: str, action: str = "save"):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/teach/exercises/new?mode=yaml").get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, "mode": "yaml", "action": action, "source": source})


@pytest.mark.parametrize("case", HOSTILE_SOURCES)
def test_hostile_yaml_is_refused_with_its_problem_by_the_editor_preview_and_import(
        app: Flask, instructor: FlaskClient, case: str) -> None:  # fmt: skip
    source, told = HOSTILE_SOURCES[case]
    answers = {
        "editor": post_yaml(instructor, "/teach/exercises/new?mode=yaml", source),
        "preview button": post_yaml(instructor, "/teach/exercises/new?mode=yaml", source, action="preview"),
        "live preview": post_yaml(instructor, "/teach/exercises/preview", source),
        "import": upload(instructor, source.encode()),
    }
    for way, answer in answers.items():
        assert (way, answer.status_code) == (way, 422)
        assert told in answer.get_data(as_text=True), way
    assert exercise_row(app, "hostile") is None


@pytest.mark.parametrize(("field", "typed", "area", "told"), [
    ("position", "&a [*a]", "page", "position: Input should be a valid integer"),
    ("position", "1" + "0" * 5000, "page", "position: Input should be a valid integer"),
    ("position", "9999999999999999999999999", "page", "position: Input should be less than or equal to 2147483647"),
    ("part-0-weight", "&a [*a]", "part", "parts.0.weight: Input should be a valid number"),
    ("part-0-weight", ".inf", "part", "parts.0.weight: Input should be a finite number"),
    ("part-0-tol_value", "&a [*a]", "part", "parts.0.tolerance.abs: Input should be a valid number"),
    ("param-0-low", "-.inf", "page", "params.x.random.low: give a finite number between"),
    ("due", "0001-01-01T00:00:00+14:00", "page", "due: the due date falls outside the years 1 to 9999"),
    ("opens", "0001-01-01T00:00:00+14:00", "page",
     "opens: the opening date falls outside the years 1 to 9999"),
])  # fmt: skip
def test_hostile_values_in_the_form_are_refused_at_their_field(app: Flask, instructor: FlaskClient, field: str,
                                                              typed: str, area: str, told: str) -> None:  # fmt: skip
    saved = instructor.post("/teach/exercises/new", data=residual_form(instructor, **{field: typed}))
    html = saved.get_data(as_text=True)
    assert saved.status_code == 422 and "Not saved" in html
    assert told in (part_area(html, 1) if area == "part" else html)
    assert f'<span class="problem">{told}' in html
    previewed = instructor.post("/teach/exercises/preview", data=residual_form(instructor, **{field: typed}))
    name, message = told.split(": ", 1)  # the preview lists problems as `<code>field</code>: message`
    assert previewed.status_code == 422 and f"<code>{name}</code>: {message}" in previewed.get_data(as_text=True)
    assert exercise_row(app, "my-residual") is None


@pytest.mark.parametrize("typed", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_an_extension_date_with_no_utc_time_is_refused_at_its_field(app: Flask, learner: FlaskClient,
                                                                    instructor: FlaskClient, typed: str) -> None:  # fmt: skip
    exercise = with_due(app, PAST, 0.5)
    answer = set_due(instructor, user_id(app, "ada@example.com"), exercise, due=typed)
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert '<span class="error" id="due-error">the due date falls outside the years 1 to 9999 in UTC' in html
    assert f'value="{typed}"' in html  # what was typed stays in the field
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Extension)) == 0


def test_sync_reports_hostile_files_and_loads_the_others(app: Flask, tmp_path: Path) -> None:
    folder = tmp_path / "exercises"
    folder.mkdir()
    for number, (source, _) in enumerate(HOSTILE_SOURCES.values()):
        (folder / f"hostile-{number}.yaml").write_text(source, encoding="utf-8")
    code = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8").replace("id: code-gelu", "id: far-code")
    (folder / "far-code.yaml").write_text(code + "position: 9999999999999999999999999\n", encoding="utf-8")
    (folder / "fine.yaml").write_text(RESIDUAL.replace("id: block-residual", "id: fine"), encoding="utf-8")
    app.config["EXERCISES_DIR"] = folder
    result = app.test_cli_runner().invoke(args=["exercises", "sync"])
    assert result.exit_code == 1, result.output
    assert f"1 created, 0 updated, 0 unchanged, {len(HOSTILE_SOURCES) + 1} errors" in result.output
    assert "far-code.yaml: position: Input should be less than or equal to 2147483647" in result.output
    assert exercise_row(app, "fine") == (1, 1)
    assert exercise_row(app, "hostile") is None and exercise_row(app, "far-code") is None
