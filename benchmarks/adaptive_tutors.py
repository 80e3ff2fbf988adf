"""The three tutors of benchmarks/adaptive.py, and the learner's side of the JSON API they drive.

A tutor decides which exercise a simulated learner opens next, and whether on its own (scored) numbers or
new practice numbers; the learner then reads that variant through the API, answers it (adaptive_model)
and posts the answers, which the service grades and stores like anyone's. Nothing here reads the database.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from adaptive_model import Learner
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import Variant, variant_from_params

STOP = threading.Event()  # set to end every run at its next attempt (the script is being stopped)


class Refused(RuntimeError):
    """The service answered a learner's request with a status the simulation cannot go on from."""


class Transport(Protocol):
    """How a learner's requests reach the service: Api below over HTTP; a test may pass Flask's test client."""

    requests: int

    def call(self, method: str, path: str, query: dict[str, str] | None = None,
             body: dict[str, Any] | None = None) -> tuple[int, Any]: ...  # fmt: skip


@dataclass
class Api:
    """One learner's bearer-token client in one course, on one keep-alive connection to the service."""

    port: int
    token: str
    course: str
    requests: int = 0
    days: Callable[[], int] | None = None  # the learner's simulated days so far, sent as X-Simulated-Days
    _connection: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, query: dict[str, str] | None = None,
             body: dict[str, Any] | None = None) -> tuple[int, Any]:  # fmt: skip
        """Send one request in the learner's course; returns the status and the JSON body."""
        url = f"/api/v1{path}?{urllib.parse.urlencode({'course': self.course, **(query or {})})}"
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        if self.days is not None:
            headers["X-Simulated-Days"] = str(self.days())
        data = None if body is None else json.dumps(body).encode()
        for retry in (False, True):  # a kept-alive connection the server has closed is opened again, once
            if self._connection is None:
                self._connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            try:
                self._connection.request(method, url, body=data, headers=headers)
                response = self._connection.getresponse()
                raw = response.read()
                break
            except (OSError, http.client.HTTPException):
                self._connection.close()
                self._connection = None
                if retry:
                    raise
        self.requests += 1
        return response.status, json.loads(raw) if raw else None


def shown_params(spec: ExerciseSpec, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters as the API shows them, as numbers again (lists become arrays, as drawn)."""
    return {name: np.asarray(value) if isinstance(value, list) else value for name, value in params.items()}


@dataclass
class Run:
    """One simulated learner under one tutor: their client, their hidden state, and their finished variants."""

    api: Transport
    learner: Learner
    specs: dict[str, ExerciseSpec]
    max_attempts: int
    finished: set[str] = field(default_factory=set)  # exercises whose own (scored) variant is done
    reached: int | None = None  # attempts made when mastery was first reached
    verdict: Any = None  # the service's reply to the last answers posted

    def done(self) -> bool:
        """True once the learner masters every skill (noted) or has used up the attempts; raises Refused when
        the script is being stopped."""
        if STOP.is_set():
            raise Refused("stopped")
        if self.reached is None and self.learner.mastered():
            self.reached = self.learner.attempts
        return self.reached is not None or self.learner.attempts >= self.max_attempts

    def _variant(self, exercise: str, shown: dict[str, Any]) -> Variant:
        spec = self.specs[exercise]
        return variant_from_params(spec, shown_params(spec, shown["params"]))

    def scored(self, exercise: str) -> bool:
        """One attempt on the learner's own numbers; returns True when that variant is now finished."""
        status, shown = self.api.call("GET", f"/exercises/{exercise}")
        _expect(status, shown, 200)
        answers = self.learner.answer(self.specs[exercise], self._variant(exercise, shown))
        status, verdict = self.api.call("POST", f"/exercises/{exercise}/attempts", body={"answers": answers,
                                                                                         "version": shown["version"]})
        self.verdict = verdict
        if status == 409 and "attempts" in str(verdict):  # none left: finished
            self.finished.add(exercise)
            return True
        _expect(status, verdict, 200, 201)
        if verdict["score"] >= 1.0 or verdict["attempts_left"] == 0:
            self.finished.add(exercise)
        return exercise in self.finished

    def practice(self, exercise: str, numbers: str | None = None) -> bool:
        """One check of practice numbers (new ones unless given); returns True when every part was right."""
        status, shown = self.api.call("GET", f"/exercises/{exercise}/practice", {"numbers": numbers} if numbers else {})
        _expect(status, shown, 200)
        answers = self.learner.answer(self.specs[exercise], self._variant(exercise, shown))
        status, verdict = self.api.call("POST", f"/exercises/{exercise}/practice",
                                        body={"numbers": shown["numbers"], "answers": answers})  # fmt: skip
        _expect(status, verdict, 200)
        self.verdict = verdict
        return bool(verdict["score"] >= 1.0)

    def own_or_practice(self, exercise: str) -> None:
        """The learner's own numbers while they are unfinished, else new practice numbers."""
        if exercise in self.finished:
            self.practice(exercise)
        else:
            self.scored(exercise)


def _expect(status: int, body: Any, *wanted: int) -> None:
    if status not in wanted:
        raise Refused(f"HTTP {status}: {body}")


# ---------------------------------------------------------------- the tutors

Tutor = Callable[[Run, list[str], random.Random], None]


def fixed(run: Run, order: list[str], rng: random.Random) -> None:
    """The lesson's order: each exercise on the learner's own numbers until finished, then practice numbers for
    each in the same order, one check each, round after round."""
    for exercise in order:
        while not run.done() and not run.scored(exercise):
            pass
    while not run.done():
        for exercise in order:
            if run.done():
                return
            run.practice(exercise)


def randomly(run: Run, order: list[str], rng: random.Random) -> None:
    """A random exercise each time: its own numbers first while unfinished, else practice numbers."""
    while not run.done():
        run.own_or_practice(rng.choice(order))


def adaptive(run: Run, order: list[str], rng: random.Random) -> None:
    """Whatever GET /api/v1/practice/next says: the exercise, on own numbers or the practice numbers it gives."""
    while not run.done():
        status, chosen = run.api.call("GET", "/practice/next")
        _expect(status, chosen, 200)
        exercise = chosen["exercise"]
        if exercise not in run.specs:
            raise Refused(f"practice/next chose {exercise}, which the simulation cannot answer")
        if chosen["scored"]:
            run.scored(exercise)
        else:
            run.practice(exercise, chosen.get("numbers"))


TUTORS: dict[str, Tutor] = {"adaptive": adaptive, "fixed": fixed, "random": randomly}
