"""English texts meant for people, kept translatable without any web or translation machinery.

The web layer looks them up in the page's language (grader/web/i18n.py); `make messages` finds
them through babel.cfg: N_(...) marks a fixed text, and a Refusal subclass's first argument is one.
"""

from __future__ import annotations


def N_(text: str) -> str:  # noqa: N802 - the conventional gettext marker name
    """Mark a fixed English text for translation where it is shown; returns it unchanged."""
    return text


class Refusal(ValueError):
    """A request refused for a reason the user can fix: an English message template and its values.

    `str()` gives the English text; the web layer translates the template and fills in the values.
    """

    def __init__(self, template: str, **values: object) -> None:
        super().__init__(template % values if values else template)
        self.template = template
        self.values = values
