"""The database's schema against the code's: a release serves only a database at its own migrations.

An upgrade that migrates while the old release still serves, or starts the new release before
migrating, runs two versions against one schema; what the older one writes can then lack what the
newer one needs (attempts without their wrong_parts rows, for one). So gunicorn and the Celery worker
refuse to start, and /readyz answers 503, unless the database's Alembic revision is the code's head.
Tables made without migrations (`db.create_all()`, as the tests make them) carry no revision and are
accepted: nothing migrated them, so no other release did either.
"""

from __future__ import annotations

import functools
from pathlib import Path

import sqlalchemy as sa
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).resolve().parents[1] / "migrations"
SERVING = frozenset({"ok", "unversioned"})  # the states in which this release may serve


@functools.cache
def _scripts() -> ScriptDirectory:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(config)


def code_heads() -> frozenset[str]:
    """The revisions this release's migrations end at (one, unless two branches were never merged)."""
    return frozenset(_scripts().get_heads())


def schema_state(connection: sa.Connection) -> str:
    """"ok" (at the code's head), "behind" (migrations to run, or none run yet), "ahead" (a revision this
    release does not know: a newer release migrated it), or "unversioned" (tables made without migrations)."""
    inspector = sa.inspect(connection)
    if not inspector.has_table("alembic_version"):
        return "unversioned" if inspector.has_table("users") else "behind"
    revisions = frozenset(MigrationContext.configure(connection).get_current_heads())
    if revisions == code_heads():
        return "ok"
    known = {script.revision for script in _scripts().walk_revisions()}
    return "behind" if revisions <= known else "ahead"


def refusal(state: str) -> str | None:
    """Why a process of this release must not serve a database in `state`, or None when it may."""
    if state in SERVING:
        return None
    heads = ", ".join(sorted(code_heads()))
    if state == "behind":
        return (f"the database is behind this release's migrations (head {heads}): stop every process of the "
                "old release, then run `flask --app wsgi db upgrade` (docs/operators/upgrades.md)")  # fmt: skip
    return (f"the database was migrated past this release (head {heads}) by a newer one: run that release's "
            "code, not this one (docs/operators/upgrades.md)")  # fmt: skip


def check_url(url: str) -> str:
    """The schema state of the database at `url`, on a connection of its own that is closed after."""
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            return schema_state(connection)
    finally:
        engine.dispose()


def refuse_to_start(url: str) -> None:
    """Exit with the reason when this release must not serve the database at `url` (gunicorn, Celery).

    A database that does not answer yet is no reason: the process starts, and /readyz keeps the host
    out of rotation until the database answers at the right revision.
    """
    try:
        state = check_url(url)
    except sa.exc.OperationalError:
        return
    reason = refusal(state)
    if reason is not None:
        raise SystemExit(f"grader refuses to start: {reason}")
