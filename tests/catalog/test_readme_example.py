"""The exercise the README shows as a template is valid, passes the self-check and clashes with no shipped id."""

from __future__ import annotations

import re
from pathlib import Path

from grader.catalog.loader import load_specs, spec_from_text
from grader.catalog.selfcheck import check_spec

ROOT = Path(__file__).resolve().parents[2]


def readme_example() -> str:
    """The YAML block under "Adding an exercise" in the README."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Adding an exercise", 1)[1]
    found = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert found, "no YAML example under 'Adding an exercise'"
    return found.group(1)


def test_the_readme_example_is_a_valid_new_exercise() -> None:
    spec, errors = spec_from_text(readme_example(), "README.md")
    assert errors == [] and spec is not None
    report = check_spec(spec, range(20))
    assert report.failures == [], report.failures
    shipped, _ = load_specs(ROOT / "exercises")
    assert spec.id not in {s.id for s in shipped}
    assert spec.translations["pt"].title and spec.label_in("h", "pt") == "soma h₅"
