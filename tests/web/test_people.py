"""The People page: a course's members with their roles and how they joined; its instructors change roles,
remove people (their work stays), add one by email and import a file or list; its TAs only read it."""

from __future__ import annotations

import io

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import INSTRUCTOR, LEARNER, TA
from grader.extensions import db
from grader.models import AuditEvent, Progress
from grader.services import accounts, attempts, courses
from grader.services.courses import Seat
from tests.web.conftest import csrf_from
from tests.web.test_courses import EXERCISE, ZEROS, person, signed_in, two_courses  # noqa: F401 (a fixture)


def post(client: FlaskClient, url: str, **data: object):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/teach/people").get_data(as_text=True))
    return client.post(url, data={"csrf_token": token, **data}, content_type="multipart/form-data")


def roles_in(app: Flask, code: str) -> dict[str, str]:
    with app.app_context():
        course = courses.by_code(code)
        assert course is not None
        from grader.services import enrolment

        return {p.email: p.role for p in enrolment.people(course.id)[0]}


def test_the_list_shows_members_roles_how_they_joined_and_counts(app: Flask, two_courses: dict[str, int]) -> None:
    page = signed_in(app, "t1@example.com").get("/teach/people").get_data(as_text=True)
    assert "1 instructor · 0 teaching assistants · 2 learners" in page
    assert "bo@example.com" in page and "t2@example.com" not in page  # ml102's instructor is not ml101's
    assert "added by an instructor" in page and 'action="/teach/people/import"' in page
    assert f'href="/teach/people/{two_courses["bo"]}"' in page
    only_bo = signed_in(app, "t1@example.com").get("/teach/people?q=BO@&role=learner").get_data(as_text=True)
    assert "bo@example.com" in only_bo and "ada@example.com" not in only_bo


def test_a_ta_reads_the_list_and_changes_nothing_and_a_learner_sees_none(
        app: Flask, two_courses: dict[str, int]) -> None:  # fmt: skip
    person(app, "ta@example.com", ("ml101", TA))
    ta = signed_in(app, "ta@example.com")
    page = ta.get("/teach/people").get_data(as_text=True)
    assert "bo@example.com" in page and "/teach/people/import" not in page and "/teach/people/add" not in page
    token = csrf_from(page)
    bo = two_courses["bo"]
    assert ta.get(f"/teach/people/{bo}").status_code == 403
    for url, data in ((f"/teach/people/{bo}/role", {"role": INSTRUCTOR}), (f"/teach/people/{bo}/remove", {}),
                      ("/teach/people/add", {"email": "x@example.com", "role": LEARNER}),
                      ("/teach/people/import", {"emails": "x@example.com"})):  # fmt: skip
        assert ta.post(url, data={"csrf_token": token, **data}).status_code == 403, url
    assert roles_in(app, "ml101")["bo@example.com"] == LEARNER
    assert signed_in(app, "bo@example.com").get("/teach/people").status_code == 403


def test_an_instructor_changes_a_role_but_the_last_instructor_keeps_theirs(app: Flask, two_courses: dict[str, int]) -> None:
    t1, bo, me = signed_in(app, "t1@example.com"), two_courses["bo"], two_courses["t1"]
    assert post(t1, f"/teach/people/{bo}/role", role=TA).status_code == 303
    assert roles_in(app, "ml101")["bo@example.com"] == TA
    alone = post(t1, f"/teach/people/{me}/role", role=LEARNER)
    assert alone.status_code == 422 and "only instructor" in alone.get_data(as_text=True)
    removing = post(t1, f"/teach/people/{me}/remove")
    assert removing.status_code == 422 and "only instructor" in removing.get_data(as_text=True)
    assert post(t1, f"/teach/people/{bo}/role", role="admin").status_code == 422  # not a course role
    assert post(t1, f"/teach/people/{bo}/role", role=INSTRUCTOR).status_code == 303
    stepping_down = post(t1, f"/teach/people/{me}/role", role=TA)  # bo now runs the course
    assert stepping_down.status_code == 303 and stepping_down.headers["Location"] == "/teach/people"
    assert roles_in(app, "ml101")["t1@example.com"] == TA
    with app.app_context():
        events = db.session.scalars(sa.select(AuditEvent).where(AuditEvent.action == "member.role")).all()
        assert [(e.learner_id, e.detail["role"], e.course_id) for e in events] == [
            (bo, TA, two_courses["ml101"]), (bo, INSTRUCTOR, two_courses["ml101"]), (me, TA, two_courses["ml101"])]


def test_removing_a_learner_ends_access_and_keeps_their_work(app: Flask, two_courses: dict[str, int]) -> None:
    bo = two_courses["bo"]
    with app.app_context():
        attempts.submit(Seat(two_courses["ml101"], bo), EXERCISE, {"h": ZEROS})
    t1 = signed_in(app, "t1@example.com")
    assert post(t1, f"/teach/people/{bo}/remove").status_code == 303
    assert "bo@example.com" not in roles_in(app, "ml101")
    assert t1.get(f"/teach/people/{bo}").status_code == 404
    with app.app_context():
        assert courses.memberships(bo) == []
        kept = db.session.scalar(sa.select(Progress).where(Progress.course_id == two_courses["ml101"],
                                                           Progress.user_id == bo))  # fmt: skip
        assert kept is not None and kept.attempts_used == 1
    assert signed_in(app, "bo@example.com").get(f"/exercises/{EXERCISE}").status_code == 404
    # Added again, their attempt is theirs again.
    assert post(t1, "/teach/people/add", email="bo@example.com", role=LEARNER).status_code == 303
    assert "1 attempt" in signed_in(app, "bo@example.com").get("/").get_data(as_text=True)


