"""Exercises in the reader's language: titles on the dashboard, the prompt with the learner's own
numbers, the worked solution; English where an exercise has no translation."""

from __future__ import annotations

import re

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from grader.extensions import db
from grader.models import User
from grader.services import attempts
from grader.services.exercises import save_source
from tests.web.test_i18n import choose, tr
from tests.web.test_learn import expected, fmt, post_answers
from tests.web.test_teach import source_of
from tests.web.conftest import seat


def test_the_dashboard_lists_lessons_and_exercises_in_the_pages_language(learner: FlaskClient) -> None:
    choose(learner, "ru", "/")
    html = learner.get("/").get_data(as_text=True)
    assert escape(tr("ru", "The GPT-2 block, by hand")) in html and "Первая остаточная связь" in html
    assert "The first residual" not in html


def test_the_prompt_is_translated_and_filled_with_the_learners_own_numbers(app: Flask, learner: FlaskClient) -> None:
    learner.get("/exercises/block-residual")  # makes the learner's variant
    with app.app_context():
        user_id = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
        variant = attempts.learner_variant(seat(user_id), "block-residual")[1]
    own_x = re.search(r"\$x_5\$ = (\[[^\]]*\])", variant.prompt).group(1)  # type: ignore[union-attr]
    choose(learner, "pt", "/")
    html = learner.get("/exercises/block-residual").get_data(as_text=True)
    assert "<h1>O primeiro residual</h1>" in html and "fluxo residual" in html
    assert "residual stream" not in html
    assert own_x.replace(".", ",") in html and own_x not in html  # in Portuguese, with decimal commas


def test_the_worked_solution_is_shown_in_the_pages_language(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-residual")
    post_answers(learner, "block-residual", {"h": fmt(right["h"])})
    choose(learner, "ru", "/")
    html = learner.get("/exercises/block-residual").get_data(as_text=True)
    assert escape(tr("ru", "Worked solution")) in html and "Сложите поэлементно" in html


def test_an_exercise_without_a_translation_is_shown_as_written(app: Flask, learner: FlaskClient) -> None:
    source = source_of(app, "block-residual")
    untranslated = source[: source.index("translations:")].replace("id: block-residual", "id: plain-residual")
    with app.app_context():
        save_source(untranslated, None, "file")
    choose(learner, "pt", "/")
    html = learner.get("/exercises/plain-residual").get_data(as_text=True)
    assert "<h1>The first residual</h1>" in html and escape(tr("pt", "Check my answers")) in html


def test_the_api_gives_an_exercise_in_the_language_asked_for(client: FlaskClient, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    english = client.get("/api/v1/exercises/block-residual", headers=headers).get_json()
    portuguese = client.get("/api/v1/exercises/block-residual?lang=pt", headers=headers).get_json()
    assert english["title"] == "The first residual" and portuguese["title"] == "O primeiro residual"
    assert "fluxo residual" in portuguese["prompt"] and portuguese["params"] == english["params"]
    code = client.get("/api/v1/exercises/code-gelu?lang=ru", headers=headers).get_json()
    assert code["title"] != "Write GELU" and "def gelu(z):" in code["prompt"]
    listed = client.get("/api/v1/exercises?lang=ru", headers=headers).get_json()
    assert {"id": "block-residual", "title": "Первая остаточная связь"}.items() <= next(
        e for e in listed if e["id"] == "block-residual").items()


def test_the_answer_fields_are_labelled_in_the_pages_language(learner: FlaskClient) -> None:
    choose(learner, "pt", "/")
    html = learner.get("/exercises/microgpt-params").get_data(as_text=True)
    assert 'class="label">parcela fora dos blocos</label>' in html and 'class="label">atenção</label>' in html
    assert "share outside the blocks" not in html and ">attention</label>" not in html
    assert 'class="label">wte</label>' in html  # a name in the code needs no translation: as written


def test_the_api_labels_the_answer_fields_in_the_language_asked_for(client: FlaskClient, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    russian = client.get("/api/v1/exercises/microgpt-params?lang=ru", headers=headers).get_json()
    english = client.get("/api/v1/exercises/microgpt-params", headers=headers).get_json()
    labels = {p["id"]: p["label"] for p in russian["parts"]}
    assert (labels["attention"], labels["outside_share"], labels["wte"]) == ("внимание", "доля вне блоков", "wte")
    assert {p["id"]: p["label"] for p in english["parts"]}["outside_share"] == "share outside the blocks"
    listed = client.get("/api/v1/exercises?lang=ru", headers=headers).get_json()
    parts = next(e for e in listed if e["id"] == "modern-params")["parts"]
    assert {p["id"]: p["label"] for p in parts}["block"] == "один блок"


def test_the_api_refuses_a_language_it_does_not_have(client: FlaskClient, token: str) -> None:
    response = client.get("/api/v1/exercises/block-residual?lang=xx", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 400 and response.get_json()["error"] == "bad_request"
    assert "en, pt, ru" in response.get_json()["message"]


def test_instructor_pages_show_exercise_titles_in_the_pages_language(app: Flask, instructor: FlaskClient,
                                                                     learner: FlaskClient) -> None:  # fmt: skip
    post_answers(learner, "block-layernorm", {"mu": "1", "sigma": "1"})  # a learner in the gradebook
    with app.app_context():
        ada = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
    choose(instructor, "pt", "/teach/exercises")
    paths = ("/teach/exercises", "/teach/gradebook", "/teach/exercises/block-layernorm",
             f"/teach/gradebook/{ada}/block-layernorm")  # fmt: skip
    pages = {path: instructor.get(path).get_data(as_text=True) for path in paths}
    for path, html in pages.items():
        assert "LayerNorm de uma linha" in html, path
        assert "LayerNorm of a row" not in html, path
