"""The PostgreSQL backup and restore of docs/operators/backups.md, run as written: the copy holds every
row of every table, belongs to the app role, and the service runs on it (writes included).

Found by an operator: run as root the commands failed (no role, no host), and `pg_restore --no-owner`
run as postgres left every table postgres's, so the service stopped at "permission denied".
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

from grader import create_app
from grader.extensions import db
from grader.services import accounts, api_tokens
from tests.faults.test_postgres_faults import SERVER, needs_postgres
from tests.web.api_support import auth
from tests.web.conftest import PASSWORD, _drop_database, empty_database
from tests.web.test_app import flask_cli

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "operators" / "backups.md"
def answers(n: int) -> dict[str, str]:
    """Wrong answers, different each time (the same answers again are a repeat, not a new attempt)."""
    return {"h": f"[{n}.100; 0.200; 0.300; 0.400]"}


def documented_commands() -> list[str]:
    """The shell blocks of the page's PostgreSQL section, in order: backup, create, restore, restart."""
    section = PAGE.read_text(encoding="utf-8").split("## PostgreSQL", 1)[1]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def _run(script: str, cwd: Path) -> None:
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0, (script, done.stdout, done.stderr)


def _tables(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table (alembic_version included), in a stable order."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            names = sorted(sa.inspect(connection).get_table_names())
            return {name: sorted(connection.execute(sa.text(f'SELECT * FROM "{name}"')).all(), key=repr)
                    for name in names}  # fmt: skip
    finally:
        engine.dispose()


def _owners(url: str) -> set[str]:
    """Who owns the tables and sequences of the public schema."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            return set(connection.scalars(sa.text(
                "SELECT pg_get_userbyid(relowner) FROM pg_class JOIN pg_namespace n ON n.oid = relnamespace"
                " WHERE nspname = 'public' AND relkind IN ('r', 'S', 'i')")))  # fmt: skip
    finally:
        engine.dispose()


def _fill(url: str, tmp_path: Path) -> None:
    """A learner with attempts (one wrong), a token and a sign-in's worth of rows, through the service."""
    app = create_app({"INSTANCE_PATH": str(tmp_path / "i"), "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "k" * 32,
                      "RATELIMIT_ENABLED": False})  # fmt: skip
    with app.app_context():
        token = api_tokens.create_token(accounts.create_user("ada@example.com", PASSWORD), "t")
    client = app.test_client()
    for n in range(3):
        reply = client.post("/api/v1/exercises/block-residual/attempts", json={"answers": answers(n)}, headers=auth(token))
        assert reply.status_code == 201, reply.get_data(as_text=True)
    with app.app_context():
        db.engine.dispose()


@needs_postgres
@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("pg_restore") is None,
                    reason="the page's commands run as root with the PostgreSQL client tools")  # fmt: skip
def test_the_documented_restore_copies_every_table_and_the_service_runs_on_it(tmp_path: Path) -> None:
    backup, create, restore, restart = documented_commands()
    assert "systemctl restart grader-web grader-worker grader-reap.timer" in restart
    role = sa.make_url(SERVER).username
    restored_name = f"grader_restored_{uuid.uuid4().hex[:8]}"
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        assert flask_cli("exercises", "sync", env=env).returncode == 0
        _fill(url, tmp_path)
        env_file = tmp_path / "grader.env"
        env_file.write_text(f"GRADER_DATABASE_URL={url}\nGRADER_SECRET_KEY={'x' * 32}\n", encoding="utf-8")

        def as_here(script: str) -> str:  # this machine's environment file, role and a database of the test's own
            return (script.replace("/etc/grader.env", str(env_file)).replace("grader_restored", restored_name)
                    .replace("--owner=grader", f"--owner={role}"))  # fmt: skip

        try:
            _run(as_here(backup), tmp_path)
            assert (tmp_path / "grader.dump").stat().st_mode & 0o077 == 0  # its owner's alone
            _run(as_here(create), tmp_path)
            _run(as_here(restore), tmp_path)
            copy = sa.make_url(url).set(database=restored_name).render_as_string(hide_password=False)
            original = _tables(url)
            assert set(original) == {*db.metadata.tables, "alembic_version"}  # every table the models know
            assert len(original["attempts"]) == 3 and len(original["wrong_parts"]) == 3
            assert _tables(copy) == original
            assert _owners(copy) == {role}
            # The service on the copy: at its schema, and able to write (no "permission denied").
            app = create_app({"INSTANCE_PATH": str(tmp_path / "j"), "SQLALCHEMY_DATABASE_URI": copy,
                              "SECRET_KEY": "x" * 32, "RATELIMIT_ENABLED": False})  # fmt: skip
            client = app.test_client()
            ready = client.get("/readyz")
            assert ready.status_code == 200 and ready.get_json()["schema"] == "ok"
            with app.app_context():
                token = api_tokens.create_token(accounts.user_by_email("ada@example.com"), "after")  # type: ignore[arg-type]
            reply = client.post("/api/v1/exercises/block-residual/attempts", json={"answers": answers(9)},
                                headers=auth(token))  # fmt: skip
            assert reply.status_code == 201 and reply.get_json()["attempt_id"] == 4  # the sequences came along
            with app.app_context():
                db.engine.dispose()
        finally:
            _drop_database(restored_name)
