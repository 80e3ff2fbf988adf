"""HTTP details of the API: caching, 405s, odd paths, unknown parts, a database that fails mid-request,
and what the OpenAPI document promises."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import ApiToken, Attempt
from tests.web.api_support import API, ATTEMPTS, EXERCISE, answers_of, auth, post, token_for, typed
from tests.web.conftest import csrf_from
from tests.web.test_learn import count
from tests.web.test_sign_ins import REFUSE_UPDATES


def test_personal_replies_are_never_cached_and_the_shared_ones_may_be(client: FlaskClient, token: str) -> None:
    for path in (f"{API}/progress", f"{API}/exercises", f"{API}/exercises/{EXERCISE}"):
        assert client.get(path, headers=auth(token)).headers["Cache-Control"] == "no-store", path
    assert post(client, token, {"mu": "1"}).headers["Cache-Control"] == "no-store"
    assert client.get("/login").headers["Cache-Control"] == "no-store"  # it carries a CSRF token
    assert client.get(f"{API}/openapi.json").headers.get("Cache-Control") != "no-store"
    assert client.get("/static/style.css").headers.get("Cache-Control") != "no-store"


def test_a_wrong_method_is_a_json_405_that_says_what_is_allowed(client: FlaskClient, token: str) -> None:
    response = client.get(ATTEMPTS, headers=auth(token))
    assert response.status_code == 405 and response.get_json()["error"] == "method_not_allowed"
    assert set(response.headers["Allow"].split(", ")) == {"POST", "OPTIONS"}
    put = client.put(f"{API}/exercises", headers=auth(token))
    assert put.status_code == 405 and "GET" in put.headers["Allow"]


@pytest.mark.parametrize("path", [f"{API}//progress", f"{API}/exercises//{EXERCISE}", "/api", "/api/v2/progress"])
def test_odd_api_paths_are_json_404s_not_html_redirects(client: FlaskClient, token: str, path: str) -> None:
    response = client.get(path, headers=auth(token))
    assert response.status_code == 404 and response.get_json()["error"] == "not_found"


def test_an_answer_to_a_part_the_exercise_lacks_is_refused_and_costs_nothing(app: Flask, client: FlaskClient,
                                                                             token: str) -> None:  # fmt: skip
    answers = {**typed(answers_of(app)), "sigmaa": "1"}
    response = post(client, token, answers)
    assert response.status_code == 400
    assert response.get_json() == {"error": "bad_request",
                                   "message": "This exercise has no part sigmaa; its parts are mu, sigma, u."}  # fmt: skip
    assert count(app, Attempt) == 0
    assert client.get(f"{API}/progress", headers=auth(token)).get_json() == []
    assert post(client, token, typed(answers_of(app))).status_code == 201  # nothing was used up


def test_a_field_for_a_part_the_exercise_no_longer_has_shows_the_page_again_keeping_the_rest(
        learner: FlaskClient) -> None:  # fmt: skip
    # As when a new version drops a part while the learner's page is open.
    token = csrf_from(learner.get(f"/exercises/{EXERCISE}").get_data(as_text=True))
    response = learner.post(f"/exercises/{EXERCISE}", data={"csrf_token": token, "part-mu": "0,125", "part-nope": "2"})
    html = response.get_data(as_text=True)
    assert response.status_code == 409 and "This exercise changed while you were answering it." in html
    assert 'value="0,125"' in html and "Nothing was counted." in html


def test_a_token_whose_last_use_cannot_be_written_still_reads(app: Flask, client: FlaskClient, token: str,
                                                              caplog: pytest.LogCaptureFixture) -> None:  # fmt: skip
    with app.app_context():
        refuse = [s.replace("sign_ins", "api_tokens") for s in REFUSE_UPDATES[db.engine.dialect.name]]
        for statement in refuse:
            db.session.execute(sa.text(statement))
        db.session.commit()
    response = client.get(f"{API}/progress", headers=auth(token))
    assert response.status_code == 200 and response.get_json() == []
    assert "API token last used not recorded" in caplog.text
    with app.app_context():
        assert db.session.scalar(sa.select(ApiToken.last_used_at)) is None


@contextmanager
def progress_table_missing(app: Flask) -> Iterator[None]:
    """The gradebook's first query fails, as on a database that went away."""
    with app.app_context():
        db.session.execute(sa.text("ALTER TABLE progress RENAME TO progress_away"))
        db.session.commit()
    try:
        yield
    finally:
        with app.app_context():
            db.session.execute(sa.text("ALTER TABLE progress_away RENAME TO progress"))
            db.session.commit()


def test_a_gradebook_export_that_fails_at_once_is_an_error_not_an_empty_file(app: Flask, instructor: FlaskClient,
                                                                             learner: FlaskClient) -> None:  # fmt: skip
    teacher = token_for(app, "teach@example.com", "instructor")
    with progress_table_missing(app):
        api = instructor.get(f"{API}/gradebook.csv", headers=auth(teacher))
        page = instructor.get("/teach/gradebook.csv")
    assert api.status_code == 503 and api.get_json()["error"] == "unavailable"
    assert page.status_code == 503 and "text/html" in page.headers["Content-Type"]
    whole = instructor.get(f"{API}/gradebook.csv", headers=auth(teacher))
    assert whole.status_code == 200 and whole.get_data(as_text=True).startswith("email,solved,average")
    assert "ada@example.com" in whole.get_data(as_text=True)


def test_the_document_lists_every_rate_limit_and_the_server_errors(client: FlaskClient) -> None:
    paths = client.get(f"{API}/openapi.json").get_json()["paths"]
    assert "429" in paths[f"{API}/exercises/{{exercise_id}}/submissions"]["post"]["responses"]
    assert "429" in paths[f"{API}/exercises/{{exercise_id}}/practice"]["get"]["responses"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            assert {"400", "500", "503"} <= set(operation["responses"]), (method, path)  # 400: a NUL in the query


def test_the_document_says_code_may_come_as_a_file(client: FlaskClient) -> None:
    paths = client.get(f"{API}/openapi.json").get_json()["paths"]
    content = paths[f"{API}/exercises/{{exercise_id}}/submissions"]["post"]["requestBody"]["content"]
    assert set(content) == {"application/json", "multipart/form-data"}
    assert content["multipart/form-data"]["schema"]["required"] == ["file"]


def test_a_nul_in_any_query_is_the_documented_400(client: FlaskClient, token: str) -> None:
    response = client.get(f"{API}/progress?x=%00", headers=auth(token))
    assert response.status_code == 400 and response.get_json()["error"] == "bad_request"
