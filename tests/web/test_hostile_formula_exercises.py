"""A formula exercise written to take the web workers down (issue 31, item 7): refused by the import page
and by Publish, and, when one is stored anyway (by a release before these checks), a learner's visit ends
in a clear page within the variant's budget instead of minutes of redraws and a killed worker."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.services.exercises import parse_any_source, store
from tests.formulas.hostile import BREAKING, LURKING, SLOW
from tests.web.api_support import auth
from tests.web.conftest import csrf_from
from tests.web.test_teach import exercise_row, upload


def stored_anyway(app: Flask, source: str, publish: bool) -> str:
    """Store a source with no save check, as a release before this one could have; returns its id."""
    with app.app_context():
        spec = parse_any_source(source)
        store(spec, source, None, "web", publish=publish)
        db.session.commit()
        return spec.id


def test_the_import_page_refuses_formulas_that_take_too_long(app: Flask, instructor: FlaskClient) -> None:
    for source, exercise_id in ((SLOW, "slow-formulas"), (LURKING, "lurking-formulas")):
        answer = upload(instructor, source.encode(), f"{exercise_id}.yaml")
        assert answer.status_code == 422, exercise_id
        assert "the formulas take too long to compute (more than 0.5 s)" in answer.get_data(as_text=True)
        assert exercise_row(app, exercise_id) is None


def test_the_import_page_refuses_formulas_that_break_at_most_draws(app: Flask, instructor: FlaskClient) -> None:
    answer = upload(instructor, BREAKING.encode(), "breaking.yaml")
    assert answer.status_code == 422 and "the formulas cannot be computed for" in answer.get_data(as_text=True)
    assert exercise_row(app, "breaking-formulas") is None


def test_a_learner_visiting_a_published_slow_exercise_gets_a_clear_page(app: Flask, learner: FlaskClient, token: str,
                                                                        caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    exercise_id = stored_anyway(app, SLOW, publish=True)
    page = learner.get(f"/exercises/{exercise_id}")
    body = page.get_data(as_text=True)
    assert page.status_code == 503 and "This exercise cannot make its numbers right now" in body
    assert "too long" not in body and "Traceback" not in body  # the reason is logged for instructors, not shown
    # Stopped by the variant's one budget of 1 s: before it, 500 draws of 0.1 s each, then a 500 (or the
    # worker killed on its timeout first).
    logged = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert any("take too long to compute (more than 1 s)" in m for m in logged), logged
    api = learner.get(f"/api/v1/exercises/{exercise_id}", headers=auth(token))
    assert api.status_code == 503 and api.get_json()["error"] == "unavailable"


def test_publish_refuses_a_draft_that_fails_the_save_check(app: Flask, instructor: FlaskClient) -> None:
    exercise_id = stored_anyway(app, LURKING, publish=False)
    page = instructor.get(f"/teach/exercises/{exercise_id}").get_data(as_text=True)
    refused = instructor.post(f"/teach/exercises/{exercise_id}/publish", data={"csrf_token": csrf_from(page)})
    assert refused.status_code == 409 and "no longer passes validation" in refused.get_data(as_text=True)
    assert instructor.get(f"/exercises/{exercise_id}").status_code == 404  # still hidden from learners
