"""An exercise's texts in other languages: what an exercise file may translate, and reading them back."""

from __future__ import annotations

from typing import Annotated, Mapping

from pydantic import AfterValidator, Field, field_validator

from grader.catalog.strict import Strict
from grader.markup import math_problems
from grader.texts import Refusal

Locale = Annotated[str, Field(pattern=r"^[a-z]{2}$")]


class CodeTranslation(Strict):
    """A code exercise's title and prompt in another language; what is left out stays as written."""

    title: str | None = Field(default=None, min_length=1)
    prompt: str | None = Field(default=None, min_length=1)

    @field_validator("prompt")
    @classmethod
    def _renders(cls, value: str | None) -> str | None:
        for problem in math_problems(value or ""):
            raise ValueError(problem)
        return value


def _written(text: str) -> str:
    # Blank would hide the English label behind nothing; leaving the part out keeps the English.
    if not text.strip():
        raise Refusal("give the label's text, or leave the part out to keep its English label")
    return text


Label = Annotated[str, AfterValidator(_written)]


class Translation(CodeTranslation):
    """A numeric exercise's title, prompt, worked solution and part labels in another language (same placeholders)."""

    solution: list[str] | None = None
    labels: dict[str, Label] = {}  # part id -> label; a part left out keeps its English label


class Localised:
    """Title and prompt in the reader's language, for a spec with `translations`."""

    title: str
    prompt: str
    translations: Mapping[str, CodeTranslation]

    def title_in(self, locale: str) -> str:
        """The title in `locale` if the exercise has one there, else as written."""
        found = self.translations.get(locale)
        return found.title if found is not None and found.title else self.title

    def prompt_in(self, locale: str) -> str:
        """The prompt (a template, for numeric exercises) in `locale` if there is one, else as written."""
        found = self.translations.get(locale)
        return found.prompt if found is not None and found.prompt else self.prompt
