""""Last seen" and "last used" times: convenience writes that must never fail the request they ride on."""

from __future__ import annotations

import logging

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from grader.extensions import db

log = logging.getLogger(__name__)


def record(statement: sa.Executable, what: str) -> None:
    """Run one such write in a transaction of its own and commit it.

    A database that cannot take it now (locked, read-only, full) leaves the old time and a warning in
    the log, and the request goes on. Whatever the session held uncommitted is discarded first: callers
    run this before a request's own work or after it has committed.
    """
    db.session.rollback()
    try:
        db.session.execute(statement)
        db.session.commit()
    except SQLAlchemyError as error:
        db.session.rollback()
        log.warning("%s not recorded: %s", what, type(error).__name__)
