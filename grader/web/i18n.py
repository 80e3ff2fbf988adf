"""The languages of the pages: which one a request gets, and remembering a person's choice.

The choice lives in the session cookie (so an error page never needs the database to pick a
language) and, for a signed-in user, in `users.locale`, which is copied into the session at login.
The JSON API always answers in English: its messages are for programs as much as for people.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, g, request, session
from flask_babel import Babel, get_locale, get_translations
from jinja2 import pass_context
from markupsafe import Markup

from grader.catalog.display import notation
from grader.texts import Text

LANGUAGES = {"en": "English", "pt": "Português", "ru": "Русский"}
DEFAULT = "en"
SESSION_KEY = "locale"

babel = Babel()


def supported(locale: str | None) -> str | None:
    """The locale if the pages are translated into it, else None."""
    return locale if locale in LANGUAGES else None


def is_api_request() -> bool:
    """Whether the request is the API's: JSON, and in English whatever the client's languages."""
    return request.path == "/api" or request.path.startswith("/api/")


# Pages for people under /api (the API reference) speak the reader's language, as every other page does.
API_PAGES = frozenset({"api.reference"})


def request_locale() -> str:
    """The session's choice, else the browser's best match among ours, else English (always for the API)."""
    if is_api_request() and request.endpoint not in API_PAGES:
        return DEFAULT
    chosen = supported(session.get(SESSION_KEY))
    return chosen or request.accept_languages.best_match(LANGUAGES.keys(), DEFAULT) or DEFAULT


def remember(locale: str) -> None:
    """Use this language for the rest of the session."""
    session[SESSION_KEY] = locale


def init_i18n(app: Flask) -> None:
    """Bind Flask-Babel (catalogues in grader/web/translations) and expose the language list to templates."""
    babel.init_app(app, locale_selector=request_locale)
    app.jinja_env.globals.update(LANGUAGES=LANGUAGES, current_locale=current_locale)
    app.context_processor(_page_translations)


def _page_translations() -> dict[str, Any]:
    # Flask-Babel's template functions look the catalogue up again on every call, a page makes
    # a hundred of them; these look it up once per page. Same behaviour as Jinja's newstyle
    # gettext: the text is trusted markup, the values are escaped.
    found = get_translations()

    @pass_context
    def gettext(context: Any, text: str, **values: Any) -> str:
        chosen = found.ugettext(text)
        return (Markup(chosen) if context.eval_ctx.autoescape else chosen) % values

    @pass_context
    def ngettext(context: Any, singular: str, plural: str, num: int, **values: Any) -> str:
        chosen = found.ungettext(singular, plural, num)
        return (Markup(chosen) if context.eval_ctx.autoescape else chosen) % {"num": num, **values}

    return {"_": gettext, "gettext": gettext, "ngettext": ngettext}


def current_locale() -> str:
    """This request's language code, worked out once (pages ask for it for every title they show)."""
    if "locale_code" not in g:
        g.locale_code = str(get_locale() or DEFAULT)
    code: str = g.locale_code
    return code


def translated(text: Text | str) -> str:
    """A sentence of the core or a service (or one of its fixed phrases) in the page's language."""
    translations = get_translations()
    if isinstance(text, str):
        return translations.ugettext(text) if text else ""  # "" would look up the catalogue's header
    return text.render(translations.ugettext, translations.ungettext, notation(str(get_locale())).decimal)
