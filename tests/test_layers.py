"""The pure core imports neither Flask nor SQLAlchemy (nor the translation machinery)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PURE = ["grader.texts", "grader.reference", "grader.answers.kinds", "grader.answers.syntax", "grader.catalog.catalog",
        "grader.catalog.selfcheck", "grader.catalog.misconceptions", "grader.catalog.policy", "grader.codecheck.verdict",
        "grader.codecheck.selfcheck", "grader.pictures", "grader.grade_events", "grader.catalog.skills",
        "grader.adaptive.bkt", "grader.adaptive.model", "grader.adaptive.choose", "grader.adaptive.evidence"]  # fmt: skip
# The sandbox's pool (processes, threads, bwrap) is the services' to start, never the pure core's. Babel itself may
# load: its CLDR plural rules are plain data the core needs to word exercise texts (grader.catalog.plurals); the
# translation catalogues, Flask-Babel's, stay the web's.
WEB_ONLY = ["flask", "sqlalchemy", "flask_babel", "babel.support", "werkzeug", "grader.sandbox.pool"]


@pytest.mark.parametrize("module", PURE)
def test_a_core_module_loads_without_the_web_or_database_layers(module: str) -> None:
    probe = f"import sys, {module}; print(sorted(m for m in {WEB_ONLY!r} if m in sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", f"{module} pulls in {loaded.strip()}"
