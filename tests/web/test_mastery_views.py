"""Mastery as people see it: the learner's bars per lesson, the course's heatmap, CSV and API for its staff only
(another course's instructor gets 404), and the privacy export and erase (tests/web/test_privacy.py)."""

from __future__ import annotations

import json

import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillState
from grader.models import User
from grader.services import accounts, api_tokens, attempts, privacy
from grader.services.courses import Seat
from tests.web.api_support import API, auth
from tests.web.conftest import csrf_from
from tests.web.test_courses import EXERCISE, ZEROS, signed_in, two_courses  # noqa: F401 (a fixture)

CLASS = f"{API}/mastery/class"


def _token(app: Flask, email: str) -> str:
    with app.app_context():
        user = accounts.user_by_email(email)
        assert user is not None
        return api_tokens.create_token(user)


def test_the_course_s_staff_see_its_learners_mastery_and_another_course_s_instructor_gets_404(
        app: Flask, two_courses: dict[str, int]) -> None:  # fmt: skip
    with app.app_context():
        assert attempts.submit(Seat(two_courses["ml101"], two_courses["bo"]), EXERCISE, {"h": ZEROS}).outcome == "graded"
    client = app.test_client()
    own = client.get(f"{CLASS}?course=ml101", headers=auth(_token(app, "t1@example.com")))
    assert own.status_code == 200
    body = own.get_json()
    assert body["skills"] == ["residual-stream"]
    assert [row["learner"] for row in body["learners"]] == ["ada@example.com", "bo@example.com"]
    assert body["learners"][1]["skills"]["residual-stream"] < 0.5 and body["learners"][0]["skills"] == {}
    other = _token(app, "t2@example.com")
    assert client.get(f"{CLASS}?course=ml101", headers=auth(other)).status_code == 404
    assert "bo@example.com" not in client.get(f"{CLASS}?course=ml102", headers=auth(other)).get_data(as_text=True)
    assert client.get(f"{CLASS}?course=ml101", headers=auth(_token(app, "bo@example.com"))).status_code == 403

    t1 = signed_in(app, "t1@example.com", "ml101")
    page = t1.get("/teach/mastery").get_data(as_text=True)
    assert "bo@example.com" in page and 'class="level-0"' in page and "Weakest skills" in page
    key = page[page.index('<ul class="heat-legend"'):]
    assert '<li class="level-0">0–24 %</li>' in key and '<li class="level-4">95–100 % · mastered</li>' in key
    assert '<li class="level-none">— no answers yet</li>' in key[:key.index("</ul>")]
    csv = t1.get("/teach/mastery.csv").get_data(as_text=True).splitlines()
    assert csv[0] == "learner,residual-stream" and csv[1] == "ada@example.com," and csv[2].startswith("bo@example.com,0.")
    t2 = signed_in(app, "t2@example.com", "ml102")
    assert "bo@example.com" not in t2.get("/teach/mastery").get_data(as_text=True)
    assert signed_in(app, "bo@example.com", "ml101").get("/teach/mastery").status_code == 403


def test_a_learner_sees_bars_per_lesson_with_a_table_and_what_to_do_next(app: Flask,
                                                                         two_courses: dict[str, int]) -> None:  # fmt: skip
    with app.app_context():
        assert attempts.submit(Seat(two_courses["ml101"], two_courses["bo"]), EXERCISE, {"h": ZEROS}).outcome == "graded"
    bo = signed_in(app, "bo@example.com", "ml101")
    page = bo.get("/mastery").get_data(as_text=True)
    assert '<svg class="mastery-bars" role="img"' in page and '<div class="visually-hidden"><table>' in page
    assert "The residual stream" in page and "GELU" in page  # the course uses block-residual and block-gelu
    assert "Next: " in page and 'href="/practise-next?lesson=gpt2-block"' in page
    assert bo.post("/language", data={"csrf_token": csrf_from(page), "locale": "pt", "next": "/mastery"}).status_code == 303
    in_pt = bo.get("/mastery").get_data(as_text=True)
    assert "O fluxo residual" in in_pt
    mine = bo.get(f"{API}/mastery?course=ml101", headers=auth(_token(app, "bo@example.com"))).get_json()
    assert {s["skill"]: s["evidence"] for s in mine["skills"]}["residual-stream"] == 1


def test_the_privacy_export_holds_the_learners_mastery_and_erasing_deletes_it_alone(
        app: Flask, two_courses: dict[str, int]) -> None:  # fmt: skip
    with app.app_context():
        for who in ("bo", "ada"):
            seat = Seat(two_courses["ml101"], two_courses[who])
            assert attempts.submit(seat, EXERCISE, {"h": ZEROS}).outcome == "graded"
        bo = db.session.get(User, two_courses["bo"])
        data = privacy.export(bo)
        assert [(m["skill"], m["evidence"]) for m in data["mastery"]] == [("residual-stream", 1)]
        assert [(e["exercise"], e["part"], e["correct"]) for e in data["skill_evidence"]] == [(EXERCISE, "h", False)]
        assert "ada@example.com" not in json.dumps(data)
        privacy.erase(bo, None)
        left = db.session.execute(sa.select(SkillState.user_id)).scalars().all()
        events = db.session.execute(sa.select(SkillEvent.user_id)).scalars().all()
        assert left == [two_courses["ada"]] and events == [two_courses["ada"]]
