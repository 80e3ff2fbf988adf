"""Fixtures for the web app: a fresh SQLite database per test, the real catalogue, real accounts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader import create_app
from grader.extensions import db
from grader.services import accounts
from grader.services.exercises import sync_directory

PASSWORD = "correct horse battery"


def build_app(tmp_path: Path, **overrides: object) -> Flask:
    """A fresh app on its own SQLite file, with the real exercises synced in."""
    app = create_app({
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'test.db'}",
        "TESTING": True,
        "RATELIMIT_ENABLED": False,
        **overrides,
    })  # fmt: skip
    with app.app_context():
        db.create_all()
        sync_directory(app.config["EXERCISES_DIR"])
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Flask]:
    app = build_app(tmp_path)
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def make_user(app: Flask, email: str, role: str = "learner") -> int:
    with app.app_context():
        return accounts.create_user(email, PASSWORD, role).id


def csrf_from(html: str) -> str:
    match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html)
    assert match, "no CSRF token in page"
    return match.group(1)


def login(client: FlaskClient, email: str, password: str = PASSWORD) -> None:
    page = client.get("/login").get_data(as_text=True)
    response = client.post("/login", data={"email": email, "password": password, "csrf_token": csrf_from(page)})
    assert response.status_code == 302, response.get_data(as_text=True)


@pytest.fixture
def learner(app: Flask, client: FlaskClient) -> FlaskClient:
    make_user(app, "ada@example.com")
    login(client, "ada@example.com")
    return client


@pytest.fixture
def instructor(app: Flask) -> FlaskClient:
    make_user(app, "teach@example.com", "instructor")
    other = app.test_client()
    login(other, "teach@example.com")
    return other


@pytest.fixture
def token(app: Flask) -> str:
    """An API token for the learner ada@example.com."""
    from tests.web.api_support import token_for

    return token_for(app)
