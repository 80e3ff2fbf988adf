"""LMS courses as courses: the first instructor launch makes one (or links one they teach), a learner of an LMS
course with no course here is told so and nothing is made, and later launches enrol into the mapped course."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import Course, CourseMember
from grader.extensions import db
from grader.lti import contexts
from grader.lti.models import GradeLink, LtiAccount, LtiContext
from grader.models import User
from grader.services import course_content, courses
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, LEARNER, FakePlatform
from tests.lti.test_roles import TA
from grader.web.course_context import SESSION_KEY
from tests.web.conftest import csrf_from

NEW = {"id": "course-2", "title": "Transformers 102", "label": "TF 102 (2027)"}


def members(app: Flask, code: str) -> dict[str, str]:
    """The course's members, as {email: role}."""
    with app.app_context():
        course = courses.by_code(code)
        assert course is not None
        return dict(db.session.execute(sa.select(User.email, CourseMember.role).join(
            CourseMember, CourseMember.user_id == User.id).where(CourseMember.course_id == course.id)).all())


def working_course(client: FlaskClient) -> str | None:
    """The code of the course the session works in (grader.web.course_context's session key)."""
    with client.session_transaction() as session:
        return session.get(SESSION_KEY)


def counts(app: Flask) -> dict[str, int]:
    with app.app_context():
        return {model.__tablename__: db.session.scalar(sa.select(sa.func.count()).select_from(model)) or 0
                for model in (User, Course, CourseMember, LtiAccount, LtiContext, GradeLink)}


def teacher_launch(app: Flask, platform: FakePlatform, context: dict[str, Any] = NEW,
                   sub: str = "teacher-1", **claims: Any) -> FlaskClient:  # fmt: skip
    client = app.test_client()
    response = launch(client, platform, sub=sub, roles=(INSTRUCTOR,), context=context,
                      custom={"exercise": "block-layernorm"}, **claims)  # fmt: skip
    assert response.status_code == 303, response.get_data(as_text=True)
    return client


def test_the_first_instructor_launch_makes_the_course_and_its_instructor(app: Flask, platform: FakePlatform) -> None:
    platform.moodle = True  # full role URIs, pt_br
    client = teacher_launch(app, platform)
    with app.app_context():
        course = courses.by_code("tf-102-2027")
        assert course is not None
        assert (course.title, course.locale, course.whole_catalogue, course.open_enrolment) == (
            "Transformers 102", "pt", True, False)  # on the whole catalogue, closed to others
        [context] = db.session.scalars(sa.select(LtiContext).where(LtiContext.context_id == "course-2"))
        assert context.course_id == course.id and context.deployment_id == "deployment-1"
        teacher = db.session.scalars(sa.select(User).where(User.email == "teacher-1@school.example")).one()
        assert teacher.role == "learner"  # no site role from the LMS, ever
        assert course.created_by == teacher.id
    assert members(app, "tf-102-2027") == {"teacher-1@school.example": "instructor"}
    assert "teacher-1@school.example" not in members(app, "default")
    assert working_course(client) == "tf-102-2027"
    assert client.get("/teach/gradebook").status_code == 200
    # Another LMS course with the same label gets a code of its own.
    teacher_launch(app, platform, context={**NEW, "id": "course-3"}, sub="teacher-2")
    assert members(app, "tf-102-2027-2") == {"teacher-2@school.example": "instructor"}


def test_course_codes_from_labels_and_titles() -> None:
    assert contexts.code_from("TF 102 (2027)", "x") == "tf-102-2027"
    assert contexts.code_from("", "Aprendizado de Máquina — Turma A") == "aprendizado-de-maquina-turma-a"
    assert contexts.code_from("Трансформеры", "") == contexts.FALLBACK_CODE  # no Latin letter to keep
    long = contexts.code_from("x" * 39 + " y" * 10, "")
    assert len(long) <= 40 and not long.endswith("-")


def test_learners_join_the_mapped_course_and_a_launch_never_lowers_a_role(app: Flask, platform: FakePlatform) -> None:
    teacher_launch(app, platform)
    learner = app.test_client()
    response = launch(learner, platform, context=NEW, custom={"exercise": "block-layernorm"})
    assert response.status_code == 303
    assert working_course(learner) == "tf-102-2027"
    launch(app.test_client(), platform, sub="ta-1", roles=(INSTRUCTOR, TA), context=NEW)
    launch(app.test_client(), platform, sub="teacher-1", roles=(LEARNER,), context=NEW)  # a teacher viewing as one
    assert members(app, "tf-102-2027") == {"teacher-1@school.example": "instructor", "ta-1@school.example": "ta",
                                           "learner-1@school.example": "learner"}  # fmt: skip
    assert "learner-1@school.example" not in members(app, "default")
    with app.app_context():
        [link] = db.session.scalars(sa.select(GradeLink))
        assert link.course_id == courses.by_code("tf-102-2027").id  # type: ignore[union-attr]


@pytest.mark.parametrize("roles", [(LEARNER,), (INSTRUCTOR, TA), ("Learner",)])
def test_a_learner_of_an_lms_course_not_set_up_gets_a_page_and_nothing_is_made(
        app: Flask, platform: FakePlatform, roles: tuple[str, ...]) -> None:  # fmt: skip
    before = counts(app)
    client = app.test_client()
    response = launch(client, platform, roles=roles, context=NEW, custom={"exercise": "block-layernorm"})
    page = response.get_data(as_text=True)
    assert response.status_code == 404 and "This course is not set up yet" in page
    assert "Back to the lessons" not in page  # no account was made: there are no lessons to go back to
    assert "Ask them to open it once" in page
    assert f"frame-ancestors {platform.url}" in response.headers["Content-Security-Policy"]  # shown in the LMS
    assert counts(app) == before
    assert client.get("/exercises/block-layernorm").status_code in (302, 401)  # not signed in


