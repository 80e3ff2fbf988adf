"""Deep linking, passback (AGS) and the roster (NRPS), each for the course the LMS course maps to."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import Course, CourseMember
from grader.extensions import db
from grader.lti.models import GradeLink, LtiContext
from grader.models import DRAFT, Exercise, User
from grader.services import attempts, course_content, courses, extensions
from grader.services.courses import Seat
from grader.services.regrade import regrade
from grader.catalog.policy import due_from_text
from tests.lti.conftest import launch, wait_for
from tests.lti.platform import INSTRUCTOR, LEARNER, FakePlatform
from tests.lti.test_contexts import NEW, members, teacher_launch
from tests.lti.test_deep_linking import DL
from tests.lti.test_passback import LATE, lms_gets
from tests.lti.test_roster import NRPS
from tests.lti.test_scores import answer
from tests.web.conftest import csrf_from
from grader.web.course_context import SESSION_KEY
from tests.web.test_due_dates import FUTURE
from tests.web.test_overrides import set_score
from tests.web.test_regrade import LOOSE, TIGHT, off_by, save

AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
CODE = "tf-102-2027"


def course_id(app: Flask, code: str = CODE) -> int:
    with app.app_context():
        course = courses.by_code(code)
        assert course is not None
        return course.id


def line_item(platform: FakePlatform, n: int) -> dict[str, object]:
    return {AGS: {"scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/score"],
                  "lineitem": f"{platform.url}/lineitems/{n}"}}


def deep_linking_launch(client: FlaskClient, platform: FakePlatform, context: dict[str, Any] = NEW) -> str:
    """teacher-1's deep-linking launch from an LMS course; where it goes."""
    settings = {"deep_link_return_url": f"{platform.url}/deep-link-return", "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"]}
    response = launch(client, platform, sub="teacher-1", roles=(INSTRUCTOR,), context=context, resource_link=None,
                      message_type="LtiDeepLinkingRequest", **{DL + "deep_linking_settings": settings})
    return str(response.headers["Location"])


def picker(client: FlaskClient, platform: FakePlatform) -> str:
    """teacher-1's deep-linking launch from the LMS course NEW; the picker page it goes to."""
    assert deep_linking_launch(client, platform).endswith("/lti/pick")
    return client.get("/lti/pick").get_data(as_text=True)


def own_list(app: Flask) -> None:
    """The new LMS course's instructor gives it a list of its own (empty) instead of the whole catalogue."""
    with app.app_context():
        course = db.session.get(Course, course_id(app))
        assert course is not None and course.whole_catalogue  # where a new course starts
        course.whole_catalogue = False
        db.session.commit()


def test_the_picker_offers_the_course_content_published_only(app: Flask, platform: FakePlatform) -> None:
    teacher_launch(app, platform)
    own_list(app)
    with app.app_context():
        course_content.use_exercises(course_id(app), ["block-layernorm", "block-gelu", "ffn-keys"])
        db.session.execute(sa.update(Exercise).where(Exercise.id == "block-gelu").values(status=DRAFT))
        db.session.commit()
    client = app.test_client()
    page = picker(client, platform)
    offered = set(re.findall(r'name="target" value="([^"]+)"', page))
    assert offered == {"lesson:gpt2-block", "exercise:block-layernorm", "lesson:ffn-memory", "exercise:ffn-keys"}
    for other in ("exercise:block-gelu", "exercise:block-residual"):  # a draft; one the course does not use
        assert client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": other}).status_code == 400


def test_a_new_course_offers_the_catalogue_and_one_with_an_empty_list_says_so(app: Flask,
                                                                              platform: FakePlatform) -> None:  # fmt: skip
    first = picker(app.test_client(), platform)
    assert 'value="exercise:block-layernorm"' in first  # a new course is on the whole catalogue
    own_list(app)
    page = picker(app.test_client(), platform)
    assert "uses no published exercises yet" in page and 'name="target"' not in page


def test_scores_go_to_the_line_item_of_the_course_the_grade_is_in(app: Flask, platform: FakePlatform) -> None:
    teacher_launch(app, platform)
    with app.app_context():
        course_content.use_exercises(course_id(app), ["block-layernorm"])
    here = app.test_client()
    launch(here, platform, context=NEW, custom={"exercise": "block-layernorm"}, **line_item(platform, 2))
    answer(app, here, right=True)  # in tf-102-2027, the session's working course after that launch
    wait_for(lambda: platform.scores)
    assert [(s["path"], s["score"]["scoreGiven"]) for s in platform.scores] == [("/lineitems/2/scores", 100.0)]
    default = app.test_client()  # the same learner from the LMS course mapped to `default`
    launch(default, platform, custom={"exercise": "block-layernorm"}, **line_item(platform, 1))
    answer(app, default, right=False)
    wait_for(lambda: len(platform.scores) == 2)
    assert (platform.scores[1]["path"], platform.scores[1]["score"]["scoreGiven"]) == ("/lineitems/1/scores", 0.0)
    with app.app_context():
        links = dict(db.session.execute(sa.select(GradeLink.lineitem, GradeLink.course_id)).all())
    assert links == {f"{platform.url}/lineitems/2": course_id(app), f"{platform.url}/lineitems/1": course_id(app,
                                                                                                           "default")}


