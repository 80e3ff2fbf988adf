"""Shared helpers and fixtures for the API tests."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.answers.kinds import KINDS
from grader.extensions import db
from grader.models import Attempt
from grader.services import accounts, api_tokens, attempts
from tests.web.conftest import seat

API = "/api/v1"
EXERCISE = "block-layernorm"
ATTEMPTS = f"{API}/exercises/{EXERCISE}/attempts"
ADA = "ada@example.com"
MISTAKE = "normalise-x"  # recognised on every part of block-layernorm


def token_for(app: Flask, email: str = ADA, role: str = "learner") -> str:
    from tests.web.conftest import make_user

    if accounts_user(app, email) is None:
        make_user(app, email, role)
    with app.app_context():
        user = accounts.user_by_email(email)
        assert user is not None
        return api_tokens.create_token(user)


def accounts_user(app: Flask, email: str) -> int | None:
    """The id of the account with this email, if there is one."""
    with app.app_context():
        user = accounts.user_by_email(email)
        return None if user is None else user.id


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def answers_of(app: Flask, email: str = ADA, mistake: str | None = None) -> dict[str, Any]:
    """The learner's expected answers, or the answers a named mistake gives."""
    with app.app_context():
        user = accounts.user_by_email(email)
        assert user is not None
        parts = attempts.learner_variant(seat(user.id), EXERCISE)[1].parts
        if mistake is None:
            return {p.spec.id: p.answer_json() for p in parts}
        routes = {p.spec.id: next(m.routes[0] for m in p.target.mutants if m.name == mistake) for p in parts}
        return {p.spec.id: KINDS[p.spec.type].to_json(routes[p.spec.id]) for p in parts}


def typed(values: dict[str, Any]) -> dict[str, str]:
    """Answers written to 3 decimals, as a learner would type them."""
    def one(v: Any) -> str:
        return "[" + "; ".join(f"{x:.3f}" for x in v) + "]" if isinstance(v, list) else f"{v:.3f}"
    return {k: one(v) for k, v in values.items()}


def post(client: FlaskClient, token: str, answers: dict[str, str]) -> Any:
    return client.post(ATTEMPTS, headers=auth(token), json={"answers": answers})


def numbers_in(value: Any) -> set[float]:
    """Every number in a JSON value, including those written inside its strings."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return set().union(*map(numbers_in, value)) if value else set()
    if isinstance(value, str):
        return {float(n) for n in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", value.replace("\u2212", "-"))}
    return {float(value)} if isinstance(value, (int, float)) else set()


def attempt_rows(app: Flask) -> list[Attempt]:
    with app.app_context():
        return list(db.session.scalars(sa.select(Attempt).order_by(Attempt.id)))


def assert_error(response: Any, status: int, error: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.is_json and response.get_json()["error"] == error and response.get_json()["message"]
