"""Launches from the fake platform: learners and instructors arrive signed in, where the link points."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.services import courses
from grader.lti.models import LtiAccount, GradeLink
from grader.models import User
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, FakePlatform
from tests.web.conftest import make_user


def users(app: Flask) -> list[User]:
    with app.app_context():
        return list(db.session.scalars(sa.select(User).order_by(User.id)))


def test_jwks_publishes_the_tool_key_and_it_is_kept_private(app: Flask) -> None:
    keys = app.test_client().get("/lti/jwks").get_json()["keys"]
    assert len(keys) == 1 and keys[0]["kty"] == "RSA" and keys[0]["alg"] == "RS256" and "d" not in keys[0]
    key_file = app.instance_path + "/lti_private_key.pem"
    import os, stat
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600


def test_a_learner_arrives_signed_in_on_the_exercise_of_the_link(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    response = launch(client, platform, custom={"exercise": "block-layernorm"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/exercises/block-layernorm")
    page = client.get("/exercises/block-layernorm")
    assert page.status_code == 200 and "learner-1@school.example" in page.get_data(as_text=True)
    [user] = users(app)
    assert (user.email, user.role, user.locale) == ("learner-1@school.example", "learner", "en")
    with app.app_context():
        [account] = db.session.scalars(sa.select(LtiAccount))
        assert (account.issuer, account.subject, account.name) == (platform.issuer, "learner-1", "Ana Learner")
        [link] = db.session.scalars(sa.select(GradeLink))
        assert (link.target, link.lineitem) == ("exercise:block-layernorm", f"{platform.url}/lineitems/1?course=1")


def test_the_target_link_uri_points_when_there_is_no_custom_parameter(app: Flask, platform: FakePlatform) -> None:
    response = launch(app.test_client(), platform, custom=None,
                      target_link_uri="http://localhost/exercises/block-gelu")
    assert response.headers["Location"].endswith("/exercises/block-gelu")


def test_a_second_launch_signs_in_the_same_account(app: Flask, platform: FakePlatform) -> None:
    launch(app.test_client(), platform, custom={"exercise": "block-layernorm"})
    launch(app.test_client(), platform, custom={"exercise": "block-layernorm"})
    assert len(users(app)) == 1


def test_an_existing_account_with_the_same_email_is_never_taken_over(app: Flask, platform: FakePlatform) -> None:
    make_user(app, "learner-1@school.example")
    client = app.test_client()
    launch(client, platform, custom={"exercise": "block-layernorm"})
    mine, made = users(app)
    assert made.email.endswith("@lti.invalid") and made.id != mine.id
    assert made.email in client.get("/exercises/block-layernorm").get_data(as_text=True)


def test_the_platform_locale_is_used_when_the_pages_have_it(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    launch(client, platform, custom={"exercise": "block-layernorm"}, launch_presentation={"locale": "pt-BR"})
    assert '<html lang="pt"' in client.get("/").get_data(as_text=True)
    other = app.test_client()
    launch(other, platform, sub="learner-2", launch_presentation={"locale": "ru"})
    assert '<html lang="ru"' in other.get("/").get_data(as_text=True)
    third = app.test_client()
    launch(third, platform, sub="learner-3", launch_presentation={"locale": "de-DE"})
    assert '<html lang="en"' in third.get("/").get_data(as_text=True)


def test_an_instructor_arrives_as_an_instructor(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    response = launch(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), custom={"exercise": "block-layernorm"})
    assert response.status_code == 303
    [user] = users(app)
    with app.app_context():  # an instructor of the course, no site role
        assert user.role == "learner" and [m.role for m in courses.memberships(user.id)] == ["instructor"]
    assert client.get("/teach/gradebook").status_code == 200
    with app.app_context():  # no grade column for the teacher's own tries
        assert db.session.scalar(sa.select(sa.func.count()).select_from(GradeLink)) == 0


def test_pages_of_a_launched_session_may_be_framed_by_the_platform_only(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    launch(client, platform, custom={"exercise": "block-layernorm"})
    response = client.get("/exercises/block-layernorm")
    assert f"frame-ancestors {platform.url}" in response.headers["Content-Security-Policy"]
    assert "X-Frame-Options" not in response.headers
    plain = app.test_client().get("/login")
    assert "frame-ancestors 'none'" in plain.headers["Content-Security-Policy"]
    assert plain.headers["X-Frame-Options"] == "DENY"


def test_other_sites_forms_are_still_refused_after_a_launch(app: Flask, platform: FakePlatform) -> None:
    client = app.test_client()
    launch(client, platform, custom={"exercise": "block-layernorm"})
    response = client.post("/exercises/block-layernorm", data={"answer-mean": "1"}, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 403
