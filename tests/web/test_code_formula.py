"""A code exercise whose reference is written as formulas (task: formula): graded in the real sandbox, its
mistakes named, with no Python of the instructor's anywhere."""

from __future__ import annotations

import time
from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.code_models import Submission
from grader.services.exercises import save_source
from tests.web.conftest import csrf_from

SOURCE = (Path(__file__).resolve().parents[1] / "code" / "formula_examples" / "code-softmax.yaml").read_text(encoding="utf-8")
EXERCISE = "code-softmax-demo"
STABLE = "import numpy as np\n\ndef softmax(x):\n    e = np.exp(x - np.max(x))\n    return e / e.sum()\n"
NAIVE = "import numpy as np\n\ndef softmax(x):\n    e = np.exp(x)\n    return e / e.sum()\n"


def send(app: Flask, client: FlaskClient, source: str) -> str:
    with app.app_context():
        save_source(SOURCE, None, "web")
    token = csrf_from(client.get(f"/exercises/{EXERCISE}").get_data(as_text=True))
    response = client.post(f"/exercises/{EXERCISE}", data={"csrf_token": token, "source": source})
    assert response.status_code == 303
    deadline = time.monotonic() + 120  # a loaded box may keep it queued past the page's own short wait
    while latest(app).status == "pending" and time.monotonic() < deadline:
        time.sleep(0.2)
    return client.get(response.headers["Location"]).get_data(as_text=True)


def latest(app: Flask) -> Submission:
    with app.app_context():
        return db.session.scalars(sa.select(Submission).order_by(Submission.id.desc())).first()  # type: ignore[return-value]


def test_a_stable_softmax_passes_every_case(app: Flask, learner: FlaskClient) -> None:
    page = send(app, learner, STABLE)
    assert "All cases passed" in page and "large-scores" in page
    assert (latest(app).status, latest(app).score) == ("graded", 1.0)


def test_a_softmax_that_overflows_is_named_and_shows_the_case_that_broke_it(app: Flask, learner: FlaskClient) -> None:
    page = send(app, learner, NAIVE)
    assert "the maximum not subtracted" in page
    assert latest(app).result["misconception"] == "no-max-subtraction"
    assert "1000.0" in page  # the failing visible case's inputs, to paste into Python
