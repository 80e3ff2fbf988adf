"""The host's reading of a wall-clock stop (outcome.assemble): the busy host's doing, or the code's."""

from __future__ import annotations

from typing import Any

import pytest

from grader.sandbox import Limits, codec, outcome
from grader.sandbox.collector import JobOutcome

LIMITS = Limits(cpu_seconds=1.0, wall_seconds=3.0)
COMPILED = codec.frame(codec.encode({"kind": "compiled"}))


def _stopped(**report: Any) -> JobOutcome:
    """A job the zygote's wall clock stopped in its first case, with the zygote's figures."""
    done = {"op": "done", "exit_code": None, "signal": 9, "timed_out": True, "cpu_seconds": 0.1,
            "maxrss_bytes": 1 << 20, "wall_seconds": 3.2, "clean": True, **report}
    return JobOutcome(results=COMPILED, done=done)


def test_a_job_that_waited_for_a_cpu_short_of_its_cpu_limit_was_starved() -> None:
    result = outcome.assemble(_stopped(job_cpu_seconds=0.2, waited_seconds=2.4), 2, LIMITS, 3200.0)
    assert (result.status, result.facts["cause"], result.facts["case"]) == ("starved", "starved", 0)
    assert [case.status for case in result.cases] == ["timeout", "timeout"]
    assert "too busy" in result.message and "0.20 s of CPU" in result.message


@pytest.mark.parametrize("report", [
    {"job_cpu_seconds": 1.3, "waited_seconds": 2.5},  # its processes used its CPU limit between them
    {"job_cpu_seconds": 0.01, "waited_seconds": 0.3},  # it slept, or blocked: not waiting for a CPU
    {"job_cpu_seconds": None, "waited_seconds": None},  # no figures (a zygote of an older install)
    {"job_cpu_seconds": "0", "waited_seconds": [3]},  # nonsense is no evidence either
    {},
])
def test_any_other_wall_clock_stop_is_a_timeout(report: dict[str, Any]) -> None:
    result = outcome.assemble(_stopped(**report), 2, LIMITS, 3200.0)
    assert (result.status, result.facts["cause"]) == ("timeout", "wall")


def test_a_slot_that_never_reported_is_a_timeout() -> None:
    result = outcome.assemble(JobOutcome(results=COMPILED, failure="host_timeout"), 1, LIMITS, 6300.0)
    assert (result.status, result.facts["cause"]) == ("timeout", "wall")
