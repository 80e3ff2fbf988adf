"""Practice through the API: the same rules as the pages, JSON in and out, nothing stored."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from grader.models import Attempt
from tests.web.api_support import API, ATTEMPTS, EXERCISE, answers_of, auth, token_for, typed
from tests.web.test_learn import count

PRACTICE = f"{API}/exercises/{EXERCISE}/practice"


def solve(client: FlaskClient, app: Flask, token: str) -> None:
    assert client.post(ATTEMPTS, json={"answers": typed(answers_of(app))}, headers=auth(token)).status_code == 201


def test_practice_needs_the_own_variant_finished(app: Flask, client: FlaskClient, token: str) -> None:
    refused = client.get(PRACTICE, headers=auth(token))
    assert refused.status_code == 403 and "have solved this exercise" in refused.get_json()["message"]
    assert client.post(PRACTICE, json={"numbers": "x", "answers": {}}, headers=auth(token)).status_code == 403
    solve(client, app, token)
    assert client.get(PRACTICE, headers=auth(token)).status_code == 200


def test_new_numbers_are_checked_and_nothing_is_stored(app: Flask, client: FlaskClient, token: str) -> None:
    solve(client, app, token)
    reply = client.get(f"{PRACTICE}?lang=pt", headers=auth(token)).get_json()
    assert [p["id"] for p in reply["parts"]] == ["mu", "sigma", "u"] and len(reply["solution"]) == 3
    assert "média" in reply["prompt"]
    again = client.get(f"{PRACTICE}?numbers={reply['numbers']}", headers=auth(token)).get_json()
    assert again["prompt"] != reply["prompt"] and again["numbers"] == reply["numbers"]  # English now, same numbers
    assert again["params"] == reply["params"]
    assert client.get(PRACTICE, headers=auth(token)).get_json()["numbers"] != reply["numbers"]

    wrong = client.post(PRACTICE, json={"numbers": reply["numbers"], "answers": {"mu": "0.000", "sigma": "x",
                                                                                "u": "[0.000; 0.000; 0.000; 0.000]"}},
                        headers=auth(token))  # fmt: skip
    body = wrong.get_json()
    assert wrong.status_code == 422 and body["readable"] is False
    assert body["parts"]["sigma"]["status"] == "invalid" and body["parts"]["u"]["status"] == "incorrect"
    assert count(app, Attempt) == 1


def test_numbers_are_bound_to_their_lesson_and_cannot_be_forged(app: Flask, client: FlaskClient, token: str) -> None:
    solve(client, app, token)
    numbers = client.get(PRACTICE, headers=auth(token)).get_json()["numbers"]
    for forged in (numbers[:-3] + "abc", "WyJibG9jay1sYXllcm5vcm0iLDFd.forged"):
        response = client.post(PRACTICE, json={"numbers": forged, "answers": {}}, headers=auth(token))
        assert response.status_code == 400 and response.get_json()["error"] == "bad_request"
    instructor = token_for(app, "teach@example.com", "instructor")
    same_lesson = client.get(f"{API}/exercises/block-gelu/practice?numbers={numbers}", headers=auth(instructor))
    assert same_lesson.status_code == 200 and same_lesson.get_json()["numbers"] == numbers  # one token, one lesson
    other = client.get(f"{API}/exercises/ffn-keys/practice?numbers={numbers}", headers=auth(instructor))
    assert other.status_code == 400
    assert client.get(f"{API}/exercises/code-gelu/practice", headers=auth(instructor)).status_code == 409
    assert client.get(f"{API}/exercises/nothing/practice", headers=auth(instructor)).status_code == 404


def test_the_document_declares_the_token_s_form_and_the_api_keeps_to_it(app: Flask, client: FlaskClient,
                                                                        token: str) -> None:  # fmt: skip
    document = client.get(f"{API}/openapi.json").get_json()
    paths = document["paths"]
    [query] = [p["schema"] for p in paths[PRACTICE]["get"]["parameters"] if p["name"] == "numbers"]
    body = paths[PRACTICE]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["numbers"]
    reply = document["components"]["schemas"]["PracticeDetail"]["properties"]["numbers"]
    for declared in (query, body, reply):
        assert declared["maxLength"] == 200 and declared["pattern"] == r"^\.?[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"
    assert "not made here" in paths[PRACTICE]["get"]["responses"]["400"]["description"]
    solve(client, app, token)
    pattern = re.compile(query["pattern"])
    made = [client.get(PRACTICE, headers=auth(token)).get_json()["numbers"] for _ in range(5)]
    assert all(pattern.fullmatch(t) and len(t) <= query["maxLength"] for t in made)
    # Of the declared form but not made here, or past the declared length (a real token with more after it).
    for refused in ("abc.def", made[0] + "A" * (201 - len(made[0]))):
        answer = client.get(f"{PRACTICE}?numbers={refused}", headers=auth(token))
        assert answer.status_code == 400 and "not made here" in answer.get_json()["message"], refused