def test_in_a_course_of_its_own_every_grade_change_reaches_the_lms(app: Flask, platform: FakePlatform) -> None:
    save(app, TIGHT, LATE)
    teacher = teacher_launch(app, platform)  # works in tf-102-2027, as its instructor
    cid = course_id(app)
    with app.app_context():
        course_content.use_exercises(cid, ["quiz"])
    assert launch(app.test_client(), platform, context=NEW, custom={"exercise": "quiz"}).status_code == 303
    learner = next(uid for email, uid in _ids(app).items() if email.startswith("learner-1"))
    teacher_id = _ids(app)["teacher-1@school.example"]
    with app.app_context():  # an attempt: a near miss, late
        attempts.submit(Seat(cid, learner), "quiz", {"h": off_by(app, "learner-1@school.example", 0.003)})
    lms_gets(platform, teacher, 0.0)
    save(app, LOOSE, LATE)
    with app.app_context():  # a regrade
        regrade("quiz")
    lms_gets(platform, teacher, 50.0)
    assert set_score(teacher, learner, "80", exercise="quiz").status_code == 303  # an override
    lms_gets(platform, teacher, 80.0)
    assert set_score(teacher, learner, "", action="remove", exercise="quiz").status_code == 303
    lms_gets(platform, teacher, 50.0)
    with app.app_context():  # an extension, then the attempts graded again under it
        extensions.grant(Seat(cid, learner), ["quiz"], due_from_text(FUTURE), teacher_id)
        regrade("quiz")
    lms_gets(platform, teacher, 100.0)
    with app.app_context():
        extensions.withdraw(Seat(cid, learner), ["quiz"], teacher_id)
        regrade("quiz")
    lms_gets(platform, teacher, 50.0)
    save(app, LOOSE, f"due: {FUTURE}\nlate_credit: 0.5\n")  # the exercise's due date moved
    with app.app_context():
        regrade("quiz")
    lms_gets(platform, teacher, 100.0)
    assert {s["path"] for s in platform.scores} == {"/lineitems/1/scores?course=1"}  # the launch's line item


def _ids(app: Flask) -> dict[str, int]:
    from grader.models import User

    with app.app_context():
        return dict(db.session.execute(sa.select(User.email, User.id)).all())


def test_the_roster_brings_learners_into_the_mapped_course(app: Flask, platform: FakePlatform) -> None:
    platform.moodle = True  # short role names in the member list
    platform.members = [{"user_id": "7", "name": "Bea", "email": "bea@school.example", "roles": [LEARNER]},
                        {"user_id": "teacher-1", "name": "T", "roles": [INSTRUCTOR]}]
    nrps = {NRPS: {"context_memberships_url": f"{platform.url}/memberships", "service_versions": ["2.0"]}}
    teacher = teacher_launch(app, platform, **nrps)
    with app.app_context():
        url = db.session.scalar(sa.select(LtiContext.memberships_url).where(LtiContext.context_id == "course-2"))
    assert url == f"{platform.url}/memberships"
    page = teacher.get("/lti/roster").get_data(as_text=True)
    assert teacher.post("/lti/roster", data={"csrf_token": csrf_from(page)}).status_code == 303
    assert members(app, CODE) == {"teacher-1@school.example": "instructor", "bea@school.example": "learner"}
    assert "bea@school.example" not in members(app, "default")


def test_the_pick_is_from_the_lms_course_s_course_whichever_course_the_instructor_works_in_meanwhile(
        app: Flask, platform: FakePlatform) -> None:  # fmt: skip
    teacher_launch(app, platform)
    own_list(app)
    with app.app_context():
        course_content.use_exercises(course_id(app), ["block-layernorm"])
        ml101 = courses.create("ml101", "Machine learning")
        course_content.use_exercises(ml101.id, ["ffn-keys"])
        teacher = db.session.scalars(sa.select(User).where(User.email == "teacher-1@school.example")).one()
        courses.add_member(ml101, teacher, "instructor")
        db.session.commit()
    client = app.test_client()
    picker(client, platform)
    with client.session_transaction() as session:  # another tab: the instructor switches to ml101
        session[SESSION_KEY] = "ml101"
    page = client.get("/lti/pick").get_data(as_text=True)
    assert set(re.findall(r'name="target" value="([^"]+)"', page)) == {"lesson:gpt2-block",
                                                                        "exercise:block-layernorm"}
    refused = client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": "exercise:ffn-keys"})
    assert refused.status_code == 400  # ml101's, not this LMS course's
    picked = client.post("/lti/pick", data={"csrf_token": csrf_from(page), "target": "exercise:block-layernorm"})
    assert picked.status_code == 200 and "deep-link-return" in picked.get_data(as_text=True)


def test_a_pick_after_linking_the_lms_course_is_from_the_course_linked_to(app: Flask, platform: FakePlatform) -> None:
    teacher_launch(app, platform)
    own_list(app)
    with app.app_context():
        course_content.use_exercises(course_id(app), ["ffn-keys"])
    client = app.test_client()  # a deep-linking launch from a second, new LMS course
    assert deep_linking_launch(client, platform, {**NEW, "id": "course-3"}).endswith("/lti/course")
    page = client.get("/lti/course").get_data(as_text=True)
    linked = client.post("/lti/course", data={"csrf_token": csrf_from(page), "course": CODE})
    assert linked.status_code == 303 and linked.headers["Location"].endswith("/lti/pick")
    offered = set(re.findall(r'name="target" value="([^"]+)"', client.get("/lti/pick").get_data(as_text=True)))
    assert offered == {"lesson:ffn-memory", "exercise:ffn-keys"}


def test_someone_who_does_not_teach_the_kept_course_cannot_pick(app: Flask, platform: FakePlatform) -> None:
    teacher_launch(app, platform)
    client = app.test_client()
    picker(client, platform)
    with app.app_context():  # teacher-1 stops teaching the LMS course's course before picking
        teacher = db.session.scalars(sa.select(User).where(User.email == "teacher-1@school.example")).one()
        db.session.execute(sa.update(CourseMember).where(CourseMember.user_id == teacher.id,
                                                         CourseMember.course_id == course_id(app)).values(role="learner"))
        db.session.commit()
    assert client.get("/lti/pick").status_code == 403
