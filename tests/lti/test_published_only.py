"""Lesson grades, deep-linking choices and the picker count published exercises only: a draft is in nobody's lessons."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.models import DRAFT, Exercise
from tests.lti.conftest import launch, wait_for
from tests.lti.platform import FakePlatform
from tests.lti.test_deep_linking import deep_link_launch
from tests.lti.test_scores import answer
from tests.web.conftest import csrf_from

LESSON = "gpt2-block"


def drafts_beside(app: Flask, kept: str) -> list[str]:
    """Every other exercise of the lesson made a draft (as if being written in the editor)."""
    with app.app_context():
        others = list(db.session.scalars(sa.select(Exercise.id).where(Exercise.lesson == LESSON, Exercise.id != kept)))
        db.session.execute(sa.update(Exercise).where(Exercise.id.in_(others)).values(status=DRAFT))
        db.session.commit()
    assert others
    return others


def test_a_solved_lesson_scores_full_marks_whatever_drafts_it_has(app: Flask, platform: FakePlatform) -> None:
    drafts_beside(app, "block-layernorm")
    client = app.test_client()
    assert launch(client, platform, custom={"lesson": LESSON}).status_code == 303
    answer(app, client, right=True)
    score = wait_for(lambda: platform.scores)[0]["score"]
    assert (score["scoreGiven"], score["activityProgress"]) == (100.0, "Completed")


def test_the_picker_offers_and_accepts_published_exercises_only(app: Flask, platform: FakePlatform) -> None:
    [draft, *_] = drafts_beside(app, "block-layernorm")
    client = app.test_client()
    deep_link_launch(client, platform)
    page = client.get("/lti/pick").get_data(as_text=True)
    assert 'value="exercise:block-layernorm"' in page and f'value="exercise:{draft}"' not in page
    chosen = client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": f"exercise:{draft}"})
    assert chosen.status_code == 400
    learner = app.test_client()  # a link made earlier to the draft lands on the dashboard, not the draft
    assert launch(learner, platform, custom={"exercise": draft}).headers["Location"].endswith("/")
