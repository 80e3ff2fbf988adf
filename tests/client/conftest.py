"""A live service for the client's tests: gunicorn on a fresh database, grading code in the real sandbox, with rate
limits on (counted in a file of the test's own), and grader_client.py downloaded from it as a learner would."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.models import ApiToken, Attempt, utcnow
from grader.code_models import Submission
from grader.services import accounts, api_tokens, attempts
from tests.queue.support import Gunicorn, env_for
from tests.web.conftest import PASSWORD, build_app, empty_database, seat


@dataclass(frozen=True)
class Service:
    """The running service, the app on its database (to set things up and count rows), and the client file."""

    base: str
    app: Flask
    directory: Path
    client: Path

    def learner(self, email: str, days: int | None = 30) -> str:
        """A new learner account and a token of theirs."""
        with self.app.app_context():
            user = accounts.create_user(email, PASSWORD)
            token = api_tokens.create_token(user, "tests", days)
            db.engine.dispose()
        return token

    def expire(self, email: str) -> None:
        """Make every token of the learner one that expired yesterday."""
        with self.app.app_context():
            user = accounts.user_by_email(email)
            assert user is not None
            db.session.execute(sa.update(ApiToken).where(ApiToken.user_id == user.id)
                               .values(expires_at=utcnow() - timedelta(days=1)))  # fmt: skip
            db.session.commit()
            db.engine.dispose()

    def stored(self, email: str) -> tuple[int, int]:
        """How many attempts and code submissions the learner has."""
        with self.app.app_context():
            user = accounts.user_by_email(email)
            assert user is not None
            counts = tuple(db.session.scalar(sa.select(sa.func.count()).select_from(table)
                                             .where(table.user_id == user.id)) or 0
                           for table in (Attempt, Submission))  # fmt: skip
            db.engine.dispose()
        return counts[0], counts[1]

    def answers(self, email: str, exercise: str) -> dict[str, Any]:
        """The learner's right answers to their own variant."""
        with self.app.app_context():
            user = accounts.user_by_email(email)
            assert user is not None
            parts = attempts.learner_variant(seat(user.id), exercise)[1].parts
            found = {p.spec.id: p.answer_json() for p in parts}
            db.engine.dispose()
        return found

    def run(self, *args: str, token: str, client: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        """`python grader_client.py ARGS` in a terminal with GRADER_URL and GRADER_TOKEN set."""
        full = {"PATH": "/usr/bin:/bin", "GRADER_URL": self.base, "GRADER_TOKEN": token, **env}
        return subprocess.run([sys.executable, str(client or self.client), *args], cwd=self.directory, env=full,
                              capture_output=True, text=True, timeout=300)  # fmt: skip


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    directory = tmp_path_factory.mktemp("client")
    with empty_database(directory) as url:
        app = build_app(directory, SQLALCHEMY_DATABASE_URI=url)
        with app.app_context():
            db.engine.dispose()
        env = env_for(url, GRADER_RATELIMIT_STORAGE=f"sqlite:///{directory / 'rate-limits.db'}")
        server = Gunicorn(env, directory, workers=1)
        try:
            server.wait_ready()
            client = directory / "grader_client.py"
            with urllib.request.urlopen(f"{server.base}/api/v1/client.py", timeout=30) as reply:
                client.write_bytes(reply.read())
            yield Service(server.base, app, directory, client)
        finally:
            server.stop()
            with app.app_context():
                db.engine.dispose()
