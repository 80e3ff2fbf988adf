"""Suite-wide collection rules: which tests touch a database, and which share a worker.

`make test` runs the suite on SQLite, then again on PostgreSQL for the tests marked `database` only:
the other ~2,000 (answers, catalogue, code, formulas, reference, sandbox, ...) never open a database,
so a second run of them would test nothing new. The marker is added here to every test of the folders
about the service (DATABASE_FOLDERS) and to any test using a database fixture; a test that opens a
database connection without it fails, so none can slip out of the second run.

The suite runs in parallel (pytest-xdist, `--dist loadgroup`). Tests that start servers and workers of
their own, kill sandbox processes or time a loaded machine share one worker, one at a time, and each
browser module keeps its live server on one worker. A test marked `alone` stops a server every
worker shares (the PostgreSQL restart): under several workers it is skipped, and `make test` runs it
by itself after the parallel run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

DATABASE_FOLDERS = ("web/", "lti/", "browser/", "queue/", "faults/")
DATABASE_FIXTURES = frozenset({"app", "database", "live_server"})
TESTS = Path(__file__).parent
# Whole folders or modules whose tests run one at a time on one worker: they start redis, Celery,
# gunicorn or PostgreSQL restarts, or count and kill sandbox processes host-wide.
EXCLUSIVE = ("queue/", "faults/", "sandbox/test_pool.py", "sandbox/test_lease.py", "sandbox/test_starved.py")
# Modules whose tests share one live server (a module-scoped fixture).
LIVE = ("browser/", "client/test_terminal.py", "client/test_notebook.py")


def _group(path: str) -> str | None:
    if path.startswith(EXCLUSIVE):
        return "exclusive"
    if path.startswith(LIVE):
        return path  # one live server per module, on one worker
    return None


def _workers(config: pytest.Config) -> int:
    worker_input = getattr(config, "workerinput", None)
    return int(worker_input["workercount"]) if worker_input else 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    shared = _workers(config) > 1
    for item in items:
        if shared and item.get_closest_marker("alone") is not None:
            item.add_marker(pytest.mark.skip(reason="stops a server the other workers use; run it alone "
                                                    "(`make test` does, after the parallel run)"))
        path = item.path.relative_to(TESTS).as_posix()
        if path.startswith(DATABASE_FOLDERS) or DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.database)
        group = _group(path)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(autouse=True)
def _database_tests_are_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that connects to a database without the `database` marker (see the module's docstring)."""
    if request.node.get_closest_marker("database") is not None:
        yield
        return
    connected: list[str] = []

    def record(connection: sa.Connection) -> None:
        connected.append(connection.engine.url.render_as_string(hide_password=True))

    sa.event.listen(sa.engine.Engine, "engine_connect", record)
    try:
        yield
    finally:
        sa.event.remove(sa.engine.Engine, "engine_connect", record)
    if connected:
        pytest.fail(f"opened a database ({connected[0]}) without the `database` marker: add "
                    "`pytestmark = pytest.mark.database` to the module, or use the `app` fixture")
