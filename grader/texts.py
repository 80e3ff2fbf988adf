"""English texts meant for people, kept translatable without any web or translation machinery.

The web layer shows them in the page's language (grader/web/i18n.py). `make messages` finds them
through babel.cfg: N_(...) marks a fixed text, say(...) and say_n(...) build a sentence with
values, and a Refusal subclass's first argument is one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

Gettext = Callable[[str], str]
Ngettext = Callable[[str, str, int], str]


def N_(text: str) -> str:  # noqa: N802 - the conventional gettext marker name
    """Mark a fixed English text for translation where it is shown; returns it unchanged."""
    return text


def _as_is(text: str) -> str:
    return text


def _english(singular: str, plural: str, num: int) -> str:
    return singular if num == 1 else plural


@dataclass(frozen=True)
class Figure:
    """A decimal number inside a sentence, written with the reader's decimal mark (±0.0005, ±0,0005)."""

    english: str


@dataclass(frozen=True)
class Text:
    """A sentence: an English template, its values (plain, or Texts themselves), and for a count
    a plural template, picked by the value `num` as each language's plural rules say."""

    template: str
    values: Mapping[str, Any] = field(default_factory=dict)
    plural: str | None = None

    def render(self, gettext: Gettext = _as_is, ngettext: Ngettext = _english, decimal: str = ".") -> str:
        """The sentence with its values filled in, through the given translation functions."""
        values = {k: _rendered(v, gettext, ngettext, decimal) for k, v in self.values.items()}
        if self.plural is not None:
            chosen = ngettext(self.template, self.plural, int(values["num"]))
        else:  # gettext("") would be the catalogue's header
            chosen = gettext(self.template) if self.template else ""
        return chosen % values if values else chosen

    def __str__(self) -> str:
        return self.render()

    def to_json(self) -> dict[str, Any]:
        """Plain data for storing; from_json reads it back."""
        values = {k: _stored(v) for k, v in self.values.items()}
        return {"template": self.template, "values": values, "plural": self.plural}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Text:
        """Rebuild a stored sentence."""
        values = {k: _read(v) for k, v in data.get("values", {}).items()}
        return cls(str(data["template"]), values, data.get("plural"))


def _rendered(value: Any, gettext: Gettext, ngettext: Ngettext, decimal: str) -> Any:
    if isinstance(value, Text):
        return value.render(gettext, ngettext, decimal)
    return value.english.replace(".", decimal) if isinstance(value, Figure) else value


def _stored(value: Any) -> Any:
    if isinstance(value, Figure):
        return {"figure": value.english}
    return value.to_json() if isinstance(value, Text) else value


def _read(value: Any) -> Any:
    if isinstance(value, dict):
        return Figure(str(value["figure"])) if "figure" in value else Text.from_json(value)
    return value


def say(template: str, **values: Any) -> Text:
    """A sentence with named values, e.g. say("%(answer)s divides by zero", answer=q)."""
    return Text(template, values)


def say_n(singular: str, plural: str, num: int, **values: Any) -> Text:
    """A sentence about a count `num`, in the plural form each language needs."""
    return Text(singular, {"num": num, **values}, plural)


def say_from(template: str, needs: Sequence[str], found: Mapping[str, Any]) -> Text | None:
    """say(template) with the values it `needs` taken from `found`; None when one of them is missing."""
    if not all(name in found for name in needs):
        return None
    return say(template, **{name: found[name] for name in needs})


def joined(parts: Sequence[Text], separator: str) -> Text:
    """Sentences (or phrases) one after another, each translated on its own."""
    values = {f"part{i}": part for i, part in enumerate(parts)}
    return Text(separator.join(f"%(part{i})s" for i in range(len(parts))), values)


class Refusal(ValueError):
    """A request refused for a reason the user can fix; `.text` says why, `str()` in English."""

    def __init__(self, template: str | Text, **values: Any) -> None:
        self.text = template if isinstance(template, Text) else say(template, **values)
        super().__init__(str(self.text))
