"""The operators' pages give commands that work as written (docs/operators/)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OPERATORS = ROOT / "docs" / "operators"
SETTING = re.compile(r"^(GRADER_[A-Z0-9_]+)=(.*)$", re.M)


def settings_with_inline_comments(text: str) -> list[str]:
    """Environment-file lines whose value carries a "# ..." comment, which systemd keeps as part of it."""
    return [f"{name}={value}" for name, value in SETTING.findall(text) if "#" in value]


def test_environment_file_examples_put_comments_on_lines_of_their_own() -> None:
    # systemd's EnvironmentFile= has no inline comments: GRADER_TRUSTED_PROXIES=1 # ... is not a number.
    found = {page.name: settings_with_inline_comments(page.read_text(encoding="utf-8")) for page in OPERATORS.glob("*.md")}
    assert {page: lines for page, lines in found.items() if lines} == {}
    assert "GRADER_TRUSTED_PROXIES=1" in (OPERATORS / "scaling-out.md").read_text(encoding="utf-8")


def test_the_inline_comment_check_sees_one() -> None:
    assert settings_with_inline_comments("GRADER_TRUSTED_PROXIES=1          # one proxy\nGRADER_X=2\n") == [
        "GRADER_TRUSTED_PROXIES=1          # one proxy"]


def test_every_host_installs_with_make_install_not_a_bare_pip_install() -> None:
    # A bare pip install leaves the compiled translations (.mo, ignored by git) missing or stale.
    for name in ("upgrades.md", "scaling-out.md"):
        text = (OPERATORS / name).read_text(encoding="utf-8")
        assert "make install" in text, name
        assert text.count("pip install") == text.count("pip install -r requirements.txt` alone would"), name  # a warning
    steps = (OPERATORS / "upgrades.md").read_text(encoding="utf-8")
    # The old release stops before the migrations run, and starts only after.
    assert steps.index("systemctl stop") < steps.index("db upgrade &&") < steps.index("systemctl start")
