"""A practice check's database work, statement by statement: its evidence in one commit, and a repeat that writes
none."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.web.api_support import API, EXERCISE, answers_of, auth, post, typed
from tests.web.test_attempt_statements import statements  # noqa: F401  (the fixture)

WRONG = {"mu": "0.000", "sigma": "0.000", "u": "[0.000; 0.000; 0.000; 0.000]"}
READ_AND_LOCK = [
    "SELECT api_tokens.id, users.id",  # the token's owner, unrevoked
    "SELECT courses.id, courses.code,",  # the caller's courses
    "SELECT exercises.kind, exercise_versions.version,",  # the current version, open to the learner
    "SELECT progress.course_id, progress.user_id,",  # finished with their own numbers: practice is open
    "SELECT skill_params.course_id, skill_params.skill,",  # the course's fitted BKT parameters, if any
    "INSERT INTO skill_states",  # the learner's states of the skills, made where missing
    "SELECT skill_states.course_id, skill_states.user_id,",  # and locked, before the notes are read
    "SELECT skill_events.part FROM",  # which of these answers were checked on these numbers before
]


def check(client: FlaskClient, token: str, numbers: str) -> None:
    reply = client.post(f"{API}/exercises/{EXERCISE}/practice", json={"numbers": numbers, "answers": WRONG},
                        headers=auth(token))  # fmt: skip
    assert reply.status_code == 200


def test_a_practice_check_is_twelve_statements_and_a_repeat_writes_no_evidence(
        app: Flask, client: FlaskClient, token: str, statements: list[str]) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app))).status_code == 201
    numbers = client.get(f"{API}/exercises/{EXERCISE}/practice", headers=auth(token)).get_json()["numbers"]
    statements.clear()
    check(client, token, numbers)
    assert statements == [
        *READ_AND_LOCK,
        "SELECT skill_events.id, skill_events.course_id,",  # the learner's earlier answers: their learning curve
        "INSERT INTO skill_events",  # the new answers' notes and what they show, in one statement
        "UPDATE skill_states SET",  # the states, in one statement
        "COMMIT",
    ]
    statements.clear()
    check(client, token, numbers)
    assert statements == [*READ_AND_LOCK, "COMMIT"]  # nothing new: no evidence, no state changed