def test_another_courses_member_is_not_there_to_see_or_change(app: Flask, two_courses: dict[str, int]) -> None:
    t2, bo = signed_in(app, "t2@example.com"), two_courses["bo"]  # bo is in ml101 only
    assert t2.get(f"/teach/people/{bo}").status_code == 404
    assert post(t2, f"/teach/people/{bo}/role", role=INSTRUCTOR).status_code == 404
    assert post(t2, f"/teach/people/{bo}/remove").status_code == 404
    assert roles_in(app, "ml101")["bo@example.com"] == LEARNER


def test_adding_by_email_makes_an_account_and_a_bad_address_is_said_next_to_the_field(
        app: Flask, two_courses: dict[str, int]) -> None:  # fmt: skip
    t1 = signed_in(app, "t1@example.com")
    added = post(t1, "/teach/people/add", email="New@Example.com", role=TA)
    assert added.status_code == 303
    assert "new@example.com is now in the course as teaching assistant" in t1.get("/teach/people").get_data(as_text=True)
    with app.app_context():
        made = accounts.user_by_email("new@example.com")
        assert made is not None and accounts.authenticate("new@example.com", "") is None
    bad = post(t1, "/teach/people/add", email="\u0430lice@example.com", role=LEARNER)
    page = bad.get_data(as_text=True)
    assert bad.status_code == 422 and 'id="email-error"' in page and "mixes letters of different alphabets" in page
    again = post(t1, "/teach/people/add", email="ada@example.com", role=LEARNER)
    assert again.status_code == 303 and "in the course already" in t1.get("/teach/people").get_data(as_text=True)


def test_an_import_with_bad_rows_lists_them_and_imports_only_when_asked(app: Flask, two_courses: dict[str, int]) -> None:
    t1 = signed_in(app, "t1@example.com")
    csv = "email;role\ncy@example.com;ta\nnot-an-email;\ndi@example.com;boss\n".encode()
    refused = post(t1, "/teach/people/import", upload=(io.BytesIO(csv), "class.csv"))
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "Nothing imported" in page
    assert "<td class=\"num\">3</td><td>not-an-email</td><td>Enter a valid email address.</td>" in page
    assert "unknown role boss" in page and "cy@example.com" not in roles_in(app, "ml101")
    done = post(t1, "/teach/people/import", upload=(io.BytesIO(csv), "class.csv"), good_only="y")
    assert done.status_code == 200 and "1 person added (1 new account)" in done.get_data(as_text=True)
    assert roles_in(app, "ml101")["cy@example.com"] == TA
    listed = post(t1, "/teach/people/import", emails="Ed <ed@example.com>, cy@example.com; bo@example.com")
    assert listed.status_code == 200 and "1 person added" in listed.get_data(as_text=True)
    assert "2 were in the course already" in listed.get_data(as_text=True)
    empty = post(t1, "/teach/people/import")
    assert empty.status_code == 422 and "Choose a CSV file, or paste a list of emails." in empty.get_data(as_text=True)
    huge = post(t1, "/teach/people/import", upload=(io.BytesIO(b"x" * 1_000_001), "big.csv"))
    assert huge.status_code == 422 and "The file is 1001 KB; at most 1000 KB are read at once." in huge.get_data(as_text=True)


def test_the_audit_trail_names_what_was_done_to_people(app: Flask, two_courses: dict[str, int]) -> None:
    t1 = signed_in(app, "t1@example.com")
    post(t1, "/teach/people/import", emails="cy@example.com")
    post(t1, f"/teach/people/{two_courses['bo']}/remove")
    trail = t1.get("/teach/audit").get_data(as_text=True)
    assert "people added" in trail and "from a list of emails" in trail and "removed from the course" in trail


def test_an_instructor_who_leaves_goes_to_their_courses_and_an_admin_runs_any_course(
        app: Flask, two_courses: dict[str, int]) -> None:  # fmt: skip
    person(app, "t3@example.com", ("ml101", INSTRUCTOR))
    t1 = signed_in(app, "t1@example.com")
    leaving = post(t1, f"/teach/people/{two_courses['t1']}/remove")
    assert leaving.status_code == 303 and leaving.headers["Location"] == "/courses"
    assert t1.get("/teach/people").status_code == 403  # in no course now
    with app.app_context():
        admin = accounts.create_user("root@example.com", "correct horse battery", "admin")
        assert courses.memberships(admin.id) == []
    root = signed_in(app, "root@example.com", "ml101")
    assert post(root, f"/teach/people/{two_courses['bo']}/role", role=TA).status_code == 303
    assert roles_in(app, "ml101") == {"t3@example.com": INSTRUCTOR, "bo@example.com": TA, "ada@example.com": LEARNER}
