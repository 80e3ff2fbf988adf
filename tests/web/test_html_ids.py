"""Every id on a page is unique: labels, aria-describedby and the focus after a check point at one element."""

from __future__ import annotations

from collections import Counter
from html.parser import HTMLParser

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import User
from tests.web.conftest import csrf_from, login
from tests.web.test_learn import post_answers


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: Counter[str] = Counter()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def repeated_ids(html: str) -> list[str]:
    """The ids that appear more than once in the page."""
    parser = _Ids()
    parser.feed(html)
    return sorted(i for i, n in parser.ids.items() if n > 1)


def test_learner_pages_have_unique_ids(app: Flask, learner: FlaskClient) -> None:
    login(app.test_client(), "ada@example.com")  # a second browser, so the profile lists two sign-ins
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    learner.post("/profile", data={"csrf_token": token, "name": "laptop"})
    learner.post("/profile", data={"csrf_token": token, "name": "notebook"})
    post_answers(learner, "block-layernorm", {"mu": "1", "sigma": "x"})
    for path in ("/", "/exercises/block-layernorm", "/exercises/code-gelu", "/profile", "/login"):
        assert repeated_ids(learner.get(path).get_data(as_text=True)) == [], path


def test_instructor_pages_have_unique_ids(app: Flask, instructor: FlaskClient, learner: FlaskClient) -> None:
    post_answers(learner, "block-layernorm", {"mu": "1", "sigma": "1"})
    with app.app_context():
        ada = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
    for path in ("/teach/exercises", "/teach/gradebook", "/teach/exercises/block-layernorm", "/teach/exercises/new",
                 "/teach/exercises/block-layernorm/edit", "/teach/audit", "/teach/import", "/teach/reset-link",
                 f"/teach/gradebook/{ada}/block-layernorm", "/teach/exercises/code-gelu",
                 "/teach/exercises/block-layernorm/as-learner", "/teach/exercises/code-gelu/as-learner"):  # fmt: skip
        response = instructor.get(path)
        assert response.status_code == 200, path
        assert repeated_ids(response.get_data(as_text=True)) == [], path
