"""The courses migration on a populated database: every row is kept, in the one course it makes, and the
site still works on what it made (SQLite here, PostgreSQL in the suite's second run)."""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa

from grader import create_app
from grader.extensions import db
from grader.services import attempts
from grader.services.course_content import uses
from grader.services.courses import Seat
from tests.web.conftest import empty_database
from tests.web.test_app import flask_cli

BEFORE = "ddbbbb078bd7"  # the last revision before courses
TABLES = ("users", "exercises", "exercise_versions", "variants", "attempts", "progress", "submissions",
          "extensions", "audit_events", "wrong_parts", "api_tokens")
ROWS = [
    "INSERT INTO exercises (id, lesson, title, position, kind, current_version, origin, created_at, updated_at,"
    " status) VALUES ('block-residual', 'gpt2-block', 't', 1, 'numeric', 1, 'file', '2026-01-01', '2026-01-01',"
    " 'published'), ('code-layer-norm', 'code', 'c', 1, 'code', 1, 'web', '2026-01-01', '2026-01-01',"
    " 'published')",
    "INSERT INTO exercise_versions (exercise_id, version, source, source_hash, created_at) VALUES"
    " ('block-residual', 1, 'x', 'h', '2026-01-01'), ('code-layer-norm', 1, 'y', 'h', '2026-01-01')",
    "INSERT INTO users (id, email, password_hash, role, locale, created_at) VALUES"
    " (1, 'boss@example.com', '-', 'instructor', 'en', '2026-01-01'),"
    " (2, 'ada@example.com', '-', 'learner', 'en', '2026-01-02'),"
    " (3, 'ta@example.com', '-', 'instructor', 'pt', '2026-01-03'),"
    " (4, 'bo@example.com', '-', 'learner', 'ru', '2026-01-04')",
    "INSERT INTO api_tokens (id, user_id, name, token_hash, prefix, created_at) VALUES"
    " (1, 2, 'cli', 'h1', 'gr_a', '2026-01-05')",
    "INSERT INTO variants (id, user_id, exercise_id, seed, created_at) VALUES"
    " (1, 2, 'block-residual', 7, '2026-01-05'), (2, 4, 'block-residual', 9, '2026-01-05')",
    "INSERT INTO attempts (id, user_id, exercise_id, version, seed, number, answers, parsed, results, raw_score,"
    " score, late, hints_used, answers_hash, created_at) VALUES"
    " (1, 2, 'block-residual', 1, 7, 1, '{\"h\": \"1\"}', '{}', '{\"h\": {\"status\": \"incorrect\"}}', 0, 0,"
    " false, 0, 'a1', '2026-01-06'),"
    " (2, 4, 'block-residual', 1, 9, 1, '{\"h\": \"2\"}', '{}', '{\"h\": {\"status\": \"correct\"}}', 1, 1,"
    " false, 0, 'a2', '2026-01-06')",
    "INSERT INTO wrong_parts (attempt_id, part, exercise_id, user_id, typed, misconception) VALUES"
    " (1, 'h', 'block-residual', 2, '1', NULL)",
    "INSERT INTO progress (user_id, exercise_id, best_score, attempts_used, hints_used) VALUES"
    " (2, 'block-residual', 0, 1, 0), (4, 'block-residual', 1, 1, 0)",
    "INSERT INTO submissions (id, user_id, exercise_id, version, seed, source, source_hash, status, late,"
    " attempts_claimed, created_at) VALUES (1, 2, 'code-layer-norm', 1, 3, 'x = 1', 's1', 'pending', false, 0,"
    " '2026-01-07')",
    "INSERT INTO extensions (user_id, exercise_id, due_at, granted_by, created_at) VALUES"
    " (4, 'block-residual', '2027-01-01', 1, '2026-01-08')",
    "INSERT INTO audit_events (id, created_at, actor_id, action, learner_id, exercise_id, detail) VALUES"
    " (1, '2026-01-08', 1, 'extension.set', 4, 'block-residual', '{}'),"
    " (2, '2026-01-09', NULL, 'account.deleted', NULL, NULL, '{}')",
]


def counts(connection: sa.Connection) -> dict[str, int]:
    return {table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one() for table in TABLES}


def test_every_row_moves_into_the_default_course_and_instructors_become_its_instructors(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", BEFORE, env=env).returncode == 0
        engine = sa.create_engine(url)
        with engine.begin() as connection:
            for statement in ROWS:
                connection.execute(sa.text(statement))
            before = counts(connection)
        upgraded = flask_cli("db", "upgrade", env=env)
        assert upgraded.returncode == 0, upgraded.stderr
        with engine.connect() as connection:
            assert counts(connection) == before
            [(default, code, open_to_all, whole)] = connection.execute(sa.text(
                "SELECT id, code, open_enrolment, whole_catalogue FROM courses")).all()  # fmt: skip
            assert (code, bool(open_to_all), bool(whole)) == ("default", True, True)
            for table in ("attempts", "progress", "submissions", "extensions", "wrong_parts"):
                assert connection.execute(sa.text(f"SELECT DISTINCT course_id FROM {table}")).scalars().all() == \
                    [default], table  # fmt: skip
            members = connection.execute(sa.text(
                "SELECT u.email, u.role, m.role FROM users u JOIN course_members m ON m.user_id = u.id"
                " ORDER BY u.id")).all()  # fmt: skip
            events = dict(connection.execute(sa.text("SELECT id, course_id FROM audit_events")).all())
            owners = dict(connection.execute(sa.text("SELECT id, course_id FROM exercises")).all())
        engine.dispose()
        assert [tuple(m) for m in members] == [("boss@example.com", "admin", "instructor"),
                                               ("ada@example.com", "learner", "learner"),
                                               ("ta@example.com", "staff", "instructor"),
                                               ("bo@example.com", "learner", "learner")]  # fmt: skip
        assert events == {1: default, 2: None}  # an account's erasure belongs to the site, not a course
        assert owners == {"block-residual": None, "code-layer-norm": default}  # the web's is the course's
        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url})
        with app.app_context():
            bo = Seat(default, 4)
            assert attempts.progress_of(bo, "block-residual") is not None
            assert [a.id for a in attempts.history(bo, "block-residual")] == [2]
            assert uses(default, "block-residual") and uses(default, "code-layer-norm")
            db.engine.dispose()
        downgraded = flask_cli("db", "downgrade", BEFORE, env=env)
        assert downgraded.returncode == 0, downgraded.stderr
        with engine.connect() as connection:
            assert counts(connection) == before
            roles = connection.execute(sa.text("SELECT role FROM users ORDER BY id")).scalars().all()
        engine.dispose()
        assert roles == ["instructor", "learner", "instructor", "learner"]
