"""Statements that differ by database: upserts and conflict handling, built once per dialect; and
the write that locks rows on both."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import InstrumentedAttribute

from grader.extensions import db

Statement = TypeVar("Statement")
DIALECTS = {"postgresql": postgresql, "sqlite": sqlite}


def per_dialect(build: Callable[[Any], Statement]) -> dict[str, Statement]:
    """`build(dialect module)` for every supported database, keyed by dialect name."""
    return {name: build(module) for name, module in DIALECTS.items()}


def for_session(statements: dict[str, Statement]) -> Statement:
    """The statement for the database the session is bound to."""
    return statements[db.session.get_bind().dialect.name]


def lock_rows(column: InstrumentedAttribute[Any], *where: sa.ColumnElement[bool]) -> None:
    """Lock the rows `where` picks until the transaction ends, by setting `column` to itself.

    A write that changes nothing: SQLite takes its database write lock before any read that follows,
    PostgreSQL locks the rows, so two transactions that start here run one after the other.
    """
    db.session.execute(sa.update(column.class_).where(*where).values({column: column}))
