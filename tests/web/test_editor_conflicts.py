"""Two instructors editing one exercise: a save over a version saved meanwhile is refused, not written over it."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.services.exercises import latest_version
from tests.web.test_teach import editor_fields, exercise_row, source_of

EDIT = "/teach/exercises/block-residual/edit"


@pytest.mark.parametrize("mode", ["form", "yaml"])
def test_a_save_over_a_version_saved_meanwhile_is_refused_and_keeps_what_was_typed(
        app: Flask, instructor: FlaskClient, mode: str) -> None:  # fmt: skip
    form_class = "card" if mode == "yaml" else "editor"
    mine = editor_fields(instructor.get(f"{EDIT}?mode={mode}").get_data(as_text=True), form_class)
    theirs = editor_fields(instructor.get(f"{EDIT}?mode={mode}").get_data(as_text=True), form_class)
    assert mine["base_version"] == theirs["base_version"] == "1"
    if mode == "yaml":
        theirs["source"] = source_of(app, "block-residual") + "penalty: 0.2\n"
        mine["source"] = source_of(app, "block-residual").replace("title: ", "title: Mine, ")
    else:
        theirs["penalty"], mine["title"] = "0.2", "Mine, the residual"
    theirs["action"] = mine["action"] = "save"
    assert instructor.post(EDIT, data=theirs).status_code == 303
    refused = instructor.post(EDIT, data=mine)
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert "Someone saved version 2 of this exercise after you opened version 1. Nothing was saved" in page
    assert "Mine, " in page and 'name="base_version" value="1"' in page  # the form still holds the typing
    assert exercise_row(app, "block-residual") == (2, 2)
    with app.app_context():
        stored = latest_version("block-residual")
        assert stored is not None and "penalty: 0.2" in stored.source and "Mine, " not in stored.source


def test_a_save_from_the_current_version_goes_through(app: Flask, instructor: FlaskClient) -> None:
    for title in ("First edit", "Second edit"):  # each save starts from the version the last one made
        fields = editor_fields(instructor.get(EDIT).get_data(as_text=True))
        fields["title"], fields["action"] = title, "save"
        assert instructor.post(EDIT, data=fields).status_code == 303
    assert exercise_row(app, "block-residual") == (3, 3)



@pytest.mark.parametrize("posted", ["²", "-1", "9" * 40, "1e3", ""])
def test_a_version_number_no_editor_page_sends_is_no_error(app: Flask, instructor: FlaskClient, posted: str) -> None:
    fields = editor_fields(instructor.get(EDIT).get_data(as_text=True))
    fields["base_version"], fields["title"], fields["action"] = posted, "Retitled", "save"
    assert instructor.post(EDIT, data=fields).status_code == 303  # no version to compare: saved as it is
    assert exercise_row(app, "block-residual") == (2, 2)
