"""Instructor pages (placeholder until the instructor area lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("teach", __name__, url_prefix="/teach")


@bp.get("/exercises")
def exercises() -> str:
    """Exercise list."""
    return ""


@bp.get("/gradebook")
def gradebook() -> str:
    """Gradebook."""
    return ""
