"""Hostile output: whatever a submission prints or raises, every JSON the CLI writes parses.

The CLI shows hidden characters as escapes so they cannot drive a terminal; those escapes must be
JSON's own. A character beyond the first plane written as \\U000103ff inside a JSON string made
`grade-code --json` print text no JSON parser reads.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from grader.visible import visible_json
from tests.layer_norm_sources import GOOD

ROOT = Path(__file__).resolve().parents[2]
# NUL, an unassigned code point beyond the first plane, lone surrogates, a bidi override, ESC.
NASTY = "a\ud800b\x00c\U000103ffd\udfff\u202e\x1b[2J"


def _grade_json(tmp_path: Path, body: str) -> dict[str, object]:
    submission = tmp_path / "mine.py"
    submission.write_text(GOOD.replace("    mu =", body + "    mu =", 1), encoding="utf-8", errors="surrogatepass")
    result = subprocess.run([sys.executable, "-m", "grader", "grade-code", "code-layer-norm", str(submission), "--json"],
                            cwd=ROOT, capture_output=True, timeout=120)  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode("utf-8")  # strict: valid UTF-8
    assert not any(c in text for c in "\x00\x1b\u202e")  # hidden characters stay escaped
    parsed: dict[str, object] = json.loads(text)
    return parsed


def test_grade_code_json_parses_whatever_the_submission_printed(tmp_path: Path) -> None:
    parsed = _grade_json(tmp_path, f"    import sys\n    sys.stdout.write({NASTY!r})\n")
    printed = parsed["cases"][0]["printed"]  # type: ignore[index]
    # The sandbox writes a lone surrogate as its backslash escape; the rest arrives as printed.
    assert printed == "a\\ud800b\x00c\U000103ffd\\udfff\u202e\x1b[2J"


def test_grade_code_json_parses_whatever_the_submission_raised(tmp_path: Path) -> None:
    parsed = _grade_json(tmp_path, f"    raise ValueError({NASTY!r})\n")
    assert parsed["status"] == "failed"
    assert "c\U000103ffd" in parsed["cases"][0]["message"]  # type: ignore[index]


def test_visible_json_escapes_lone_surrogates_and_far_planes_as_json_does() -> None:
    text = visible_json({"k\u202e": ["\ud800", "\U000103ff", "\x00", "é\U0001f600"]}, indent=None)
    assert text == '{"k\\u202e": ["\\ud800", "\\ud800\\udfff", "\\u0000", "é\U0001f600"]}'
    assert json.loads(text) == {"k\u202e": ["\ud800", "\U000103ff", "\x00", "é\U0001f600"]}
    text.encode("utf-8")  # no lone surrogate left to refuse
