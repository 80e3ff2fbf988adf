"""Importing (or pasting) a code exercise on the web: refused with one clear reason, not the numeric
schema's complaints about every field a code exercise does not have."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import csrf_from
from tests.web.test_learn import EXERCISES
from tests.web.test_teach import exercise_row, upload

CODE_GELU = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")


def test_importing_a_code_exercise_says_to_edit_it_as_a_file(app: Flask, instructor: FlaskClient) -> None:
    response = upload(instructor, CODE_GELU.encode(), "code-gelu.yaml")
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "The exercise is not valid: 1 problem." in html
    assert "<code>kind</code>: &#39;code-gelu&#39; is a code exercise; edit it as a file" in html
    assert "Input should be" not in html
    assert exercise_row(app, "code-gelu") == (1, 1)  # the stored version is untouched


def test_a_new_code_exercise_is_refused_the_same_way_in_the_yaml_preview(instructor: FlaskClient) -> None:
    token = csrf_from(instructor.get("/teach/exercises/new?mode=yaml").get_data(as_text=True))
    source = CODE_GELU.replace("id: code-gelu", "id: my-code")
    response = instructor.post("/teach/exercises/preview", data={"csrf_token": token, "mode": "yaml", "source": source})
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "&#39;my-code&#39; is a code exercise; edit it as a file" in html
    assert "Input should be" not in html
