"""The JSON API: attempts, progress and the gradebook CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.services import exercises
from tests.web.conftest import build_app
from tests.web.api_support import API, EXERCISE, ATTEMPTS, ADA, MISTAKE, token_for, auth, answers_of, typed, post, attempt_rows, assert_error


def test_correct_attempt_is_stored_and_201(app: Flask, client: FlaskClient, token: str) -> None:
    answers = typed(answers_of(app))
    response = post(client, token, answers)
    assert response.status_code == 201
    body = response.get_json()
    assert (body["outcome"], body["counted"], body["score"]) == ("graded", True, 1.0)
    assert body["attempts_left"] is None  # no limit on this exercise
    assert {pid: p["status"] for pid, p in body["parts"].items()} == dict.fromkeys(("mu", "sigma", "u"), "correct")
    [row] = attempt_rows(app)
    assert (row.id, row.answers, row.score) == (body["attempt_id"], answers, 1.0)


def test_wrong_attempt_names_the_misconception(app: Flask, client: FlaskClient, token: str) -> None:
    response = post(client, token, typed(answers_of(app, mistake=MISTAKE)))
    assert response.status_code == 201
    body = response.get_json()
    assert body["outcome"] == "graded" and body["score"] < 1
    for part in body["parts"].values():
        assert (part["status"], part["misconception"]) == ("incorrect", MISTAKE) and part["hint"]
    assert len(attempt_rows(app)) == 1


def test_malformed_attempt_is_422_and_not_stored(app: Flask, client: FlaskClient, token: str) -> None:
    response = post(client, token, {**typed(answers_of(app)), "sigma": "about one"})
    assert response.status_code == 422
    body = response.get_json()
    assert (body["outcome"], body["counted"], body["attempt_id"]) == ("invalid", False, None)
    assert body["parts"]["sigma"]["status"] == "invalid" and body["parts"]["sigma"]["message"]
    assert body["parts"]["mu"]["status"] != "correct"  # a broken field gives no free check of the others
    assert attempt_rows(app) == []


def test_repeat_is_200_and_stored_once(app: Flask, client: FlaskClient, token: str) -> None:
    answers = typed(answers_of(app, mistake=MISTAKE))
    first, again = post(client, token, answers), post(client, token, answers)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.get_json()["outcome"] == "repeat"
    assert again.get_json()["attempt_id"] == first.get_json()["attempt_id"]
    assert len(attempt_rows(app)) == 1


def test_no_attempts_left_is_409(app: Flask, client: FlaskClient, token: str) -> None:
    with app.app_context():
        stored = exercises.current_version(EXERCISE)
        assert stored is not None
        exercises.save_source(stored.source.rstrip("\n") + "\nmax_attempts: 1\n", None)
    first = post(client, token, typed(answers_of(app, mistake=MISTAKE)))
    assert (first.status_code, first.get_json()["attempts_left"]) == (201, 0)
    assert_error(post(client, token, typed(answers_of(app))), 409, "conflict")
    broken = post(client, token, {"mu": "?"})
    assert (broken.status_code, broken.get_json()["attempts_left"]) == (422, 0)
    assert len(attempt_rows(app)) == 1


@pytest.mark.parametrize("data, content_type", [
    ("{not json", "application/json"),
    ('["mu", "0.1"]', "application/json"),
    ("{}", "application/json"),
    ('{"answers": "0.143"}', "application/json"),
    ('{"answers": {"mu": 0.143}}', "application/json"),
    ('{"answers": {"mu": "0.143"}, "seed": 7}', "application/json"),  # a field the API does not take
    ("answers=0.143", "application/x-www-form-urlencoded"),
])  # fmt: skip
def test_bad_bodies_are_400(app: Flask, client: FlaskClient, token: str, data: str, content_type: str) -> None:
    response = client.post(ATTEMPTS, headers=auth(token), data=data, content_type=content_type)
    assert_error(response, 400, "bad_request")
    assert attempt_rows(app) == []


def test_body_over_the_limit_is_413_json(app: Flask, client: FlaskClient, token: str) -> None:
    app.config["MAX_CONTENT_LENGTH"] = 512
    response = post(client, token, {"mu": "1" * 2000})
    assert_error(response, 413, "too_large")
    assert attempt_rows(app) == []


def test_attempts_are_rate_limited_per_user(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    client, ada, bob = app.test_client(), token_for(app), token_for(app, "bob@example.com")
    broken = {"mu": "?"}  # malformed, so nothing is stored on the way
    allowed = [post(client, ada, broken) for _ in range(30)]
    assert all(r.status_code == 422 and "Retry-After" not in r.headers for r in allowed)  # no reason to wait
    assert allowed[-1].headers["X-RateLimit-Remaining"] == "0"
    refused = post(client, ada, broken)
    assert_error(refused, 429, "rate_limited")
    assert 0 < int(refused.headers["Retry-After"]) <= 60
    assert_error(post(client, token_for(app), broken), 429, "rate_limited")  # a new token of the same user
    assert post(client, bob, broken).status_code == 422
    with app.app_context():
        db.engine.dispose()


# --- progress and gradebook ---


def test_progress_counts_graded_attempts_only(app: Flask, client: FlaskClient, token: str) -> None:
    def progress() -> Any:
        return client.get(f"{API}/progress", headers=auth(token)).get_json()

    assert progress() == []
    post(client, token, {"mu": "?"})
    assert progress() == []
    post(client, token, typed(answers_of(app, mistake=MISTAKE)))
    [entry] = progress()
    assert (entry["exercise"], entry["attempts"], entry["solved"]) == (EXERCISE, 1, False)
    assert entry["best_score"] < 1
    post(client, token, typed(answers_of(app)))
    assert progress() == [{"exercise": EXERCISE, "best_score": 1.0, "attempts": 2, "solved": True, "overridden": False}]


def test_gradebook_is_for_instructors_only(app: Flask, client: FlaskClient, token: str) -> None:
    assert_error(client.get(f"{API}/gradebook.csv", headers=auth(token)), 403, "forbidden")


def test_gradebook_csv_for_instructor(app: Flask, client: FlaskClient, token: str) -> None:
    post(client, token, typed(answers_of(app)))
    teacher = auth(token_for(app, "teach@example.com", "instructor"))
    response = client.get(f"{API}/gradebook.csv", headers=teacher)
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"].startswith("attachment")
    lines = response.get_data(as_text=True).splitlines()
    assert lines[0].startswith("email,solved,average,") and f"{EXERCISE} best" in lines[0]
    assert any(line.startswith(f"{ADA},1,") for line in lines[1:])
    filtered = client.get(f"{API}/gradebook.csv?exercise={EXERCISE}&learner=ada", headers=teacher)
    assert filtered.get_data(as_text=True).splitlines() == [
        f"email,solved,average,{EXERCISE} best,{EXERCISE} attempts,set by hand", f"{ADA},1,1.000,1.000,1,"]


# --- OpenAPI ---


def test_an_unknown_field_is_named_not_ignored(app: Flask, client: FlaskClient, token: str) -> None:
    response = client.post(ATTEMPTS, headers=auth(token), json={"answers": {"mu": "0.1"}, "answer": {"mu": "0.1"}})
    assert_error(response, 400, "bad_request")
    assert response.get_json()["message"] == ("Unknown field 'answer'. Send {\"answers\": {\"<part id>\": \"<answer>\"}, "
                                              "\"version\": <the exercise's version, optional>}.")  # fmt: skip
    code = client.post(f"{API}/exercises/code-gelu/submissions", headers=auth(token), json={"code": "x = 1"})
    assert_error(code, 400, "bad_request")
    assert code.get_json()["message"].startswith("Unknown field 'code'. Send {\"source\": ")
    assert attempt_rows(app) == []


def test_an_attempt_sent_for_an_older_version_is_409_and_not_graded(app: Flask, client: FlaskClient,
                                                                    token: str) -> None:  # fmt: skip
    detail = client.get(f"{API}/exercises/{EXERCISE}", headers=auth(token)).get_json()
    assert detail["version"] == 1
    answers = typed(answers_of(app))
    source = (Path(__file__).parents[2] / "exercises" / "gpt2-block" / f"{EXERCISE}.yaml").read_text(encoding="utf-8")
    with app.app_context():
        exercises.save_source(source + "max_attempts: 3\n", None)  # an instructor's edit: version 2
    stale = client.post(ATTEMPTS, headers=auth(token), json={"answers": answers, "version": 1})
    assert_error(stale, 409, "conflict")
    assert "GET it again" in stale.get_json()["message"] and attempt_rows(app) == []
    assert client.get(f"{API}/exercises/{EXERCISE}", headers=auth(token)).get_json()["version"] == 2
    fresh = client.post(ATTEMPTS, headers=auth(token), json={"answers": answers, "version": 2})
    assert (fresh.status_code, fresh.get_json()["attempts_left"]) == (201, 2)
    for wrong in ("2", True, 2.0):
        assert_error(client.post(ATTEMPTS, headers=auth(token), json={"answers": answers, "version": wrong}), 400,
                     "bad_request")  # fmt: skip
