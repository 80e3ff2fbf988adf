"""Template helpers: Markdown with math, hints and feedback in the page's language, friendly dates."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

from babel.lists import format_list
from flask import Flask
from flask_babel import format_datetime, gettext
from markupsafe import Markup, escape

from grader import visible as hidden

from grader.answers.results import PartResult
from grader.answers.syntax import syntax_hint
from grader.catalog.display import notation, show
from grader.catalog.loader import SpecError
from grader.catalog.variants import PartVariant
from grader.markup import render_markdown
from grader.web.i18n import current_locale, translated
from grader.web.pictures import register_pictures


def markdown(text: str) -> Markup:
    """Markdown + LaTeX as sanitised HTML, its formulas named in the page's language."""
    return Markup(render_markdown(text, current_locale()))  # noqa: S704 - sanitised by nh3 in render_markdown


def visible(text: str | None) -> Markup:
    """Learner text for a page: each hidden or text-direction character as its escape (\\u202e), marked
    and named on hover, the rest escaped as usual (grader/visible.py)."""
    out = Markup("")
    for piece, is_hidden in hidden.split(text or ""):
        if is_hidden:
            out += Markup('<span class="hidden-char" title="{}">{}</span>').format(hidden.describe(piece),
                                                                                 hidden.escape(piece))  # fmt: skip
        else:
            out += escape(piece)
    return out


def hidden_count(text: str | None) -> int:
    """How many hidden or text-direction characters `text` holds (for a warning above it)."""
    return len(hidden.hidden_in(text or ""))


def when(moment: datetime | None) -> str:
    """A compact UTC timestamp, with the month named in the page's language."""
    return format_datetime(moment, "dd MMM y, HH:mm") if moment else ""


def utc_time(moment: datetime | None) -> Markup:
    """A UTC moment, labelled UTC for pages without JavaScript; app.js shows it in the reader's own zone."""
    if moment is None:
        return Markup("")
    iso = moment.isoformat(timespec="seconds")
    return Markup('<time class="local-time" datetime="{}Z">{} UTC</time>').format(iso, when(moment))


def shown(value: Any) -> str:
    """A reference value (an expected answer) written as the page's language writes numbers."""
    return show(value, style=notation(current_locale()))


def percent(score: float | None, places: int = 0) -> str:
    """A score as a percentage, whole unless `places` are asked for, in the page's decimal mark."""
    if score is None:
        return ""
    number = f"{round(score * 100, places):g}" if places else str(round(score * 100))
    return number.replace(".", notation(current_locale()).decimal) + "\u00a0%"  # no break before the sign


def typing_hint(part: str | PartVariant) -> str:
    """What learners may type for a part (fitted to its answer: a count of 3 gets no 41,943,040), or for
    a kind of answer when given its name, in the page's language."""
    if isinstance(part, str):
        return translated(syntax_hint(part))
    return translated(syntax_hint(part.spec.type, part.target.exact))


def feedback(result: PartResult) -> str:
    """A part's verdict message in the page's language (attempts stored before it kept only English)."""
    return translated(result.text if result.text is not None else result.message)


# Checked in order: Edge and Opera also say Chrome, Chrome also says Safari.
_BROWSERS = (("Edg/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"),
             ("Chrome/", "Chrome"), ("CriOS/", "Chrome"), ("Safari/", "Safari"))  # fmt: skip
_SYSTEMS = (("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iPadOS"), ("Windows", "Windows"),
            ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"), ("Linux", "Linux"))  # fmt: skip


def browser(agent: str) -> str:
    """A short name for a User-Agent, such as "Firefox on Linux"; the start of it when not recognised."""
    name = next((label for mark, label in _BROWSERS if mark in agent), None)
    system = next((label for mark, label in _SYSTEMS if mark in agent), None)
    if name and system:
        return gettext("%(browser)s on %(system)s", browser=name, system=system)
    return name or system or agent[:60] or gettext("an unnamed browser")


def problem(error: SpecError) -> str:
    """An exercise's validation problem in the page's language (English where it has no translation)."""
    return translated(error.text) if error.text is not None else error.message


def titles(exercises: Iterable[Any]) -> str:
    """Exercises' titles in the page's language, each in the language's quotation marks, as one list
    ("“A”, “B” and “C”")."""
    locale = current_locale()
    quoted = [gettext("“%(title)s”", title=e.title_in(locale)) for e in exercises]
    return format_list(quoted, locale=locale)


def register_filters(app: Flask) -> None:
    """Add the filters to Jinja."""
    app.jinja_env.filters.update(markdown=markdown, syntax_hint=typing_hint, feedback=feedback, translated=translated,
                                 when=when, utc_time=utc_time, percent=percent, browser=browser,
                                 problem=problem, shown=shown, visible=visible, visible_text=hidden.visible,
                                 hidden_count=hidden_count, titles=titles)  # fmt: skip
    register_pictures(app)
