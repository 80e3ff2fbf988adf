"""Issue 33: a simulated learner who always makes one named mistake is sent to that mistake's skill within
3 recommendations of GET /api/v1/practice/next (in-process, through the API with Flask's test client)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Flask
from flask.testing import FlaskClient

import adaptive_model as model
from adaptive import simulated
from adaptive_tutors import Run
from grader.catalog.loader import load_specs
from grader.services import accounts, api_tokens, courses
from grader.services.course_content import use_exercises
from tests.web.conftest import PASSWORD, app  # noqa: F401 - the fixture

SPECS, _ = simulated(load_specs(Path(__file__).resolve().parents[2] / "exercises")[0])
EXERCISE, MISTAKE, SKILL = "block-layernorm", "sample-variance", "layernorm-stats"
COURSE = "sim"


@dataclass
class InProcess:
    """The API through Flask's test client, for a Run (as adaptive_tutors.Api does over HTTP)."""

    client: FlaskClient
    token: str
    requests: int = 0

    def call(self, method: str, path: str, query: dict[str, str] | None = None,
             body: dict[str, Any] | None = None) -> tuple[int, Any]:  # fmt: skip
        self.requests += 1
        url = f"/api/v1{path}?{urlencode({'course': COURSE, **(query or {})})}"
        reply = self.client.open(url, method=method, json=body, headers={"Authorization": f"Bearer {self.token}"})
        return reply.status_code, reply.get_json()


def one_mistake_learner() -> model.Learner:
    """Knows every skill but one, never learns it, and on that skill's parts always makes MISTAKE where it is named."""
    skills = sorted({s for spec in SPECS for ids in model.part_skills(spec).values() for s in ids})
    mistakes = sorted({m.name for spec in SPECS for part in spec.parts for m in part.misconceptions})
    known = {s: 0.0 if s == SKILL else 1.0 for s in skills}
    zero = {s: 0.0 for s in skills}
    traits = model.Traits(known, zero, zero, zero, {m: 1.0 if m == MISTAKE else 0.0 for m in mistakes})
    return model.Learner.start(traits, seed=1, index=0)


def enrolled(app: Flask) -> str:  # noqa: F811 - the fixture's name
    with app.app_context():
        course = courses.create(COURSE, "Simulated learners")
        use_exercises(course.id, [spec.id for spec in SPECS])
        user = accounts.create_user("one-mistake@example.com", PASSWORD, "learner")
        courses.add_member(course, user, "learner")
        return api_tokens.create_token(user, "test")


def test_a_learner_who_always_makes_one_mistake_is_sent_to_its_skill_within_3_recommendations(app: Flask) -> None:  # noqa: F811
    api = InProcess(app.test_client(), enrolled(app))
    run = Run(api, one_mistake_learner(), {spec.id: spec for spec in SPECS}, max_attempts=50)
    run.scored(EXERCISE)  # the mistake, once, where the learner met it
    assert MISTAKE in [part["misconception"] for part in run.verdict["parts"].values()]
    chosen = []
    for _ in range(3):
        status, next_one = api.call("GET", "/practice/next")
        assert status == 200, next_one
        chosen.append(next_one["skill"])
        if next_one["skill"] == SKILL:
            exercise = run.specs[next_one["exercise"]]
            assert any(SKILL in exercise.part_skills(part.id) for part in exercise.parts)
            return
        if next_one["scored"]:
            run.scored(next_one["exercise"])
        else:
            run.practice(next_one["exercise"], next_one["numbers"])
    raise AssertionError(f"three recommendations, none for {SKILL}: {chosen}")
