"""Collecting one job's output: result pipe, output pipe and the zygote's report."""

from __future__ import annotations

import json
import os
import selectors
import socket
import time
from dataclasses import dataclass
from typing import Any

from .results import Limits

# After the zygote's report every writer of the pipes is dead; this bounds the last reads.
DRAIN_SECONDS = 1.0


@dataclass
class JobOutcome:
    """Raw material for a RunResult: result bytes, captured output, the zygote's report."""

    results: bytes = b""
    output: bytes = b""
    output_dropped: int = 0
    done: dict[str, Any] | None = None
    # "not_started" (the idle zygote was gone; safe to retry), "zygote_died",
    # "host_timeout" or "result_overflow".
    failure: str | None = None
    wall_seconds: float = 0.0


class Collector:
    """Reads the result pipe, output pipe and control socket of one job until all are done."""

    # Leeway over the result budget for frame headers; more than this is forged output.
    FRAMING_SLACK = 1 << 16

    def __init__(self, sock: socket.socket, res_r: int, out_r: int, limits: Limits) -> None:
        self.sock, self.res_r, self.out_r, self.limits = sock, res_r, out_r, limits
        self.outcome = JobOutcome()
        self.results = bytearray()
        self.output = bytearray()
        self.selector = selectors.DefaultSelector()

    def collect(self, deadline: float) -> JobOutcome:
        """Read until the zygote reports and both pipes close, or until `deadline`."""
        for key in (self.sock, self.res_r, self.out_r):
            self.selector.register(key, selectors.EVENT_READ)
        try:
            self._loop(deadline)
        finally:
            for registered in list(self.selector.get_map().values()):
                self._close(registered.fileobj)
            self.selector.close()
        self.outcome.results = bytes(self.results)
        self.outcome.output = bytes(self.output)
        return self.outcome

    def _loop(self, deadline: float) -> None:
        while len(self.selector.get_map()) > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if self.outcome.done is None and self.outcome.failure is None:
                    self.outcome.failure = "host_timeout"
                return
            for key, _events in self.selector.select(remaining):
                if key.fileobj is self.sock:
                    deadline = self._on_control(deadline)
                elif isinstance(key.fileobj, int):
                    self._on_pipe(key.fileobj)

    def _on_control(self, deadline: float) -> float:
        try:
            message = self.sock.recv(65536)
            report = json.loads(message) if message else None
        except (OSError, ValueError):
            report = None
        self._close(self.sock)
        if isinstance(report, dict) and report.get("op") == "done":
            self.outcome.done = report
        else:
            self.outcome.failure = self.outcome.failure or "zygote_died"
        return min(deadline, time.monotonic() + DRAIN_SECONDS)

    def _on_pipe(self, fd: int) -> None:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            self._close(fd)
        elif fd == self.res_r:
            self.results += chunk
            if len(self.results) > self.limits.result_bytes + self.FRAMING_SLACK:
                self.outcome.failure = "result_overflow"
                self._close(fd)  # the writer gets EPIPE instead of filling our memory
        else:
            room = max(0, self.limits.output_bytes - len(self.output))
            self.output += chunk[:room]
            self.outcome.output_dropped += len(chunk) - min(room, len(chunk))

    def _close(self, obj: Any) -> None:
        if obj in {key.fileobj for key in self.selector.get_map().values()}:
            self.selector.unregister(obj)
        if obj is not self.sock:
            os.close(obj)
