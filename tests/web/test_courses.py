"""Courses: separate work per course, nobody sees another course's learners, joining with a code, the end
date, the CLI and the API that scripts use."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import INSTRUCTOR, LEARNER, TA, Course
from grader.extensions import db
from grader.models import utcnow
from grader.services import accounts, api_tokens, attempts, course_content, courses
from grader.services.courses import Seat
from tests.web.api_support import auth
from tests.web.conftest import PASSWORD, csrf_from, login

ZEROS = "[0.000; 0.000; 0.000; 0.000]"  # a wrong answer, written to the digits asked for
EXERCISE = "block-residual"


def person(app: Flask, email: str, *memberships: tuple[str, str]) -> int:
    """An account with no site role, in each (course code, role) given."""
    with app.app_context():
        user = accounts.create_user(email, PASSWORD, "learner")
        for code, role in memberships:
            course = courses.by_code(code)
            assert course is not None
            courses.add_member(course, user, role)
        return user.id


@pytest.fixture
def two_courses(app: Flask) -> dict[str, int]:
    """ml101 and ml102, each with its instructor and its own exercises (block-residual in both); ada learns
    in both, bo in ml101 only."""
    with app.app_context():
        courses.ensure_default().open_enrolment = False  # a site of many courses: new accounts join none by themselves
        for code in ("ml101", "ml102"):
            made = courses.create(code, f"Transformers {code}")
            course_content.use_exercises(made.id, [EXERCISE, "block-gelu"])
    ids = {"t1": person(app, "t1@example.com", ("ml101", INSTRUCTOR)),
           "t2": person(app, "t2@example.com", ("ml102", INSTRUCTOR)),
           "ada": person(app, "ada@example.com", ("ml101", LEARNER), ("ml102", LEARNER)),
           "bo": person(app, "bo@example.com", ("ml101", LEARNER))}
    with app.app_context():
        ids.update({code: courses.by_code(code).id for code in ("ml101", "ml102")})  # type: ignore[union-attr]
    return ids


def signed_in(app: Flask, email: str, course: str | None = None) -> FlaskClient:
    client = app.test_client()
    login(client, email)
    if course:
        token = csrf_from(client.get("/courses").get_data(as_text=True))
        assert client.post("/courses/use", data={"id": course, "csrf_token": token}).status_code == 303
    return client


def test_a_learner_in_two_courses_has_separate_work_in_each(app: Flask, two_courses: dict[str, int]) -> None:
    with app.app_context():
        ada = two_courses["ada"]
        assert attempts.submit(Seat(two_courses["ml101"], ada), EXERCISE, {"h": ZEROS}).outcome == "graded"
        assert attempts.progress_of(Seat(two_courses["ml101"], ada), EXERCISE) is not None
        assert attempts.progress_of(Seat(two_courses["ml102"], ada), EXERCISE) is None
        assert attempts.history(Seat(two_courses["ml102"], ada), EXERCISE) == []
    in_102 = signed_in(app, "ada@example.com", "ml102")
    page = in_102.get(f"/exercises/{EXERCISE}").get_data(as_text=True)
    assert "Transformers ml102" in page and "attempt 1" not in page.lower()
    first = signed_in(app, "ada@example.com", "ml101").get("/").get_data(as_text=True)
    assert "1 attempt" in first


def test_a_course_shows_only_the_exercises_it_uses(app: Flask, two_courses: dict[str, int]) -> None:
    client = signed_in(app, "bo@example.com")
    dashboard = client.get("/").get_data(as_text=True)
    assert f"/exercises/{EXERCISE}" in dashboard and "/exercises/block-layernorm" not in dashboard
    assert client.get("/exercises/block-layernorm").status_code == 404


def test_an_instructor_sees_only_their_own_courses_learners(app: Flask, two_courses: dict[str, int]) -> None:
    with app.app_context():
        attempts.submit(Seat(two_courses["ml101"], two_courses["bo"]), EXERCISE, {"h": ZEROS})
    t1, t2 = signed_in(app, "t1@example.com"), signed_in(app, "t2@example.com")
    assert "bo@example.com" in t1.get("/teach/gradebook").get_data(as_text=True)
    book = t2.get("/teach/gradebook").get_data(as_text=True)
    assert "bo@example.com" not in book and "ada@example.com" in book
    # bo is in ml101 only: their work there is not ml102's to see, nor ml101 a course t2 can switch to.
    assert t2.get(f"/teach/gradebook/{two_courses['bo']}/{EXERCISE}").status_code == 404
    token = csrf_from(t2.get("/courses").get_data(as_text=True))
    assert t2.post("/courses/use", data={"id": "ml101", "csrf_token": token}).status_code == 404
    assert "bo@example.com" not in t2.get("/teach/gradebook.csv").get_data(as_text=True)


def test_a_learner_gets_no_staff_pages_and_a_ta_does(app: Flask, two_courses: dict[str, int]) -> None:
    assert signed_in(app, "bo@example.com").get("/teach/gradebook").status_code == 403
    person(app, "ta@example.com", ("ml101", TA))
    ta = signed_in(app, "ta@example.com")
    assert "bo@example.com" in ta.get("/teach/gradebook").get_data(as_text=True)
    # A TA grades; the course's content is its instructors' to change.
    token = csrf_from(ta.get("/teach/gradebook").get_data(as_text=True))
    for url in ("/teach/exercises/new", f"/teach/exercises/{EXERCISE}/edit", "/teach/import"):
        assert ta.get(url).status_code == 403, url
    assert ta.post(f"/teach/exercises/{EXERCISE}/unpublish", data={"csrf_token": token}).status_code == 403
    t1 = signed_in(app, "t1@example.com")
    assert t1.get("/teach/exercises/new").status_code == 200
    # The shared catalogue's exercise is site staff's to change: a change there reaches every course.
    assert t1.get(f"/teach/exercises/{EXERCISE}/edit").status_code == 404


def join(client: FlaskClient, code: str):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/courses").get_data(as_text=True))
    return client.post("/join", data={"code": code, "csrf_token": token})


def test_joining_with_a_code_only_while_it_is_on_and_not_expired(app: Flask, two_courses: dict[str, int]) -> None:
    newcomer = person(app, "cy@example.com")
    client = signed_in(app, "cy@example.com")
    unknown = join(client, "no-such-code")
    assert unknown.status_code == 422 and "There is no course with this code" in unknown.get_data(as_text=True)
    with app.app_context():
        course = courses.by_code("ml102")
        assert course is not None
        code = courses.open_joining(course)
        courses.close_joining(course)
    off = join(client, code)
    assert off.status_code == 422 and "switched off" in off.get_data(as_text=True)
    with app.app_context():
        course = courses.by_code("ml102")
        assert course is not None
        courses.open_joining(course, utcnow() - timedelta(minutes=1))
    expired = join(client, code)
    assert expired.status_code == 422 and "has expired" in expired.get_data(as_text=True)
    with app.app_context():
        assert [m.code for m in courses.memberships(newcomer) if m.code == "ml102"] == []
        course = courses.by_code("ml102")
        assert course is not None
        courses.open_joining(course, utcnow() + timedelta(days=1))
    link = client.get(f"/join/{code}").get_data(as_text=True)
    assert f'value="{code}"' in link
    assert join(client, code.upper()).status_code == 303
    with app.app_context():
        assert [(m.code, m.role) for m in courses.memberships(newcomer)] == [("ml102", LEARNER)]


def test_after_its_end_a_course_is_read_only_for_learners(app: Flask, two_courses: dict[str, int]) -> None:
    seat = Seat(two_courses["ml101"], two_courses["bo"])
    with app.app_context():
        assert attempts.submit(seat, EXERCISE, {"h": ZEROS}).outcome == "graded"
        course = courses.by_code("ml101")
        assert course is not None
        course.ends_at = utcnow() - timedelta(hours=1)
        db.session.commit()
        assert attempts.submit(seat, EXERCISE, {"h": "[1.000; 1.000; 1.000; 1.000]"}).outcome == "closed"
        assert len(attempts.history(seat, EXERCISE)) == 1
    client = signed_in(app, "bo@example.com")
    assert client.get(f"/exercises/{EXERCISE}").status_code == 200  # their work is still there to read


def test_the_cli_makes_courses_adds_members_and_lists_them(app: Flask) -> None:
    runner = app.test_cli_runner()
    made = runner.invoke(args=["courses", "create", "ml101-2027s", "--title", "Transformers, spring 2027"])
    assert made.exit_code == 0, made.output
    assert runner.invoke(args=["courses", "create", "ML 101", "--title", "x"]).exit_code != 0
    assert runner.invoke(args=["courses", "create", "ml101-2027s", "--title", "again"]).exit_code != 0
    person(app, "t@example.com")
    added = runner.invoke(args=["courses", "add-member", "ml101-2027s", "--email", "t@example.com", "--role", "ta"])
    assert added.exit_code == 0 and "added ta t@example.com" in added.output
    listed = json.loads(runner.invoke(args=["courses", "list", "--json"]).output)
    mine = next(c for c in listed if c["code"] == "ml101-2027s")
    assert mine["title"] == "Transformers, spring 2027"
    assert mine["members"] == {"instructor": 0, "ta": 1, "learner": 0}


def test_the_api_lists_the_callers_courses_and_gives_a_gradebook_to_its_staff_only(
        app: Flask, two_courses: dict[str, int]) -> None:  # fmt: skip
    with app.app_context():
        tokens = {who: api_tokens.create_token(accounts.user_by_email(f"{who}@example.com"))  # type: ignore[arg-type]
                  for who in ("t1", "t2", "ada")}
    client = app.test_client()
    listed = client.get("/api/v1/courses", headers=auth(tokens["ada"])).get_json()
    assert [(c["code"], c["role"]) for c in listed] == [("ml101", "learner"), ("ml102", "learner")]
    book = client.get("/api/v1/courses/ml101/gradebook.csv", headers=auth(tokens["t1"]))
    assert book.status_code == 200 and "bo@example.com" in book.get_data(as_text=True)
    assert client.get("/api/v1/courses/ml101/gradebook.csv", headers=auth(tokens["t2"])).status_code == 404
    assert client.get("/api/v1/courses/ml101/gradebook.csv", headers=auth(tokens["ada"])).status_code == 403
    # ?course= picks the course an attempt counts in; another's course is none of the caller's.
    sent = client.post(f"/api/v1/exercises/{EXERCISE}/attempts?course=ml102", json={"answers": {"h": ZEROS}},
                       headers=auth(tokens["ada"]))  # fmt: skip
    assert sent.status_code == 201
    with app.app_context():
        assert attempts.progress_of(Seat(two_courses["ml102"], two_courses["ada"]), EXERCISE) is not None
        assert attempts.progress_of(Seat(two_courses["ml101"], two_courses["ada"]), EXERCISE) is None
    outside = client.get(f"/api/v1/exercises/{EXERCISE}?course=ml102", headers=auth(tokens["t1"]))
    assert outside.status_code == 404


def test_a_code_taken_between_the_check_and_the_write_is_said_taken(app: Flask) -> None:
    """Two tabs making the same course at once: the later one hears the code is taken (no 500)."""
    with app.app_context():
        engine = db.engine
        sneaked: list[bool] = []

        def other_tab_first(conn: object, clause: object, *rest: object) -> None:
            if not sneaked and "FROM courses" in str(clause):  # right after the check saw the code free
                sneaked.append(True)
                with engine.begin() as other:
                    other.execute(sa.insert(Course).values(code="ml202", title="Made in the other tab",
                                                           locale="en"))  # fmt: skip

        sa.event.listen(engine, "after_execute", other_tab_first)
        try:
            with pytest.raises(courses.CourseError) as taken:
                courses.create("ml202", "Machine learning 2")
        finally:
            sa.event.remove(engine, "after_execute", other_tab_first)
        assert sneaked and taken.value.text.render() == "A course with the code ml202 exists already."
        assert courses.by_code("ml202").title == "Made in the other tab"  # type: ignore[union-attr]


def test_a_text_no_code_can_be_is_no_course(app: Flask) -> None:
    with app.app_context():
        assert courses.by_code("default\x00") is None and courses.by_code("Default") is None
        assert courses.by_code("default") is not None
