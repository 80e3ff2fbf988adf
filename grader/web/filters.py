"""Template helpers: Markdown with math, the syntax hint of a part type, friendly dates."""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from markupsafe import Markup

from grader.answers.syntax import syntax_hint
from grader.markup import render_markdown


def markdown(text: str) -> Markup:
    """Markdown + LaTeX as sanitised HTML."""
    return Markup(render_markdown(text))  # noqa: S704 - sanitised by nh3 in render_markdown


def when(moment: datetime | None) -> str:
    """A compact UTC timestamp."""
    return moment.strftime("%d %b %Y, %H:%M") if moment else ""


def percent(score: float | None) -> str:
    """A score as a whole percentage."""
    return "" if score is None else f"{round(score * 100)} %"


def register_filters(app: Flask) -> None:
    """Add the filters to Jinja."""
    app.jinja_env.filters.update(markdown=markdown, syntax_hint=syntax_hint, when=when, percent=percent)
