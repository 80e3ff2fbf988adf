"""Statements that differ by database: upserts and conflict handling, built once per dialect."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from sqlalchemy.dialects import postgresql, sqlite

from grader.extensions import db

Statement = TypeVar("Statement")
DIALECTS = {"postgresql": postgresql, "sqlite": sqlite}


def per_dialect(build: Callable[[Any], Statement]) -> dict[str, Statement]:
    """`build(dialect module)` for every supported database, keyed by dialect name."""
    return {name: build(module) for name, module in DIALECTS.items()}


def for_session(statements: dict[str, Statement]) -> Statement:
    """The statement for the database the session is bound to."""
    return statements[db.session.get_bind().dialect.name]
