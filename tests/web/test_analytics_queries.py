"""The instructor's class pages cost a fixed number of SQL statements, whatever the class size: no query
per learner or per exercise (N+1). Counted on the engine itself, for 3 learners and then for 12."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from tests.web.analytics_class import EXERCISE, UNEXPLAINED, typed
from tests.web.conftest import make_user
from tests.web.test_teach_stats import on_page_numbers

PAGES = ("/teach/", "/teach/?lesson=gpt2-block", f"/teach/exercises/{EXERCISE}/analytics", "/teach/gradebook",
         "/teach/gradebook.csv", "/teach/figures/stuck-learners.csv",
         f"/teach/exercises/{EXERCISE}/figures/misconceptions.csv")  # fmt: skip


def add_learners(app: Flask, first: int, count: int) -> None:
    """`count` more learners, each with a wrong answer no misconception explains, ReLU's, and a right one."""
    ids = {make_user(app, f"learner{n:03}@example.com"): f"learner{n:03}@example.com" for n in range(first, first + count)}
    on_page_numbers(app, *ids)
    for uid, email in ids.items():
        typed(app, uid, email, UNEXPLAINED)
        typed(app, uid, email, "0.000")
        typed(app, uid, email)


def statements(app: Flask, client: FlaskClient, path: str) -> int:
    """How many SQL statements one request for `path` sends to the database."""
    sent: list[str] = []

    def count(_connection: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        sent.append(statement)

    with app.app_context():
        engine = db.engine
    sa.event.listen(engine, "before_cursor_execute", count)
    try:
        response = client.get(path)
        assert response.status_code == 200, path
        response.get_data()  # a streamed CSV runs its queries as it is read
    finally:
        sa.event.remove(engine, "before_cursor_execute", count)
    return len(sent)


def test_class_pages_send_as_many_statements_for_12_learners_as_for_3(app: Flask, instructor: FlaskClient) -> None:
    add_learners(app, 0, 3)
    few = {path: statements(app, instructor, path) for path in PAGES}
    add_learners(app, 3, 9)
    many = {path: statements(app, instructor, path) for path in PAGES}
    assert many == few
    assert all(count <= 25 for count in few.values()), few  # each page a handful of aggregate queries
