"""Fixtures for the web app: a fresh SQLite database per test, the real catalogue, real accounts."""

from __future__ import annotations

import os
import re
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader import create_app
from grader.extensions import db
from grader.course_models import INSTRUCTOR, CourseMember
from grader.services import accounts, courses
from grader.services.courses import Seat
from grader.services.sync import sync_directory

PASSWORD = "correct horse battery"


# Set (by `make test` under CI) to run the same tests on PostgreSQL instead of SQLite.
SERVER_DATABASE = os.environ.get("GRADER_TEST_DATABASE_URL")
# Each pytest-xdist worker (gw0, gw1, ...) has a PostgreSQL database of its own, made once.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
_worker_database: list[str] = []


def database_url(tmp_path: Path) -> str:
    """The database for one test: a fresh SQLite file, or this worker's PostgreSQL test database."""
    if not SERVER_DATABASE:
        return f"sqlite:///{tmp_path / 'test.db'}"
    if not _worker_database:
        name = f"{sa.make_url(SERVER_DATABASE).database}_{_WORKER}"
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _admin(f'CREATE DATABASE "{name}"')
        _worker_database.append(sa.make_url(SERVER_DATABASE).set(database=name).render_as_string(hide_password=False))
    return _worker_database[0]


@contextmanager
def empty_database(tmp_path: Path) -> Iterator[str]:
    """A brand-new empty database (for migrations): a new SQLite file, or a new PostgreSQL database."""
    if not SERVER_DATABASE:
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    name = f"grader_{uuid.uuid4().hex[:12]}"
    _admin(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(SERVER_DATABASE).set(database=name).render_as_string(hide_password=False)
    finally:
        _drop_database(name)


def _admin(sql: str) -> None:
    """Run one statement on the PostgreSQL test server, on a connection of its own."""
    # A new engine each time, and no pool: a kept connection would not survive a server restart (the
    # fault tests make one) and would block DROP DATABASE.
    assert SERVER_DATABASE
    engine = sa.create_engine(SERVER_DATABASE, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text(sql))
    finally:
        engine.dispose()


def _drop_database(name: str, tries: int = 100) -> None:
    """Drop a test database, ending its connections; wait out an autovacuum worker on it."""
    for attempt in range(tries):
        try:
            return _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        except sa.exc.ProgrammingError as error:
            # FORCE cannot end an autovacuum worker (a superuser's process; the test role is not one),
            # and one may have just started on the new database. It ends by itself within moments.
            if "pg_signal_backend" not in str(error.orig) or attempt == tries - 1:
                raise
            time.sleep(0.1)


def build_app(tmp_path: Path, **overrides: object) -> Flask:
    """A fresh app on an empty database, with the real exercises synced in."""
    app = create_app({
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "SQLALCHEMY_DATABASE_URI": database_url(tmp_path),
        "TESTING": True,
        "RATELIMIT_ENABLED": False,
        "CHEAP_PASSWORD_HASHES": True,  # argon2's cheapest cost; the sign-in tests ask for the real one
        **overrides,
    })  # fmt: skip
    with app.app_context():
        if SERVER_DATABASE:
            db.drop_all()  # one server database per worker: empty it for each test
        db.create_all()
        courses.ensure_default()  # the migration makes it; create_all does not
        sync_directory(app.config["EXERCISES_DIR"])
    return app


@pytest.fixture
def app(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Flask]:
    real_cost = request.node.get_closest_marker("real_password_cost") is not None
    app = build_app(tmp_path, CHEAP_PASSWORD_HASHES=not real_cost)
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def seat(user_id: int) -> Seat:
    """The person's seat in the `default` course, where the fixtures put everyone (in an app context)."""
    return courses.default_seat(user_id)


def seat_key(user_id: int) -> tuple[int, int]:
    """The first two columns of a Progress key in the `default` course: (*seat_key(uid), exercise_id)."""
    return courses.ensure_default().id, user_id


def in_default_course(user_id: int, role: str = "learner") -> None:
    """Make an account written straight into the table a member of the `default` course, as the upgrade to
    courses made every account it found (in an app context; commits)."""
    db.session.add(CourseMember(course_id=courses.ensure_default().id, user_id=user_id, role=role))
    db.session.commit()


def make_user(app: Flask, email: str, role: str = "learner") -> int:
    """An account; "instructor" is site staff and an instructor of the `default` course (as the migration makes
    the instructors of a one-class site), "learner" a learner of it (open to every account)."""
    with app.app_context():
        if role != "instructor":
            return accounts.create_user(email, PASSWORD, role).id
        user = accounts.create_user(email, PASSWORD, "staff")
        courses.add_member(courses.ensure_default(), user, INSTRUCTOR)
        return user.id


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
