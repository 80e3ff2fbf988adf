"""Requests no page would send: huge ids, JSON nested too deep, values the database refuses.

Each gets a clear 4xx or, for a fault of the service, a 500 page without internals; never a
stack trace, and never the "database briefly unavailable" page that would send people to retry.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import User
from tests.web.api_support import API, ATTEMPTS, auth
from tests.web.conftest import PASSWORD, build_app, csrf_from, make_user

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
    assert response.status_code == 503 and "cannot make its numbers right now" in body
    assert "well-posed" not in body


NUL_REFUSED = "This field cannot contain a NUL character."


def test_a_nul_in_the_path_or_the_query_never_reaches_the_database(learner: FlaskClient, instructor: FlaskClient,
                                                                    token: str) -> None:  # fmt: skip
    assert learner.get("/exercises/%00").status_code == 404
    assert learner.get("/exercises/%00/practice").status_code == 404
    missing = learner.get(f"{API}/exercises/%00", headers=auth(token))
    assert missing.status_code == 404 and missing.get_json()["error"] == "not_found"
    assert learner.post(f"{API}/exercises/%00/attempts", json={"answers": {}}, headers=auth(token)).status_code == 404
    for query in ("lesson=%00", "exercise=a%00b", "learner=%00", "%00=1"):
        assert instructor.get(f"/teach/gradebook?{query}").status_code == 400, query
        assert instructor.get(f"/teach/gradebook.csv?{query}").status_code == 400, query


def test_a_nul_in_a_form_field_is_a_problem_at_that_field(app: Flask, client: FlaskClient,
                                                          learner: FlaskClient) -> None:  # fmt: skip
    page = client.get("/register").get_data(as_text=True)
    sent = {"csrf_token": csrf_from(page), "email": "n\x00@b.cd", "password": "a long password",
            "confirm": "a long password"}  # fmt: skip
    assert NUL_REFUSED in client.post("/register", data=sent).get_data(as_text=True)
    page = client.get("/login").get_data(as_text=True)
    refused = client.post("/login", data={"csrf_token": csrf_from(page), "email": "a\x00@b.cd", "password": "x"})
    assert refused.status_code == 401 and NUL_REFUSED in refused.get_data(as_text=True)
    page = learner.get("/profile").get_data(as_text=True)
    named = learner.post("/profile", data={"csrf_token": csrf_from(page), "name": "laptop\x00"})
    assert NUL_REFUSED in named.get_data(as_text=True) and "laptop" in named.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 1  # ada alone


def test_a_user_agent_is_stored_without_its_control_characters(app: Flask, client: FlaskClient) -> None:
    from grader.models import SignIn

    page = client.get("/login").get_data(as_text=True)
    make_user(app, "eve@example.com")
    signed = client.post("/login", data={"csrf_token": csrf_from(page), "email": "eve@example.com",
                                         "password": PASSWORD}, headers={"User-Agent": "\x00evil\tbrowser"})  # fmt: skip
    assert signed.status_code == 302
    with app.app_context():
        assert db.session.scalars(sa.select(SignIn.agent)).all() == ["evilbrowser"]


def test_a_next_page_too_long_to_be_one_of_ours_goes_to_the_dashboard(client: FlaskClient) -> None:
    token = csrf_from(client.get("/login").get_data(as_text=True))
    sent = client.post("/language", data={"csrf_token": token, "locale": "pt", "next": "/" + "a" * 3000})
    assert sent.status_code == 303 and sent.headers["Location"] == "/"


def test_with_csrf_switched_off_refused_forms_are_pages_not_500s(tmp_path: Path) -> None:
    app = build_app(tmp_path, WTF_CSRF_ENABLED=False)
    client = app.test_client()
    assert client.post("/login", data={"email": "", "password": ""}).status_code == 401
    assert client.post("/register", data={"email": "x@example.com", "password": "short"}).status_code == 422


def test_a_stored_version_that_no_longer_validates_gets_a_clear_page_and_its_work_stays_reviewable(
        app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:  # fmt: skip
    from grader.models import ExerciseVersion
    from tests.web.test_learn import post_answers

    post_answers(learner, "block-gelu", {"neg": "0.000", "pos": "0.952"})
    with app.app_context():  # as a stricter catalogue after an upgrade would read the stored source
        stored = db.session.scalar(sa.select(ExerciseVersion).where(ExerciseVersion.exercise_id == "block-gelu"))
        assert stored is not None
        stored.source, stored.source_hash = stored.source + "no_such_key: 1\n", "0" * 64
        db.session.commit()
        ada = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
    response = learner.get("/exercises/block-gelu")
    body = response.get_data(as_text=True)
    assert response.status_code == 500 and "no longer passes this grader&#39;s checks" in body
    assert "no_such_key" not in body and "Traceback" not in body
    work = instructor.get(f"/teach/gradebook/{ada}/block-gelu")
    assert work.status_code == 200 and "0.000" in work.get_data(as_text=True)  # the attempt, to review or score
