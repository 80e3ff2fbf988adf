"""The exercises the authoring guide (docs/instructors/authoring.md) shows as templates (numeric, then
code) are valid, pass the self-check and clash with no shipped id."""

from __future__ import annotations

import re
from pathlib import Path

from grader.catalog.loader import load_specs, spec_from_text
from grader.catalog.selfcheck import check_spec
from grader.codecheck.selfcheck import check_code_spec
from grader.codecheck.spec import code_spec_from_text, load_code_specs

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "instructors" / "authoring.md"


def guide_examples() -> list[str]:
    """The YAML blocks at the top of the authoring guide, before its first section."""
    page = GUIDE.read_text(encoding="utf-8")
    assert page.startswith("# Writing exercises\n")
    return re.findall(r"```yaml\n(.*?)```", page.split("\n## ", 1)[0], re.S)


def test_the_guides_example_is_a_valid_new_exercise() -> None:
    spec, errors = spec_from_text(guide_examples()[0], "authoring.md")
    assert errors == [] and spec is not None
    report = check_spec(spec, range(20))
    assert report.failures == [], report.failures
    shipped, _ = load_specs(ROOT / "exercises")
    assert spec.id not in {s.id for s in shipped}
    assert spec.translations["pt"].title and spec.label_in("h", "pt") == "soma h₅"


def test_the_guides_code_example_is_a_valid_new_code_exercise() -> None:
    examples = guide_examples()
    assert len(examples) == 2
    spec, errors = code_spec_from_text(examples[1], "authoring.md")
    assert errors == [] and spec is not None
    assert check_code_spec(spec, range(5)).failures == []
    shipped, _ = load_code_specs(ROOT / "exercises")
    assert spec.id not in {s.id for s in shipped} and spec.translations["pt"].title == "GELU, em código"
