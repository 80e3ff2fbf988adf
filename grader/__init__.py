"""grader: an automated quiz and grading service for learning how a transformer block works."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web application; it reads settings from the environment and writes no data."""
    # Imported here so the pure core (grader.reference, grader.answers, grader.catalog) never
    # pulls in Flask or SQLAlchemy.
    from grader.web.app import build_app

    return build_app(config)
