"""JSON API (placeholder until the API lands)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")
