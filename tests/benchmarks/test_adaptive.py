"""benchmarks/adaptive.py end to end, small: 2 learners, a few attempts each, against live gunicorns.

No figure is checked (no timings in tests): only that every tutor drove its learners through the API to the
attempt limit and that the script prints its parameters and its last line as documented.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.web.conftest import SERVER_DATABASE

ROOT = Path(__file__).resolve().parents[2]
LEARNERS, ATTEMPTS = 2, 5
# It starts gunicorn (three times) and makes databases: one at a time, on the PostgreSQL pass too.
pytestmark = [pytest.mark.database, pytest.mark.xdist_group("exclusive")]


def run_benchmark() -> list[str]:
    argv = [sys.executable, str(ROOT / "benchmarks" / "adaptive.py"), "--learners", str(LEARNERS),
            "--max-attempts", str(ATTEMPTS), "--seed", "7"]  # fmt: skip
    if SERVER_DATABASE:
        argv += ["--postgres", SERVER_DATABASE]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_the_simulation_runs_every_tutor_through_the_api_and_ends_with_the_ratio() -> None:
    lines = run_benchmark()
    assert lines[0].startswith(f"seed 7, {LEARNERS} learners, at most {ATTEMPTS} attempts each")
    assert any(line.startswith("model: P(L0) ~ U(0.05, 0.35)") for line in lines)
    assert "left out block-gelu" in "\n".join(lines)
    by_tutor = {line.split()[0]: line for line in lines if line.split()[0] in ("fixed", "random", "adaptive")}
    # Nobody masters 11 skills in 5 attempts: each learner uses them all, each attempt one GET and one POST
    # (and the adaptive tutor's GET /practice/next before it).
    for tutor, per_attempt in (("fixed", 2), ("random", 2), ("adaptive", 3)):
        assert f"reached within 200: 0/{LEARNERS} = 0.00; within {ATTEMPTS}: 0/{LEARNERS}" in by_tutor[tutor], by_tutor[tutor]
        assert f" {LEARNERS * ATTEMPTS * per_attempt} requests in " in by_tutor[tutor], by_tutor[tutor]
    assert re.fullmatch(r"adaptive/fixed attempts to mastery: \d+\.\d\d", lines[-1]), lines[-1]