def test_the_not_set_up_page_is_in_the_launch_language(app: Flask, platform: FakePlatform) -> None:
    platform.moodle = True
    page = launch(app.test_client(), platform, context=NEW).get_data(as_text=True)
    assert "<html lang=\"pt\"" in page


def test_a_launch_without_a_context_is_into_the_default_course(app: Flask, platform: FakePlatform) -> None:
    before = counts(app)["lti_contexts"]
    client = app.test_client()
    assert launch(client, platform, context=None, custom={"exercise": "block-layernorm"}).status_code == 303
    assert members(app, "default") == {"learner-1@school.example": "learner"}
    assert counts(app)["lti_contexts"] == before and working_course(client) == "default"


def test_an_lms_course_used_before_courses_stays_in_the_default_course(app: Flask, platform: FakePlatform) -> None:
    launch(app.test_client(), platform, custom={"exercise": "block-layernorm"})  # its grade link: `default`'s
    with app.app_context():  # as the migration leaves a site: grade links in `default`, no LMS course mapped
        db.session.execute(sa.delete(LtiContext))
        db.session.commit()
    client = app.test_client()  # a learner new here, from that LMS course, before its instructor came back
    assert launch(client, platform, sub="learner-2", custom={"exercise": "block-layernorm"}).status_code == 303
    assert members(app, "default")["learner-2@school.example"] == "learner" and working_course(client) == "default"
    with app.app_context():  # its line item says which LMS course it is: that one is mapped to `default` now
        assert db.session.execute(sa.select(LtiContext.context_id, LtiContext.course_id)).all() == [
            ("course-1", courses.by_code("default").id)]  # type: ignore[union-attr]


def linked_choice(app: Flask, platform: FakePlatform) -> tuple[FlaskClient, str]:
    """teacher-1 teaches tf-102-2027 (made by a first launch), then opens a second new LMS course."""
    teacher_launch(app, platform)
    client = app.test_client()
    response = launch(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), context={**NEW, "id": "course-3"},
                      custom={"exercise": "block-layernorm"})  # fmt: skip
    assert response.status_code == 303 and response.headers["Location"].endswith("/lti/course")
    return client, client.get("/lti/course").get_data(as_text=True)


def test_an_instructor_links_a_new_lms_course_to_a_course_they_teach(app: Flask, platform: FakePlatform) -> None:
    client, page = linked_choice(app, platform)
    assert 'value="tf-102-2027-2" checked' in page and 'value="tf-102-2027"' in page
    assert 'value="default"' not in page  # not theirs to link to
    assert client.post("/lti/course", data={"course": "tf-102-2027"}).status_code == 400  # no CSRF token
    with app.app_context():  # the course linked to has the exercise the link names: the launch goes on to it
        course_content.use_exercises(courses.by_code("tf-102-2027").id, ["block-layernorm"])  # type: ignore[union-attr]
    done = client.post("/lti/course", data={"csrf_token": csrf_from(page), "course": "tf-102-2027"})
    assert done.status_code == 303 and done.headers["Location"].endswith("/exercises/block-layernorm")
    assert working_course(client) == "tf-102-2027"
    with app.app_context():
        assert courses.by_code("tf-102-2027-2") is None  # the course made for it held nothing: gone
        mapped = dict(db.session.execute(sa.select(LtiContext.context_id, Course.code).join(
            Course, Course.id == LtiContext.course_id)).all())
        assert mapped["course-2"] == mapped["course-3"] == "tf-102-2027"
    launch(app.test_client(), platform, sub="learner-3", context={**NEW, "id": "course-3"})
    assert members(app, "tf-102-2027")["learner-3@school.example"] == "learner"
    assert client.get("/lti/course").status_code == 403  # asked once


def test_a_context_is_linked_only_to_a_course_its_instructor_teaches(app: Flask, platform: FakePlatform) -> None:
    client, page = linked_choice(app, platform)
    with app.app_context():  # teacher-1 is a TA there: not theirs to link to either
        ml101 = courses.create("ml101", "Machine learning")
        teacher = db.session.scalars(sa.select(User).where(User.email == "teacher-1@school.example")).one()
        courses.add_member(ml101, teacher, "ta")
    page = client.get("/lti/course").get_data(as_text=True)
    assert 'value="tf-102-2027"' in page and 'value="ml101"' not in page
    for other in ("default", "ml101", "nope", "tf-102-2027\x00"):  # a NUL: refused as no course, on PostgreSQL too
        refused = client.post("/lti/course", data={"csrf_token": csrf_from(page), "course": other})
        assert refused.status_code == 400
        assert "only to a course where you are an instructor" in refused.get_data(as_text=True)
    kept = client.post("/lti/course", data={"csrf_token": csrf_from(page), "course": "tf-102-2027-2"})
    assert kept.status_code == 303 and working_course(client) == "tf-102-2027-2"
    assert members(app, "tf-102-2027-2") == {"teacher-1@school.example": "instructor"}
    stranger = app.test_client()  # someone else cannot answer for this instructor
    launch(stranger, platform, sub="teacher-9", roles=(INSTRUCTOR,), context=None)
    assert stranger.get("/lti/course").status_code == 403
