"""The exercises the README shows as templates (numeric, then code) are valid, pass the self-check and
clash with no shipped id."""

from __future__ import annotations

import re
from pathlib import Path

from grader.catalog.loader import load_specs, spec_from_text
from grader.catalog.selfcheck import check_spec
from grader.codecheck.selfcheck import check_code_spec
from grader.codecheck.spec import code_spec_from_text, load_code_specs

ROOT = Path(__file__).resolve().parents[2]


def readme_examples() -> list[str]:
    """The YAML blocks under "Adding an exercise" in the README."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Adding an exercise", 1)[1]
    return re.findall(r"```yaml\n(.*?)```", section.split("\n## ", 1)[0], re.S)


def test_the_readme_example_is_a_valid_new_exercise() -> None:
    spec, errors = spec_from_text(readme_examples()[0], "README.md")
    assert errors == [] and spec is not None
    report = check_spec(spec, range(20))
    assert report.failures == [], report.failures
    shipped, _ = load_specs(ROOT / "exercises")
    assert spec.id not in {s.id for s in shipped}
    assert spec.translations["pt"].title and spec.label_in("h", "pt") == "soma h₅"


def test_the_readme_code_example_is_a_valid_new_code_exercise() -> None:
    examples = readme_examples()
    assert len(examples) == 2
    spec, errors = code_spec_from_text(examples[1], "README.md")
    assert errors == [] and spec is not None
    assert check_code_spec(spec, range(5)).failures == []
    shipped, _ = load_code_specs(ROOT / "exercises")
    assert spec.id not in {s.id for s in shipped} and spec.translations["pt"].title == "GELU, em código"
