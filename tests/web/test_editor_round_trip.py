"""The structured editor gives back what it was given: every shipped numeric exercise, opened in the
form and saved untouched, stays the version it was (same source, same origin)."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from grader.catalog.loader import is_code_source, spec_from_text
from grader.extensions import db
from grader.models import Exercise
from tests.web.test_teach import editor_fields, exercise_row, part_area, source_of, upload

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
SOURCES = {p.stem: p.read_text(encoding="utf-8") for p in EXERCISES.glob("*/*.yaml")}
# The exercises the structured form holds; formula exercises carry a computation, edited in the YAML tab.
NUMERIC = sorted(i for i, text in SOURCES.items() if not is_code_source(text) and "model: formula" not in text)
FORMULAS = sorted(i for i, text in SOURCES.items() if "model: formula" in text)

# block-gelu with what no shipped exercise has: an optional mistake listed before a required one, a weight,
# a never-zero parameter, the attempt policy and dates, and a translated label.
POLICY = """opens: 2026-12-01T09:00:00+00:00
max_attempts: 3
penalty: 0.1
due: 2026-12-15T23:59:00Z
late_credit: 0.5
"""


def rich_source(app: Flask) -> str:
    """A copy of block-gelu (as gelu-rich) that uses every field the form can hold."""
    source = source_of(app, "block-gelu").replace("id: block-gelu", "id: gelu-rich")
    erf = ('{name: erf-gelu, optional: true, reason: "the erf GELU agrees with GPT-2\'s tanh form to 3 decimals for '
           'most inputs; named where it does not"}')  # an optional mistake's reason, which the form keeps hidden
    source = source.replace(f"misconceptions: [relu, {{name: gelu-no-half, optional: true}}, {erf}]",
                            f"misconceptions: [{erf}, relu, {{name: gelu-no-half, optional: true}}]"
                            "\n    weight: 2", 1)  # fmt: skip
    source = source.replace("decimals: 1}", "decimals: 1, exclude_zero: true}", 1)
    source = source.replace("translations:", POLICY + "translations:", 1)
    return source.replace("    title: GELU à mão\n", "    title: GELU à mão\n    labels: {pos: gelu(z) positivo}\n", 1)


def save_unchanged(client: FlaskClient, exercise_id: str) -> str:
    """Open the exercise in the form, press Save without touching anything; the page it lands on."""
    fields = editor_fields(client.get(f"/teach/exercises/{exercise_id}/edit").get_data(as_text=True))
    fields["action"] = "save"
    response = client.post(f"/teach/exercises/{exercise_id}/edit", data=fields)
    assert response.status_code == 303, response.get_data(as_text=True)
    return client.get(response.headers["Location"]).get_data(as_text=True)


def origin_of(app: Flask, exercise_id: str) -> str:
    with app.app_context():
        found = db.session.get(Exercise, exercise_id)
        assert found is not None
        return found.origin


def test_every_numeric_exercise_is_covered() -> None:
    assert len(NUMERIC) >= 13 and "microgpt-stations" in NUMERIC and "code-gelu" not in NUMERIC
    assert len(FORMULAS) >= 11 and "attention-by-hand" in FORMULAS


@pytest.mark.parametrize("exercise_id", FORMULAS)
def test_a_formula_exercise_opens_in_the_yaml_editor_and_saving_it_unchanged_keeps_its_version(
        app: Flask, instructor: FlaskClient, exercise_id: str) -> None:  # fmt: skip
    opened = instructor.get(f"/teach/exercises/{exercise_id}/edit", follow_redirects=True)
    html = opened.get_data(as_text=True)
    assert opened.request.args.get("mode") == "yaml" and "compute:" in html  # the YAML tab, holding the formulas
    fields = editor_fields(html, "card")
    fields["action"] = "save"
    response = instructor.post(f"/teach/exercises/{exercise_id}/edit?mode=yaml", data=fields)
    assert response.status_code == 303, response.get_data(as_text=True)
    assert f"No changes to {exercise_id}." in instructor.get(response.headers["Location"]).get_data(as_text=True)
    assert exercise_row(app, exercise_id) == (1, 1)


@pytest.mark.parametrize("exercise_id", NUMERIC)
def test_saving_a_shipped_exercise_unchanged_from_the_form_keeps_its_version(
        app: Flask, instructor: FlaskClient, exercise_id: str) -> None:  # fmt: skip
    before = source_of(app, exercise_id)
    page = save_unchanged(instructor, exercise_id)
    assert f"No changes to {exercise_id}." in page
    assert exercise_row(app, exercise_id) == (1, 1) and source_of(app, exercise_id) == before
    assert origin_of(app, exercise_id) == "file"  # so `exercises sync` still updates it from its file


def test_every_field_the_form_holds_survives_an_unchanged_save(app: Flask, instructor: FlaskClient) -> None:
    source = rich_source(app)
    spec, errors = spec_from_text(source, "gelu-rich.yaml")
    assert errors == [] and spec is not None
    assert [(m.name, m.optional) for m in spec.parts[0].misconceptions] == [("erf-gelu", True), ("relu", False),
                                                                                  ("gelu-no-half", True)]
    assert spec.max_attempts == 3 and spec.due is not None and spec.translations["pt"].labels == {"pos": "gelu(z) positivo"}
    assert upload(instructor, source.encode(), "gelu-rich.yaml").status_code == 303
    assert "No changes to gelu-rich." in save_unchanged(instructor, "gelu-rich")
    assert exercise_row(app, "gelu-rich") == (1, 1) and source_of(app, "gelu-rich") == source


@pytest.mark.parametrize("change", [
    ("prompt: |\n", "prompt: |-\n"),  # no newline at the end of the prompt
    ("title: GELU by hand", "title: 'GELU by hand  '"),  # spaces the form trims
    ("solution:\n  - \"For $-z$", "solution:\n  - |\n    For $-z$"),  # a step as a block, ending in a newline
])
def test_texts_the_form_writes_its_own_way_are_no_change(app: Flask, instructor: FlaskClient,
                                                         change: tuple[str, str]) -> None:  # fmt: skip
    source = source_of(app, "block-gelu").replace("id: block-gelu", "id: gelu-written")
    if change[1].startswith("solution:\n  - |"):  # the step's text, unquoted in the block
        step = source[source.index('  - "For $-z$'):].split("\n", 1)[0]
        block = "  - |\n    " + step[len('  - "'):-1].replace("\\\\", "\\") + "\n"
        source = source.replace(step + "\n", block, 1)
    else:
        source = source.replace(*change, 1)
    assert source != source_of(app, "block-gelu").replace("id: block-gelu", "id: gelu-written")
    assert upload(instructor, source.encode(), "gelu-written.yaml").status_code == 303
    assert "No changes to gelu-written." in save_unchanged(instructor, "gelu-written")
    assert exercise_row(app, "gelu-written") == (1, 1) and source_of(app, "gelu-written") == source


def test_a_mistake_added_in_the_form_comes_after_the_stored_ones(app: Flask, instructor: FlaskClient) -> None:
    fields = editor_fields(instructor.get("/teach/exercises/block-mlp/edit").get_data(as_text=True))
    assert fields.getlist("part-0-mistakes") == ["sample-variance", "no-centering", "relu"]  # the model's order
    fields.add("part-0-optional", "no-residual-attention")
    fields["action"] = "save"
    assert instructor.post("/teach/exercises/block-mlp/edit", data=fields).status_code == 303
    spec, errors = spec_from_text(source_of(app, "block-mlp"), "block-mlp.yaml")
    assert errors == [] and spec is not None and exercise_row(app, "block-mlp") == (2, 2)
    assert [m.name for m in spec.parts[0].misconceptions] == ["relu", "sample-variance", "no-centering", "gelu-no-half",
                                                              "erf-gelu", "no-norm-before-mlp",
                                                              "no-residual-attention"]  # fmt: skip


def test_each_mistake_is_offered_once_and_counted_once(app: Flask, instructor: FlaskClient) -> None:
    html = instructor.get("/teach/exercises/modern-shapes/edit").get_data(as_text=True)
    assert part_area(html, 1).count('<input type="checkbox" name="part-0-mistakes" value="transposed-shape"') == 1
    assert part_area(html, 1).count('<input type="checkbox" name="part-0-optional" value="transposed-shape"') == 1
    fields: MultiDict = editor_fields(html)
    # The SwiGLU hidden part lists it already (Q names its own (n, h, d_h) mistake, heads-not-first).
    fields.add("part-3-mistakes", "transposed-shape")  # as the page offered it twice before
    fields["action"] = "save"
    assert instructor.post("/teach/exercises/modern-shapes/edit", data=fields).status_code == 303
    assert exercise_row(app, "modern-shapes") == (1, 1)
