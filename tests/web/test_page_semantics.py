"""What assistive technology reads (table headers, field descriptions, titles of pages with problems), and
the editor's problems in the page's language."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from tests.web.conftest import csrf_from, make_user
from tests.web.test_i18n import choose, tr
from tests.web.test_learn import post_answers
from tests.web.test_teach import residual_form


def title_of(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found is not None
    return found.group(1).strip()


def test_gradebook_rows_are_headed_by_their_learner_and_columns_by_the_exercise_title(
        app: Flask, instructor: FlaskClient) -> None:  # fmt: skip
    make_user(app, "ada@example.com")
    html = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert '<th scope="row" class="email" title="ada@example.com">ada@example.com</th>' in html
    # One name, seen and heard alike: the title, turned on its side; the id shows on hover.
    assert ('<th scope="col" class="vert" title="block-layernorm" data-exercise="block-layernorm">'
            '<span>LayerNorm of a row</span></th>' in html)  # fmt: skip
    assert "visually-hidden\">LayerNorm of a row" not in html
    assert "<caption" in html


def test_a_new_password_field_states_its_rule_before_it_is_broken(client: FlaskClient) -> None:
    html = client.get("/register").get_data(as_text=True)
    assert 'aria-describedby="password-hint"' in html
    assert '<span class="hint" id="password-hint">At least 10 characters.</span>' in html


def test_a_page_sent_back_with_problems_says_so_first_in_its_title(learner: FlaskClient) -> None:
    assert title_of(learner.get("/exercises/block-layernorm").get_data(as_text=True)) == "LayerNorm of a row · grader"
    refused = post_answers(learner, "block-layernorm", {"mu": "what", "sigma": "1", "u": "[1; 2; 3; 4]"})
    assert refused.status_code == 422
    assert title_of(refused.get_data(as_text=True)) == "Error: LayerNorm of a row · grader"


def test_an_editor_field_is_named_by_its_label_and_described_by_its_hint_and_problems(
        instructor: FlaskClient) -> None:  # fmt: skip
    response = instructor.post("/teach/exercises/new", data=residual_form(instructor, lesson="Not a slug!"))
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and title_of(html).startswith("Error: ")
    assert '<label class="label" for="f-lesson">Lesson</label>' in html
    field = re.search(r'<input type="text" id="f-lesson"[^>]*>', html)
    assert field is not None
    assert 'aria-describedby="f-lesson-hint lesson-problems"' in field.group(0) and 'aria-invalid="true"' in field.group(0)
    assert re.search(r'<span class="error" id="lesson-problems"><span class="problem">lesson: ', html)
    assert 'role="alert">Not saved.' in html


def test_an_error_page_keeps_the_way_back_and_the_landmarks(client: FlaskClient) -> None:
    html = client.get("/no/such/page").get_data(as_text=True)
    assert '<a class="skip" href="#main">' in html and '<main class="page" id="main"' in html
    assert '<nav aria-label="Main menu"><a href="/">Lessons</a></nav>' in html and "<footer" in html


def test_an_empty_yaml_source_is_refused_at_its_field(instructor: FlaskClient) -> None:
    page = instructor.get("/teach/exercises/new?mode=yaml").get_data(as_text=True)
    response = instructor.post("/teach/exercises/new?mode=yaml",
                               data={"csrf_token": csrf_from(page), "mode": "yaml", "action": "save", "source": ""})  # fmt: skip
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and title_of(html).startswith("Error: ")
    field = re.search(r"<textarea[^>]*>", html)
    assert field is not None and 'aria-describedby="source-errors"' in field.group(0)
    assert re.search(r'<span class="error" id="source-errors"><span class="problem">[^<]+</span>', html)
    assert ">Save</button>" in html  # the rest of the page renders in full


def test_the_editors_problems_are_in_the_pages_language(instructor: FlaskClient) -> None:
    choose(instructor, "pt", "/teach/exercises/new")
    form = residual_form(instructor, position="many", **{"param-0-low": "3", "param-0-high": "1"})
    html = instructor.post("/teach/exercises/new", data=form).get_data(as_text=True)
    assert escape(f"position: {tr('pt', 'Input should be a valid integer')}") in html  # pydantic's own
    assert escape(f"params.x.random: {tr('pt', 'low must not exceed high')}") in html  # a validator's
    assert "Input should be" not in html and "must not exceed" not in html


def test_times_a_learner_reads_are_labelled_utc_and_carry_the_moment_for_their_own_zone(learner: FlaskClient) -> None:
    assert post_answers(learner, "block-residual", {"h": "[1.000; 2.000; 3.000; 4.000]"}).status_code == 303
    moment = re.compile(r'<time class="local-time" datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]+ UTC</time>')
    history = learner.get("/exercises/block-residual").get_data(as_text=True).split("<table", 1)[1]
    assert moment.search(history)
    profile = learner.get("/profile").get_data(as_text=True)
    assert len(moment.findall(profile)) >= 2  # this browser's sign-in: when it signed in, when last active
