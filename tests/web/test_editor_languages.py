"""The exercise editor's own refusals in the page's language: the id, the form's rows, dates, placeholders."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.web.test_i18n import choose
from tests.web.test_teach import residual_form


def test_the_editors_refusals_are_in_the_pages_language(app: Flask, instructor: FlaskClient) -> None:
    choose(instructor, "pt", "/teach/exercises")
    taken = instructor.post("/teach/exercises/new", data=residual_form(instructor, id="block-gelu"))
    assert taken.status_code == 422 and "&#39;block-gelu&#39; já está em uso; escolha outro id" in taken.get_data(as_text=True)
    rows = residual_form(instructor, **{"param-1-name": "x", "param-0-page": "muitos"})
    twice = instructor.post("/teach/exercises/new", data=rows).get_data(as_text=True)
    assert "este nome aparece duas vezes" in twice and "dê um número ou uma lista como [1, 2.5]" in twice
    dates = residual_form(instructor, opens="2030-01-02T00:00:00Z", due="2030-01-01T00:00:00Z")
    assert "o exercício deve abrir antes do prazo" in instructor.post("/teach/exercises/new", data=dates).get_data(
        as_text=True)
    unknown = residual_form(instructor, prompt="Some {{nope}} here.")
    said = instructor.post("/teach/exercises/new", data=unknown).get_data(as_text=True)
    assert "o marcador {{nope}} não nomeia nenhum parâmetro nem grandeza" in said
    page = instructor.get("/teach/exercises/code-gelu").get_data(as_text=True)
    assert " · código ·" in page and " · code ·" not in page
