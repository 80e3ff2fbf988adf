"""Requests no page would send: huge ids, JSON nested too deep, values the database refuses.

Each gets a clear 4xx or, for a fault of the service, a 500 page without internals; never a
stack trace, and never the "database briefly unavailable" page that would send people to retry.
"""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import User
from tests.web.api_support import API, ATTEMPTS, auth
from tests.web.conftest import csrf_from

HUGE = "1" + "0" * 30  # far past what an integer column holds


def test_ids_too_large_for_the_database_are_not_found(learner: FlaskClient, instructor: FlaskClient, token: str) -> None:
    csrf = csrf_from(learner.get("/profile").get_data(as_text=True))
    assert learner.post(f"/profile/tokens/{HUGE}/revoke", data={"csrf_token": csrf}).status_code == 404
    assert learner.get(f"{API}/submissions/{HUGE}", headers=auth(token)).status_code == 404
    assert instructor.get(f"/teach/gradebook/{HUGE}/block-layernorm").status_code == 404
    assert instructor.get(f"/teach/gradebook/{2**63}/block-layernorm").status_code == 404
    # Past a 32-bit column (PostgreSQL's INTEGER), though SQLite would take it.
    assert instructor.get("/teach/gradebook/3000000000/block-layernorm").status_code == 404
    assert learner.get(f"{API}/submissions/3000000000", headers=auth(token)).status_code == 404
    assert instructor.get("/teach/audit?before=3000000000").status_code == 200


def test_query_numbers_out_of_range_fall_back_to_the_default(learner: FlaskClient, instructor: FlaskClient) -> None:
    for path in (f"/teach/gradebook?page={HUGE}", "/teach/gradebook?page=-3", f"/teach/audit?before={HUGE}",
                 "/teach/audit?before=0"):  # fmt: skip
        assert instructor.get(path).status_code == 200, path
    assert learner.get(f"/exercises/block-gelu?attempt={HUGE}").status_code == 200
    assert learner.get(f"/exercises/code-gelu?submission={HUGE}").status_code == 200


def test_json_nested_too_deep_is_a_400(learner: FlaskClient, token: str) -> None:
    deep = "[" * 100_000
    for path in (ATTEMPTS, f"{API}/exercises/code-gelu/submissions"):
        response = learner.post(path, data=deep, content_type="application/json", headers=auth(token))
        assert response.status_code == 400, path
        assert response.get_json()["error"] == "bad_request"


def test_a_value_the_database_refuses_is_a_500_not_an_outage(app: Flask) -> None:
    @app.get("/duplicate")
    def duplicate() -> str:
        db.session.add_all([User(email="twin@example.com", password_hash="x"),
                            User(email="twin@example.com", password_hash="y")])  # fmt: skip
        db.session.commit()
        return "stored"

    response = app.test_client().get("/duplicate")
    body = response.get_data(as_text=True)
    assert response.status_code == 500 and "Something went wrong" in body
    assert "briefly unavailable" not in body and "UNIQUE" not in body and "twin" not in body
    with app.app_context():  # the transaction was rolled back, and the session works again
        assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 0


def test_an_exercise_that_cannot_make_its_numbers_gets_a_clear_page(app: Flask, learner: FlaskClient,
                                                                      monkeypatch) -> None:  # type: ignore[no-untyped-def]  # fmt: skip
    from grader.catalog.variants import VariantError
    from grader.services import exercises

    def broken(*args: object) -> None:
        raise VariantError("no well-posed variant in 50 draws")

    exercises._variant_by_hash.cache_clear()
    monkeypatch.setattr(exercises, "make_variant", broken)
    response = learner.get("/exercises/block-gelu")
    body = response.get_data(as_text=True)
    assert response.status_code == 500 and "cannot make its numbers right now" in body
    assert "well-posed" not in body
