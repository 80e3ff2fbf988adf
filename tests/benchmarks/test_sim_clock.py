"""The adaptive benchmark's simulated calendar: a request's X-Simulated-Days moves the service's clock for it alone."""

from __future__ import annotations

import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

from werkzeug.test import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import sim_clock  # noqa: E402


def clock(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [datetime.now(timezone.utc).isoformat().encode()]


def served_at(headers: dict[str, str]) -> datetime:
    return datetime.fromisoformat(Client(sim_clock.on_simulated_days(clock)).get("/", headers=headers).get_data(as_text=True))


def test_a_request_is_served_that_many_days_ahead_and_the_next_one_at_the_real_time() -> None:
    now = datetime.now(timezone.utc)
    assert served_at({"X-Simulated-Days": "3"}) - now > timedelta(days=3) - timedelta(minutes=5)
    assert served_at({"X-Simulated-Days": "3"}) - now < timedelta(days=3) + timedelta(minutes=5)
    assert abs(served_at({}) - now) < timedelta(minutes=5)  # the clock is back


def test_a_malformed_negative_or_absurd_header_is_ignored() -> None:
    now = datetime.now(timezone.utc)
    for value in ("soon", "-2", "1e9", "nan"):
        assert abs(served_at({"X-Simulated-Days": value}) - now) < timedelta(minutes=5), value
