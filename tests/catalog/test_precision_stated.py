"""Every prompt that asks for a real number says to what precision, in every language it is shown in (issue 30).

The rule, checked over the whole catalogue: for each real-valued part (a scalar, vector, matrix or fraction
that is not asked for exactly), the precision its tolerance asks for (grader.answers.tolerance: a number of
decimals, or of significant figures) must be written out in the prompt, as "3 decimals" / "3 casas
decimais" / "3 знаков после запятой" or "3 significant figures" / "3 algarismos significativos" /
"3 значащими цифрами".
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from grader.answers.kinds import KINDS, NumericKind
from grader.answers.tolerance import decimal_places
from grader.catalog.catalog import Catalog

# How each language states a count of decimals or of significant figures ({n}: the count).
DECIMALS = {
    "en": r"{n}\s+decimal(s|\s+places?)?\b",
    "pt": r"{n}\s+casas?(\s+decimais|\s+decimal)?\b",
    "ru": r"{n}\s+знак(а|ов)?(\s+после\s+запятой)?",
}
FIGURES = {
    "en": r"{n}\s+significant\s+figures?",
    "pt": r"{n}\s+algarismos?\s+significativos?",
    "ru": r"{n}\s+значащ(ими|их|ие|ая|ей)\s+цифр(ами|ы|а)?",
}


def _numeric_exercises() -> list[str]:
    loaded, _ = Catalog.from_directory()
    return sorted(spec.id for spec in loaded if spec.kind == "numeric")


def _asked(part: object, catalog: Catalog, exercise: str) -> tuple[str, int] | None:
    """("decimals", n) or ("figures", n) a real-valued part asks for, or None (a count, an exact value)."""
    spec = part.spec  # type: ignore[attr-defined]
    kind = KINDS[spec.type]
    if not isinstance(kind, NumericKind) or kind.integral or spec.tolerance.exact:
        return None
    if spec.tolerance.sigfigs:
        return "figures", spec.tolerance.sigfigs
    decimals = decimal_places(part.tolerance, np.asarray(part.answer_json(), dtype=float), False)  # type: ignore[attr-defined]
    return ("decimals", decimals) if decimals is not None else None


@pytest.mark.parametrize("exercise", _numeric_exercises())
@pytest.mark.parametrize("locale", ["en", "pt", "ru"])
def test_each_real_valued_part_has_its_precision_in_the_prompt(catalog: Catalog, exercise: str, locale: str) -> None:
    variant = catalog.variant(exercise, 0)
    prompt = variant.prompt_in(locale)
    unsaid = []
    for part in variant.parts:
        asked = _asked(part, catalog, exercise)
        if asked is None:
            continue
        way, count = asked
        pattern = (DECIMALS if way == "decimals" else FIGURES)[locale].format(n=count)
        if not re.search(r"(?<![\d,.])" + pattern, prompt):
            unsaid.append(f"{part.spec.id}: {count} {way}")
    assert unsaid == [], f"{exercise} ({locale}) does not say {unsaid} in its prompt:\n{prompt}"


def test_the_rule_finds_a_prompt_without_its_precision(catalog: Catalog) -> None:
    # The check is not vacuous: the block's LayerNorm prompt with its precision sentence taken out fails it.
    variant = catalog.variant("block-layernorm", 0)
    cut = re.sub(DECIMALS["en"].format(n=3), "", variant.prompt)
    assert not re.search(DECIMALS["en"].format(n=3), cut)
    assert any(_asked(p, catalog, "block-layernorm") == ("decimals", 3) for p in variant.parts)
