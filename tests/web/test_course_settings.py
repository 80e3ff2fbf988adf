"""Course settings and new courses on the web, and exercises written in a course: only its instructors change
them, and someone who teaches two courses copies one from the one to the other."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from grader.course_models import INSTRUCTOR, TA
from grader.extensions import db
from grader.models import DRAFT, AuditEvent, Exercise, User
from grader.services import courses, exercises
from tests.web.conftest import csrf_from, make_user
from tests.web.test_courses import person, signed_in, two_courses  # noqa: F401 - a fixture

SETTINGS = "/teach/course"


def post(client: FlaskClient, url: str, form_page: str, **data: str) -> tuple[int, str]:
    """Post a form with the CSRF token of the page it is on; the status and the page (or where it went)."""
    token = csrf_from(client.get(form_page).get_data(as_text=True))
    response = client.post(url, data={"csrf_token": token, **data})
    return response.status_code, response.get_data(as_text=True)


def test_an_instructor_changes_title_language_and_dates(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    t1 = signed_in(app, "t1@example.com")
    status, _ = post(t1, SETTINGS, SETTINGS, title="  Transformers,  spring ", locale="pt", starts="2027-02-01",
                     ends="2027-06-30")
    assert status == 303
    with app.app_context():
        course = courses.by_code("ml101")
        assert course is not None and (course.title, course.locale) == ("Transformers, spring", "pt")
        assert course.starts_at is not None and course.starts_at.isoformat() == "2027-02-01T00:00:00"
        assert course.ends_at is not None and course.ends_at.isoformat() == "2027-07-01T00:00:00"  # the day's end
    assert 'value="2027-06-30"' in t1.get(SETTINGS).get_data(as_text=True)


def test_bad_settings_are_said_next_to_each_field(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    t1 = signed_in(app, "t1@example.com")
    status, page = post(t1, SETTINGS, SETTINGS, title=" ", locale="de", starts="2027-03-01", ends="2027-02-01")
    assert status == 422
    for field in ("title", "locale", "ends"):
        assert f'id="{field}-error"' in page
    status, page = post(t1, SETTINGS, SETTINGS, title="x", locale="en", starts="1 March", ends="9999-12-31")
    assert status == 422 and 'id="starts-error"' in page and 'id="ends-error"' in page and "YYYY-MM-DD" in page
    with app.app_context():
        assert courses.by_code("ml101").title == "Transformers ml101"  # type: ignore[union-attr]
    assert t1.post(SETTINGS, data={"title": "x", "locale": "en"}).status_code == 400  # no CSRF token


def test_joining_switches_on_with_an_expiry_and_a_new_code_replaces_the_old(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    t1 = signed_in(app, "t1@example.com")
    assert post(t1, f"{SETTINGS}/joining", SETTINGS, enabled="y", expires="2099-01-31")[0] == 303
    with app.app_context():
        course = courses.by_code("ml101")
        assert course is not None and course.join_enabled and course.join_code
        assert course.join_expires_at is not None and course.join_expires_at.isoformat() == "2099-02-01T00:00:00"
        old = course.join_code
    assert post(t1, f"{SETTINGS}/new-code", SETTINGS)[0] == 303
    with app.app_context():
        assert courses.by_code("ml101").join_code not in (None, old)  # type: ignore[union-attr]
    assert post(t1, f"{SETTINGS}/joining", SETTINGS, expires="soon")[0] == 422
    assert post(t1, f"{SETTINGS}/joining", SETTINGS)[0] == 303
    with app.app_context():
        assert not courses.by_code("ml101").join_enabled  # type: ignore[union-attr]


def test_only_the_courses_instructors_reach_its_settings(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    person(app, "ta@example.com", ("ml101", TA))
    for email, status in (("ada@example.com", 403), ("ta@example.com", 403), ("t1@example.com", 200)):
        client = signed_in(app, email, "ml101")
        assert client.get(SETTINGS).status_code == status
        assert client.get(f"{SETTINGS}/content").status_code == status
    assert app.test_client().get(SETTINGS).status_code == 302  # to the sign-in


def test_staff_make_a_course_and_become_its_instructor(app: Flask, instructor: FlaskClient) -> None:
    status, _ = post(instructor, f"{SETTINGS}/new", f"{SETTINGS}/new", code="ml201-2027s", title="Transformers II",
                     locale="ru")
    assert status == 303
    with app.app_context():
        made = courses.by_code("ml201-2027s")
        assert made is not None and made.locale == "ru"
        assert [m.role for m in courses.memberships(made.created_by or 0) if m.code == made.code] == [INSTRUCTOR]
    assert "Transformers II" in instructor.get(SETTINGS).get_data(as_text=True)  # working in it now


def test_a_bad_or_taken_code_is_said_next_to_it_and_makes_nothing(app: Flask, instructor: FlaskClient) -> None:
    for code, said in (("default", "exists already"), ("ML 101!", "lower-case letters")):
        status, page = post(instructor, f"{SETTINGS}/new", f"{SETTINGS}/new", code=code, title="T", locale="en")
        assert status == 422 and 'id="code-error"' in page and said in page
    with app.app_context():
        assert [c.code for c in courses.all_courses()] == ["default"]


def test_learners_make_no_course(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    ada = signed_in(app, "ada@example.com")
    assert ada.get(f"{SETTINGS}/new").status_code == 403
    token = csrf_from(ada.get("/courses").get_data(as_text=True))
    assert ada.post(f"{SETTINGS}/new", data={"csrf_token": token, "code": "mine", "title": "Mine"}).status_code == 403
    with app.app_context():
        assert courses.by_code("mine") is None


def written_in(app: Flask, course_code: str, new_id: str, by: int) -> None:
    """An exercise written on the web in a course: a copy of block-gelu under another id, as a draft."""
    with app.app_context():
        course = courses.by_code(course_code)
        assert course is not None
        source = exercises.latest_version("block-gelu").source.replace("id: block-gelu", f"id: {new_id}", 1)  # type: ignore[union-attr]
        exercises.save_source(source, by, "web", publish=False, course_id=course.id)


def test_another_courses_instructor_cannot_edit_publish_preview_or_export_its_exercise(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    written_in(app, "ml101", "gelu-mine", two_courses["t1"])
    t1, t2 = signed_in(app, "t1@example.com"), signed_in(app, "t2@example.com")
    for url in ("/teach/exercises/gelu-mine/edit", "/teach/exercises/gelu-mine/export",
                "/teach/exercises/gelu-mine/as-learner", "/teach/exercises/gelu-mine",
                "/teach/exercises/new?from=gelu-mine"):
        assert t2.get(url).status_code == 404, url
        assert t1.get(url).status_code == 200, url
    token = csrf_from(t2.get("/teach/exercises").get_data(as_text=True))
    for action in ("publish", "unpublish"):
        assert t2.post(f"/teach/exercises/gelu-mine/{action}", data={"csrf_token": token}).status_code == 404
    with app.app_context():
        assert db.session.get(Exercise, "gelu-mine").status == DRAFT  # type: ignore[union-attr]
    assert post(t1, "/teach/exercises/gelu-mine/publish", "/teach/exercises/gelu-mine")[0] == 303


def test_an_import_over_another_courses_exercise_is_refused(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    written_in(app, "ml101", "gelu-mine", two_courses["t1"])
    t2 = signed_in(app, "t2@example.com")
    with app.app_context():
        source = exercises.latest_version("gelu-mine").source.replace("title:", "title: Taken over", 1)  # type: ignore[union-attr]
    token = csrf_from(t2.get("/teach/import").get_data(as_text=True))
    from io import BytesIO
    response = t2.post("/teach/import", data={"csrf_token": token, "upload": (BytesIO(source.encode()), "x.yaml")},
                       content_type="multipart/form-data")
    assert response.status_code == 422 and "already taken" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.get(Exercise, "gelu-mine").latest_version == 1  # type: ignore[union-attr]


def test_an_exercise_written_in_a_course_belongs_to_it(app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    t1 = signed_in(app, "t1@example.com")
    with app.app_context():
        source = exercises.latest_version("block-gelu").source.replace("id: block-gelu", "id: gelu-new", 1)  # type: ignore[union-attr]
    status, _ = post(t1, "/teach/exercises/new?mode=yaml", "/teach/exercises/new?mode=yaml", mode="yaml",
                     source=source, action="save")
    assert status == 303
    with app.app_context():
        assert db.session.get(Exercise, "gelu-new").course_id == two_courses["ml101"]  # type: ignore[union-attr]


def test_an_instructor_of_two_courses_copies_an_exercise_into_the_other_as_a_draft(
        app: Flask, two_courses: dict[str, int]) -> None:  # noqa: F811
    with app.app_context():
        both = courses.add_member(courses.by_code("ml102"), db.session.get(User, two_courses["t1"]), INSTRUCTOR)  # type: ignore[arg-type]
        assert both
    written_in(app, "ml101", "gelu-mine", two_courses["t1"])
    t1 = signed_in(app, "t1@example.com", "ml101")
    content = t1.get(f"{SETTINGS}/content").get_data(as_text=True)
    assert 'value="ml102"' in content
    status, _ = post(t1, f"{SETTINGS}/content/exercise/gelu-mine/copy", f"{SETTINGS}/content", target="ml102")
    assert status == 303
    assert post(t1, f"{SETTINGS}/content/exercise/gelu-mine/copy", f"{SETTINGS}/content", target="ml102")[0] == 303
    with app.app_context():
        copy, again = db.session.get(Exercise, "gelu-mine-ml102"), db.session.get(Exercise, "gelu-mine-ml102-2")
        assert copy is not None and again is not None
        assert (copy.course_id, copy.status) == (two_courses["ml102"], DRAFT)
        assert exercises.spec_of(exercises.latest_version(copy.id)).title == exercises.spec_of(  # type: ignore[arg-type]
            exercises.latest_version("gelu-mine")).title  # type: ignore[arg-type]
        event = db.session.query(AuditEvent).filter_by(action="exercise.copied", exercise_id=copy.id).one()
        assert event.course_id == two_courses["ml102"] and event.detail["source"] == "gelu-mine"
    in_102 = signed_in(app, "t1@example.com", "ml102")
    assert in_102.get("/teach/exercises/gelu-mine-ml102/edit").status_code == 200
    assert in_102.get("/teach/exercises/gelu-mine/edit").status_code == 404  # the original stays ml101's
    # Someone who teaches ml102 only has nowhere to copy into, and no ml101 exercise to copy.
    t2 = signed_in(app, "t2@example.com")
    assert post(t2, f"{SETTINGS}/content/exercise/gelu-mine/copy", f"{SETTINGS}/content", target="ml101")[0] == 404
