"""The attempt path's database work, statement by statement: what an attempt costs stays what it needs."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from tests.web.api_support import MISTAKE, answers_of, attempt_rows, post, typed


@pytest.fixture
def statements(app: Flask) -> Iterator[list[str]]:
    """Every SQL statement the app's engine runs while the test does, and 'COMMIT' for each commit."""
    seen: list[str] = []
    with app.app_context():
        engine = db.engine

    def executed(connection: Any, cursor: Any, statement: str, *rest: Any) -> None:
        seen.append(" ".join(statement.split()[:3]))

    def committed(connection: Any) -> None:
        seen.append("COMMIT")

    sa.event.listen(engine, "before_cursor_execute", executed)
    sa.event.listen(engine, "commit", committed)
    yield seen
    sa.event.remove(engine, "before_cursor_execute", executed)
    sa.event.remove(engine, "commit", committed)


# What an attempt's answers show of the learner's skills, in the attempt's own transaction (grader.services.mastery).
LEARNER_MODEL = [
    "SELECT skill_params.course_id, skill_params.skill,",  # the course's fitted BKT parameters, if any
    "INSERT INTO skill_states",  # the learner's states of those skills, made where missing
    "SELECT skill_states.course_id, skill_states.user_id,",  # and locked
    "SELECT skill_events.id, skill_events.course_id,",  # the learner's earlier answers: their learning curve
    "INSERT INTO skill_events",  # what the answers show of each skill, for the learner model
    "UPDATE skill_states SET",  # all of them in one statement, however many skills
]


def test_a_graded_attempt_is_thirteen_statements_and_one_commit(app: Flask, client: FlaskClient, token: str,
                                                            statements: list[str]) -> None:  # fmt: skip
    # The first attempt makes the learner's seed and notes the token's use: each once, not per attempt.
    assert post(client, token, typed(answers_of(app, mistake=MISTAKE))).status_code == 201
    right = typed(answers_of(app))
    statements.clear()
    response = post(client, token, right)
    assert response.status_code == 201
    assert statements == [
        "SELECT api_tokens.id, users.id",  # the token's owner, unrevoked
        "SELECT courses.id, courses.code,",  # the caller's courses: the attempt counts in one of them
        "SELECT exercises.kind, exercise_versions.version,",  # current version, seed, own due date, opening
        "INSERT INTO progress",  # the upsert that locks the learner's progress row
        "UPDATE progress SET",  # the attempt counted
        "SELECT lti_grade_links.id, lti_grade_links.account_id,",  # LMS line items owed the changed score
        "INSERT INTO attempts",  # the attempt itself
        *LEARNER_MODEL,
        "COMMIT",  # all of it, durably, before the reply
    ]
    assert [row.id for row in attempt_rows(app)][-1] == response.get_json()["attempt_id"]


def test_an_attempt_that_changes_no_score_writes_progress_once(app: Flask, client: FlaskClient, token: str,
                                                              statements: list[str]) -> None:  # fmt: skip
    # The upsert that locks the row counts the attempt too: with the best score and solved time as they
    # were, nothing else is written to progress and no LMS is owed a score.
    wrong = typed(answers_of(app, mistake=MISTAKE))
    assert post(client, token, typed(answers_of(app))).status_code == 201  # solved: the best score is kept
    statements.clear()
    response = post(client, token, wrong)
    assert response.status_code == 201
    assert statements == [
        "SELECT api_tokens.id, users.id",
        "SELECT courses.id, courses.code,",
        "SELECT exercises.kind, exercise_versions.version,",
        "INSERT INTO progress",  # locks the row and counts the attempt
        "INSERT INTO attempts",
        "INSERT INTO wrong_parts",  # its wrong parts, for the class figures
        *LEARNER_MODEL,
        "COMMIT",
    ]
    with app.app_context():
        used, best = db.session.execute(sa.text("SELECT attempts_used, best_score FROM progress")).one()
    assert (used, best) == (2, 1.0) and [row.number for row in attempt_rows(app)] == [1, 2]


def test_a_repeat_reads_the_attempt_that_counted_and_stores_nothing(app: Flask, client: FlaskClient, token: str,
                                                                    statements: list[str]) -> None:  # fmt: skip
    answers = typed(answers_of(app, mistake=MISTAKE))
    first = post(client, token, answers)
    statements.clear()
    again = post(client, token, answers)
    assert (again.status_code, again.get_json()["attempt_id"]) == (200, first.get_json()["attempt_id"])
    assert "COMMIT" not in statements and statements[-1].startswith("SELECT attempts.id")
    assert len(attempt_rows(app)) == 1
    with app.app_context():  # the count the upsert made was rolled back with the rest
        assert db.session.execute(sa.text("SELECT attempts_used FROM progress")).scalar_one() == 1


def test_an_api_call_without_a_cookie_is_answered_without_one(client: FlaskClient, token: str, app: Flask) -> None:
    response = post(client, token, typed(answers_of(app)))
    assert response.status_code == 201 and "Set-Cookie" not in response.headers


def test_a_wrong_attempt_stores_its_wrong_parts_in_the_same_commit(app: Flask, client: FlaskClient, token: str,
                                                                   statements: list[str]) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app))).status_code == 201  # the seed, made once
    statements.clear()
    response = post(client, token, typed(answers_of(app, mistake=MISTAKE)))
    assert response.status_code == 201
    stored = statements[statements.index("INSERT INTO attempts"):]
    assert stored[:2] == ["INSERT INTO attempts", "INSERT INTO wrong_parts"]  # one statement for all its parts
    assert stored[-1] == "COMMIT" and stored.count("COMMIT") == 1  # with the learner model's, in the same commit
    with app.app_context():
        rows = db.session.execute(sa.text("SELECT attempt_id, part, misconception FROM wrong_parts")).all()
    wrong = [part for part, verdict in response.get_json()["parts"].items() if verdict["status"] == "incorrect"]
    assert wrong  # the mistake makes parts wrong: rows to find
    assert sorted(rows) == sorted((response.get_json()["attempt_id"], part, MISTAKE) for part in wrong)
