"""Joining with a code, when the code is wrong: an unknown, switched-off or expired code, an empty or overlong
one, each said next to the field on a page of its own, and nobody enrolled anywhere."""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask

from grader.course_models import INSTRUCTOR, LEARNER
from grader.extensions import db
from grader.models import utcnow
from grader.services import courses
from tests.web.test_courses import join, person, signed_in, two_courses  # noqa: F401 (a fixture)


def set_code(app: Flask, state: str) -> str:
    """ml102's join code, switched on, off, or on but expired a minute ago."""
    with app.app_context():
        course = courses.by_code("ml102")
        assert course is not None
        code = courses.open_joining(course, utcnow() - timedelta(minutes=1) if state == "expired" else None)
        if state == "off":
            courses.close_joining(course)
        return code


@pytest.mark.parametrize(("state", "said"), [
    ("unknown", "There is no course with this code. Check it with your instructor."),
    ("off", "Joining Transformers ml102 with a code is switched off. Ask your instructor."),
    ("expired", "This code for Transformers ml102 has expired. Ask your instructor for a new one."),
    ("empty", "This field is required."),
    ("overlong", "Field cannot be longer than 32 characters."),
])  # fmt: skip
def test_a_bad_code_says_why_next_to_the_field_and_enrols_nobody(
        app: Flask, two_courses: dict[str, int], state: str, said: str) -> None:  # fmt: skip
    newcomer = person(app, "cy@example.com")
    code = set_code(app, state) if state in ("off", "expired") else {"unknown": "abcdefghjk", "empty": "",
                                                                     "overlong": "a" * 33}[state]  # fmt: skip
    client = signed_in(app, "cy@example.com")
    if code:  # the link fills the form in, and joins nobody by itself
        assert client.get(f"/join/{code}").status_code == 200
    refused = join(client, code)
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422
    assert f'<span class="error" id="code-error">{said}</span>' in page and 'aria-invalid="true"' in page
    with app.app_context():
        assert courses.memberships(newcomer) == []


def test_staff_who_follow_their_courses_link_keep_their_role(app: Flask, two_courses: dict[str, int]) -> None:
    code = set_code(app, "on")
    assert join(signed_in(app, "t2@example.com"), code).status_code == 303
    with app.app_context():
        assert [(m.code, m.role) for m in courses.memberships(two_courses["t2"])] == [("ml102", INSTRUCTOR)]
        course = courses.by_code("ml102")
        assert course is not None
        course.join_enabled = False
        db.session.commit()
    # A learner already in the course who tries a switched-off code stays as they were.
    assert join(signed_in(app, "ada@example.com"), code).status_code == 422
    with app.app_context():
        assert ("ml102", LEARNER) in [(m.code, m.role) for m in courses.memberships(two_courses["ada"])]
