"""Template globals that hand the pictures (grader.pictures) their data: a variant's numbers and
what the learner may see of them. The markup is in templates/learn/_pictures.html."""

from __future__ import annotations

import numpy as np
from flask import Flask

from grader.answers.numbers import AnswerFormatError
from grader.answers.kinds import KINDS
from grader.answers.results import PartResult
from grader.catalog.display import MINUS, notation
from grader.catalog.variants import PartVariant, Variant
from grader.pictures import Comparison, comparison, variant_pictures
from grader.web.i18n import current_locale

COMPARED = ("vector", "matrix")


def answer_comparison(variant: Variant, part: PartVariant, result: PartResult | None, typed: str | None,
                      reveal: bool) -> Comparison | None:  # fmt: skip
    """Expected against the learner's answer, entry by entry, for a wrong vector or matrix part; None
    unless `reveal` (the page shows the solution anyway) and the answer can be read."""
    if not reveal or result is None or result.status != "incorrect" or part.spec.type not in COMPARED or not typed:
        return None
    # The numbers the worked solution prints (the page's route), so the picture agrees with it.
    expected = variant.quantities[part.spec.quantity]
    if part.spec.entry is not None:
        expected = np.asarray(expected)[part.spec.entry]
    try:
        yours = KINDS[part.spec.type].parse(typed, part.target.exact).values
    except AnswerFormatError:
        return None
    return comparison(expected, yours, result.wrong_entries)


def fixed(value: float, decimals: int = 3) -> str:
    """A number with exactly `decimals` places in the page's notation: the entries of a drawn vector line
    up (−1.000 beside 0.291, where the prompt's shown() would write −1)."""
    text = f"{value:.{decimals}f}"
    if text.startswith("-") and text.strip("-0.") == "":
        text = text[1:]  # no "negative zero" after rounding
    return text.replace("-", MINUS).replace(".", notation(current_locale()).decimal)


def register_pictures(app: Flask) -> None:
    """Make the picture helpers available to templates."""
    app.jinja_env.globals.update(exercise_pictures=variant_pictures, answer_comparison=answer_comparison)
    app.jinja_env.filters["fixed"] = fixed

