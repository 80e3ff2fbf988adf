"""The service for benchmarks/adaptive.py, on each simulated learner's own calendar: `sim_clock:app` for gunicorn.

A simulated learner lives through days in minutes. So that what the service stores (attempt and evidence times,
fsrs review dates) follows those days, each request may say how many simulated days have passed for its learner
in the header X-Simulated-Days; the request is then served with the process's clock moved that far ahead
(time-machine). Only this benchmark's gunicorn loads this module: the service's own wsgi.py knows no such header.
Sync workers serve one request at a time per process, so one request's clock never leaks into another's request;
time-machine moves the whole process's clock, so this holds because the benchmark's requests start no background
work (no code exercise is simulated, no mail is sent).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable

import time_machine

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
HEADER = "HTTP_X_SIMULATED_DAYS"
MAX_DAYS = 3650.0  # a malformed or absurd header is ignored rather than served years ahead


def days_ahead(environ: dict[str, Any]) -> float:
    """The simulated days the request asks for (0 when absent, malformed, negative or absurd)."""
    try:
        days = float(environ.get(HEADER, "0"))
    except ValueError:
        return 0.0
    return days if 0.0 <= days <= MAX_DAYS else 0.0


def on_simulated_days(service: WSGIApp) -> WSGIApp:
    """`service`, with the clock moved ahead by the request's X-Simulated-Days for the whole request."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        days = days_ahead(environ)
        if days == 0.0:
            return service(environ, start_response)
        with time_machine.travel(time.time() + days * 86400.0, tick=True):
            body = service(environ, start_response)
            try:
                return list(body)  # the body is made inside the moved clock too
            finally:
                getattr(body, "close", lambda: None)()

    return app


def __getattr__(name: str) -> WSGIApp:
    # gunicorn loads `sim_clock:app`; the service is built only then, so a test can import the wrapper alone.
    if name == "app":
        from wsgi import app as service

        return on_simulated_days(service)
    raise AttributeError(name)
