"""A course's content: its own dates, attempt limits and policy over the exercise files', its own order, and
what each reader of those settings (attempts, the dashboard, help, the gradebook, the API) makes of them."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import CourseExercise
from grader.extensions import db
from grader.models import utcnow
from grader.services import attempts, course_content, courses, submissions
from grader.services.courses import Seat
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.web.api_support import auth, token_for
from tests.web.conftest import csrf_from, make_user
from tests.web.test_courses import ZEROS, EXERCISE, signed_in, two_courses  # noqa: F401 - a fixture

RULES = "/teach/course/content/exercise/"


def set_rules(client: FlaskClient, exercise_id: str, **fields: str) -> tuple[int, str]:
    """Post the course's own settings for an exercise on its page; the status and the page."""
    token = csrf_from(client.get(RULES + exercise_id).get_data(as_text=True))
    response = client.post(RULES + exercise_id, data={"csrf_token": token, **fields})
    return response.status_code, response.get_data(as_text=True)


def stamp(days: int) -> str:
    return (utcnow() + timedelta(days=days)).replace(microsecond=0).isoformat() + "Z"


def test_a_learner_in_two_courses_gets_each_courses_attempt_limit_and_due_date(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    t1, t2 = signed_in(app, "t1@example.com"), signed_in(app, "t2@example.com")
    assert set_rules(t1, EXERCISE, max_attempts="1", due=stamp(-1))[0] == 303
    assert set_rules(t2, EXERCISE, max_attempts="3", due=stamp(5))[0] == 303
    with app.app_context():
        one, two = Seat(two_courses["ml101"], two_courses["ada"]), Seat(two_courses["ml102"], two_courses["ada"])
        first = attempts.submit(one, EXERCISE, {"h": ZEROS})
        assert first.outcome == "graded" and first.attempt is not None and first.attempt.late
        assert first.attempts_left == 0
        assert attempts.submit(one, EXERCISE, {"h": "[1.000; 1.000; 1.000; 1.000]"}).outcome == "closed"
        in_two = attempts.submit(two, EXERCISE, {"h": ZEROS})
        assert in_two.outcome == "graded" and in_two.attempt is not None and not in_two.attempt.late
        assert in_two.attempts_left == 2
        assert attempts.submit(two, EXERCISE, {"h": "[1.000; 1.000; 1.000; 1.000]"}).outcome == "graded"
    dashboard_101 = signed_in(app, "ada@example.com", "ml101").get("/").get_data(as_text=True)
    dashboard_102 = signed_in(app, "ada@example.com", "ml102").get("/").get_data(as_text=True)
    assert "no attempts left" in dashboard_101 and "no attempts left" not in dashboard_102


def test_a_courses_opening_date_hides_the_exercise_there_only(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    assert set_rules(signed_in(app, "t1@example.com"), EXERCISE, opens=stamp(3))[0] == 303
    in_101, in_102 = signed_in(app, "ada@example.com", "ml101"), signed_in(app, "ada@example.com", "ml102")
    assert f"/exercises/{EXERCISE}\"" not in in_101.get("/").get_data(as_text=True)
    assert in_101.get(f"/exercises/{EXERCISE}").status_code == 403
    assert in_102.get(f"/exercises/{EXERCISE}").status_code == 200
    with app.app_context():
        with pytest.raises(attempts.NotOpen):
            attempts.submit(Seat(two_courses["ml101"], two_courses["ada"]), EXERCISE, {"h": ZEROS})


def test_hints_switched_off_in_one_course_are_refused_there_only(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    assert set_rules(signed_in(app, "t1@example.com"), EXERCISE, offer_hints="false")[0] == 303
    for course, status in (("ml101", 404), ("ml102", 303)):
        ada = signed_in(app, "ada@example.com", course)
        token = csrf_from(ada.get(f"/exercises/{EXERCISE}").get_data(as_text=True))
        assert ada.post(f"/exercises/{EXERCISE}/hint", data={"csrf_token": token}).status_code == status


def test_the_gradebook_and_the_api_read_the_courses_due_date(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    due = stamp(4)
    assert set_rules(signed_in(app, "t1@example.com"), EXERCISE, due=due)[0] == 303
    with app.app_context():
        attempts.submit(Seat(two_courses["ml101"], two_courses["ada"]), EXERCISE, {"h": ZEROS})
    work = signed_in(app, "t1@example.com").get(f"/teach/gradebook/{two_courses['ada']}/{EXERCISE}")
    assert work.status_code == 200 and due[:10] in work.get_data(as_text=True)
    assert "has no due date" not in work.get_data(as_text=True)
    page = signed_in(app, "t2@example.com").get(f"/teach/gradebook/{two_courses['ada']}/{EXERCISE}")
    assert due[:10] not in page.get_data(as_text=True)
    client, headers = app.test_client(), auth(token_for(app, "ada@example.com"))
    detail = client.get(f"/api/v1/exercises/{EXERCISE}?course=ml101", headers=headers).get_json()
    assert detail["due"].startswith(due[:16])
    assert client.get(f"/api/v1/exercises/{EXERCISE}?course=ml102", headers=headers).get_json()["due"] is None


def test_bad_settings_are_said_next_to_their_field_and_nothing_is_saved(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    t1 = signed_in(app, "t1@example.com")
    status, page = set_rules(t1, EXERCISE, max_attempts="0", penalty="2", due="tomorrow")
    assert status == 422
    for field in ("max_attempts", "penalty", "due"):
        assert f'id="{field}-error"' in page
    status, page = set_rules(t1, EXERCISE, opens=stamp(5), due=stamp(2))
    assert status == 422 and 'id="opens-error"' in page and "must open before its due date" in page
    with app.app_context():
        row = db.session.get(CourseExercise, (two_courses["ml101"], EXERCISE))
        assert row is not None and (row.opens_at, row.due_at, row.max_attempts, row.settings) == (None, None, None, None)
    t2 = signed_in(app, "t2@example.com")
    token = csrf_from(t2.get("/teach/course/content").get_data(as_text=True))
    assert t2.get(RULES + "block-layernorm").status_code == 404  # not in ml102
    assert t2.post(RULES + "block-layernorm", data={"csrf_token": token, "max_attempts": "2"}).status_code == 404


def order_on(page: str) -> list[str]:
    return re.findall(r'href="/exercises/([a-z0-9-]+)"', page)


def test_the_dashboard_lists_exercises_in_the_courses_order(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    ada = signed_in(app, "ada@example.com", "ml101")
    assert order_on(ada.get("/").get_data(as_text=True)) == [EXERCISE, "block-gelu"]
    t1 = signed_in(app, "t1@example.com")
    token = csrf_from(t1.get("/teach/course/content").get_data(as_text=True))
    moved = t1.post("/teach/course/content/move", data={"csrf_token": token, "exercise": "block-gelu", "step": "-1"})
    assert moved.status_code == 303
    assert order_on(ada.get("/").get_data(as_text=True)) == ["block-gelu", EXERCISE]
    listed = app.test_client().get("/api/v1/exercises?course=ml101", headers=auth(token_for(app, "ada@example.com")))
    assert [item["id"] for item in listed.get_json()] == ["block-gelu", EXERCISE]
    assert order_on(signed_in(app, "ada@example.com", "ml102").get("/").get_data(as_text=True)) == [EXERCISE, "block-gelu"]
    added = t1.post("/teach/course/content/add", data={"csrf_token": token, "exercise": "block-layernorm"})
    assert added.status_code == 303
    assert order_on(ada.get("/").get_data(as_text=True)) == ["block-gelu", EXERCISE, "block-layernorm"]
    removed = t1.post("/teach/course/content/remove", data={"csrf_token": token, "exercise": EXERCISE})
    assert removed.status_code == 303 and EXERCISE not in order_on(ada.get("/").get_data(as_text=True))


def test_the_whole_catalogue_course_keeps_working_and_switches_to_a_list_in_the_catalogue_order(
        app: Flask, instructor: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    ada = signed_in(app, "ada@example.com")
    before = order_on(ada.get("/").get_data(as_text=True))
    assert len(before) > 10
    token = csrf_from(instructor.get("/teach/course/content").get_data(as_text=True))
    assert instructor.post("/teach/course/content/list", data={"csrf_token": token}).status_code == 303
    assert order_on(ada.get("/").get_data(as_text=True)) == before
    with app.app_context():
        course = courses.ensure_default()
        assert not course.whole_catalogue
        assert db.session.query(CourseExercise).filter_by(course_id=course.id).count() >= len(before)


def test_a_code_exercise_keeps_each_courses_attempt_limit(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    with app.app_context():
        for code in ("ml101", "ml102"):
            course_content.use_exercises(two_courses[code], ["code-layer-norm"])
    assert set_rules(signed_in(app, "t1@example.com"), "code-layer-norm", max_attempts="1")[0] == 303
    with app.app_context():
        one, two = Seat(two_courses["ml101"], two_courses["ada"]), Seat(two_courses["ml102"], two_courses["ada"])
        assert submissions.create(one, "code-layer-norm", GOOD).new  # stored as pending: it uses the one attempt
        with pytest.raises(submissions.AttemptsUsed):
            submissions.create(one, "code-layer-norm", NO_EPS)
        assert submissions.create(two, "code-layer-norm", GOOD).new
        assert submissions.create(two, "code-layer-norm", NO_EPS).new  # the file sets no limit
