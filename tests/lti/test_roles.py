"""Roles from forged and real launches: only context membership roles count, as a role in the course, never a
site role."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.lti import roles
from grader.models import User
from grader.services import courses, password_reset
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, LEARNER, FakePlatform
from tests.web.conftest import csrf_from, login, make_user

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
INSTITUTION_INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"
SYSTEM_ADMIN = "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"


def role_after_launch(app: Flask, platform: FakePlatform, claimed: tuple[str, ...]) -> tuple[str, int]:
    """The launched person's role in the course (the `default` one, until contexts map to courses), after checking
    they have no site role; and whether they get its gradebook."""
    client = app.test_client()
    assert launch(client, platform, sub="someone", roles=claimed).status_code == 303
    with app.app_context():
        [user] = db.session.scalars(sa.select(User))
        assert user.role == "learner"  # no site role, whatever the LMS claims
        [member] = courses.memberships(user.id)
        return member.role, client.get("/teach/gradebook").status_code


@pytest.mark.parametrize("claimed", [
    (LEARNER, INSTITUTION_INSTRUCTOR),  # the attack that reached the gradebook
    (LEARNER, SYSTEM_ADMIN),
    ("urn:made-up:role#Instructor", "http://example.com/vocab#Administrator"),
    (MEMBERSHIP + "Instructor/extra", MEMBERSHIP + "instructor"),  # not the role, nor its spelling
    ("TeachingAssistant", "Mentor"),  # a sub-role counts only as its full URI
])  # fmt: skip
def test_no_other_role_makes_a_site_instructor(app: Flask, platform: FakePlatform, claimed: tuple[str, ...]) -> None:
    role, gradebook = role_after_launch(app, platform, claimed)
    assert role == "learner" and gradebook == 403


@pytest.mark.parametrize("claimed", [(INSTRUCTOR, TA), (TA,)])  # with its principal role, as LTI sends it, or alone
def test_a_teaching_assistant_becomes_a_ta_of_the_course(app: Flask, platform: FakePlatform,
                                                          claimed: tuple[str, ...]) -> None:  # fmt: skip
    assert role_after_launch(app, platform, claimed) == ("ta", 200)  # sees the course's learners, edits nothing


@pytest.mark.parametrize("claimed", [(INSTRUCTOR,), ("Instructor",), (MEMBERSHIP + "Administrator",),
                                     (MEMBERSHIP + "ContentDeveloper", TA), ("Learner", "Instructor")])
def test_context_teaching_roles_make_an_instructor(app: Flask, platform: FakePlatform, claimed: tuple[str, ...]) -> None:
    assert role_after_launch(app, platform, claimed) == ("instructor", 200)


def test_the_course_role_seam_for_courses() -> None:
    assert roles.course_role([INSTRUCTOR, TA]) == "ta"
    assert roles.course_role(["Instructor"]) == "instructor"
    assert roles.course_role([LEARNER, INSTITUTION_INSTRUCTOR]) == "learner"
    assert roles.course_role("Instructor") == "learner"  # a claim that is no list gives nothing
    assert roles.course_role([MEMBERSHIP + "ContentDeveloper"]) == "instructor"
    assert roles.is_learner(["Learner"]) and roles.is_learner([LEARNER]) and not roles.is_learner(["urn:x#Learner"])


def test_an_lti_account_never_gets_a_password_reset_link(app: Flask, platform: FakePlatform) -> None:
    launch(app.test_client(), platform, sub="ana", email="ana@school.example")
    with app.app_context():
        user = db.session.scalars(sa.select(User).where(User.email == "ana@school.example")).one()
        secret = app.config["SECRET_KEY"]
        assert not password_reset.resettable(user)
        assert password_reset.user_for_reset(password_reset.reset_token(user, secret), secret) is None
    make_user(app, "teach@example.com", "instructor")
    teacher = app.test_client()
    login(teacher, "teach@example.com")
    page = teacher.get("/teach/reset-link").get_data(as_text=True)
    html = teacher.post("/teach/reset-link", data={"csrf_token": csrf_from(page), "email": "ana@school.example"}
                        ).get_data(as_text=True)  # fmt: skip
    assert "signs in through their LMS" in html and not re.search(r"/reset/[\w.-]{20,}", html)
