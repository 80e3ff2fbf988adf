"""Names and roles: an instructor pulls the course's learners into the gradebook."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.lti.models import LtiAccount
from grader.models import User
from grader.services import courses
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, LEARNER, FakePlatform
from tests.web.conftest import csrf_from, login, make_user
from tests.web.test_courses import signed_in

NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"


def test_an_instructor_brings_the_course_learners_into_the_gradebook(app: Flask, platform: FakePlatform) -> None:
    make_user(app, "bea@school.example")  # someone here already has Bea's email: never joined to her account
    platform.members = [
        {"user_id": "learner-7", "name": "Bea", "email": "bea@school.example", "roles": [LEARNER], "status": "Active"},
        {"user_id": "learner-8", "name": "Cid", "email": "cid@school.example", "roles": [LEARNER]},
        {"user_id": "learner-9", "name": "Gone", "email": "gone@school.example", "roles": [LEARNER],
         "status": "Inactive"},
        {"user_id": "teacher-1", "name": "Teacher", "roles": [INSTRUCTOR]},
    ]
    client = app.test_client()
    launch(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom={"exercise": "block-layernorm"},
           **{NRPS: {"context_memberships_url": f"{platform.url}/memberships", "service_versions": ["2.0"]}})
    assert '<a class="button" href="/lti/roster">' in client.get("/teach/gradebook").get_data(as_text=True)
    page = client.get("/lti/roster").get_data(as_text=True)
    response = client.post("/lti/roster", data={"csrf_token": csrf_from(page)})
    assert response.status_code == 303 and response.headers["Location"].endswith("/teach/gradebook")
    assert "2 learners of the course, 2 new here." in client.get("/teach/gradebook").get_data(as_text=True)
    with app.app_context():
        subjects = set(db.session.scalars(sa.select(LtiAccount.subject)))
        assert subjects == {"teacher-1", "learner-7", "learner-8"}
        emails = set(db.session.scalars(sa.select(User.email)))
        assert "cid@school.example" in emails and sum(e.endswith("@lti.invalid") for e in emails) == 1
    again = client.post("/lti/roster", data={"csrf_token": csrf_from(page)})
    assert "2 learners of the course, 0 new here." in client.get(again.headers["Location"]).get_data(as_text=True)


def test_the_roster_needs_an_instructor_launch_and_a_platform_that_answers(app: Flask, platform: FakePlatform) -> None:
    learner = app.test_client()
    launch(learner, platform, **{NRPS: {"context_memberships_url": f"{platform.url}/memberships"}})
    assert learner.get("/lti/roster").status_code == 403
    client = app.test_client()
    launch(client, platform, sub="teacher-1", roles=(INSTRUCTOR,),
           **{NRPS: {"context_memberships_url": f"{platform.url}/memberships"}})
    page = client.get("/lti/roster").get_data(as_text=True)
    platform.down = True
    colleague = app.test_client()  # the roster is the working course's: another instructor of it gets it too
    make_user(app, "teach@example.com", "instructor")
    login(colleague, "teach@example.com")
    assert "/lti/roster" in colleague.get("/teach/gradebook").get_data(as_text=True)
    failed = client.post("/lti/roster", data={"csrf_token": csrf_from(page)})
    assert failed.status_code == 502 and "could not be fetched" in failed.get_data(as_text=True)


def test_a_course_with_no_lms_course_says_how_to_get_one(app: Flask, platform: FakePlatform) -> None:
    uid = make_user(app, "teach@example.com")
    with app.app_context():
        courses.create("ml101", "Machine learning", by=uid)
    client = signed_in(app, "teach@example.com", "ml101")
    page = client.get("/lti/roster").get_data(as_text=True)
    assert "Machine learning is not linked to an LMS course" in page and "Bring in the learners" not in page
    assert client.post("/lti/roster", data={"csrf_token": csrf_from(page)}).status_code == 200  # nothing pulled
    book = client.get("/teach/gradebook").get_data(as_text=True)
    assert "<h1>Gradebook</h1>" in book and "/lti/roster" not in book
