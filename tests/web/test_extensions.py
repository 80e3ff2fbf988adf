"""Extensions: an instructor gives one learner their own due date on one exercise."""

from __future__ import annotations

from html import unescape

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from grader.catalog.policy import DUE_EXAMPLE
from grader.extensions import db
from grader.models import Attempt, Extension, User
from grader.code_models import Submission
from grader.services import extensions
from tests.layer_norm_sources import GOOD
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import csrf_from, login, make_user, seat
from tests.web.test_code import send
from tests.web.test_due_dates import PAST, only, utc, with_due
from tests.web.test_i18n import choose, tr
from tests.web.test_learn import expected, fmt, post_answers

LATER = "2999-06-01T12:00:00+02:00"  # 10:00 UTC
SHOWN = utc("2999-06-01T10:00:00", "01 Jun 2999, 10:00")


def user_id(app: Flask, email: str) -> int:
    with app.app_context():
        found = db.session.scalar(sa.select(User.id).where(User.email == email))
        assert found is not None
        return found


def set_due(instructor: FlaskClient, learner_id: int, exercise: str, due: str = LATER, action: str = "set",
            whole_lesson: bool = False):  # type: ignore[no-untyped-def]  # fmt: skip
    page = instructor.get(f"/teach/gradebook/{learner_id}/{exercise}").get_data(as_text=True)
    data = {"csrf_token": csrf_from(page), "due": due, "action": action, **({"whole_lesson": "y"} if whole_lesson else {})}
    return instructor.post(f"/teach/gradebook/{learner_id}/{exercise}/due", data=data)


def test_an_extended_learner_is_on_time_and_the_others_are_not(app: Flask, learner: FlaskClient,
                                                               instructor: FlaskClient) -> None:  # fmt: skip
    exercise = with_due(app, PAST, 0.5)
    ada = user_id(app, "ada@example.com")
    answer = set_due(instructor, ada, exercise)
    assert answer.status_code == 303
    page = instructor.get(answer.headers["Location"]).get_data(as_text=True)
    assert "ada@example.com now has until 01 Jun 2999, 10:00 UTC." in page
    assert "This learner has their own due date, 01 Jun 2999, 10:00 UTC; the exercise's is 01 Jan 2000" in page
    assert f"Due {SHOWN}." in learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert f"due {SHOWN}" in learner.get("/").get_data(as_text=True)
    right = fmt(expected(app, exercise)["h"])
    shown = learner.get(post_answers(learner, exercise, {"h": right}).headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 100\u00a0%" in shown and "sent after the due date" not in shown
    make_user(app, "bob@example.com")
    bob = app.test_client()
    login(bob, "bob@example.com")
    assert "past due" in bob.get("/").get_data(as_text=True)
    post_answers(bob, exercise, {"h": fmt(expected(app, exercise, "bob@example.com")["h"])})
    with app.app_context():
        scores = dict(db.session.execute(sa.select(User.email, Attempt.score).join(User, User.id == Attempt.user_id)).all())
    assert scores == {"ada@example.com": 1.0, "bob@example.com": 0.5}


def test_the_api_gives_the_learner_their_own_due_date(app: Flask, client: FlaskClient,
                                                      instructor: FlaskClient) -> None:  # fmt: skip
    exercise = with_due(app, PAST, 0.5)
    token = token_for(app)
    set_due(instructor, user_id(app, "ada@example.com"), exercise)
    detail = client.get(f"{API}/exercises/{exercise}", headers=auth(token)).get_json()
    assert detail["due"] == "2999-06-01T10:00:00Z"
    right = {"answers": {"h": fmt(expected(app, exercise)["h"])}}
    stored = client.post(f"{API}/exercises/{exercise}/attempts", json=right, headers=auth(token)).get_json()
    assert (stored["late"], stored["score"]) == (False, 1.0)


def test_removing_the_extension_brings_the_exercises_date_back(app: Flask, learner: FlaskClient,
                                                               instructor: FlaskClient) -> None:  # fmt: skip
    exercise = with_due(app, PAST, 0.5)
    ada = user_id(app, "ada@example.com")
    set_due(instructor, ada, exercise)
    removed = set_due(instructor, ada, exercise, action="remove")
    assert "the exercise&#39;s due date applies again" in instructor.get(removed.headers["Location"]).get_data(as_text=True)
    with app.app_context():
        assert extensions.own_due(seat(ada), exercise) is None
    assert "has passed" in learner.get(f"/exercises/{exercise}").get_data(as_text=True)


def test_an_extension_never_takes_time_away(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    exercise = with_due(app, "2999-12-01T00:00:00Z")  # later than the extension, LATER (1 Jun 2999)
    ada = user_id(app, "ada@example.com")
    answer = set_due(instructor, ada, exercise)
    page = unescape(instructor.get(answer.headers["Location"]).get_data(as_text=True))
    assert "The exercise's own due date is not earlier, so it still applies: an extension only gives more time." in page
    assert "This learner's extension, to 01 Jun 2999, 10:00 UTC, is not later, so it gives nothing." in page
    december = utc("2999-12-01T00:00:00", "01 Dec 2999, 00:00")
    assert f"Due {december}." in learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    with_due(app, "2999-01-01T00:00:00Z")  # the exercise's date moves before the extension: that now gives more time
    assert f"Due {SHOWN}." in learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    page = unescape(instructor.get(f"/teach/gradebook/{ada}/{exercise}").get_data(as_text=True))
    assert "This learner has their own due date, 01 Jun 2999, 10:00 UTC; the exercise's is 01 Jan 2999" in page


def test_extending_a_lesson_names_the_exercises_already_due_later(app: Flask, learner: FlaskClient,
                                                                  instructor: FlaskClient) -> None:  # fmt: skip
    first = with_due(app, PAST)
    with_due(app, "2999-12-01T00:00:00Z", exercise="gpt2-block/block-gelu", new_id="gelu-later")
    answer = set_due(instructor, user_id(app, "ada@example.com"), first, whole_lesson=True)
    page = unescape(instructor.get(answer.headers["Location"]).get_data(as_text=True))
    assert "On gelu-later the exercise's own due date is not earlier, so it still applies" in page


def test_a_malformed_date_is_refused_at_its_field(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    exercise = with_due(app, PAST, 0.5)
    answer = set_due(instructor, user_id(app, "ada@example.com"), exercise, due="2999-06-01 12:00")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422 and '<span class="error" id="due-error">give the due date a time zone' in html
    assert 'value="2999-06-01 12:00"' in html  # what was typed stays in the field
    too_long = set_due(instructor, user_id(app, "ada@example.com"), exercise, due="2999-06-01T12:00:00+02:00" + " " * 60)
    assert too_long.status_code == 422 and "longer than 64 characters" in too_long.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Extension)) == 0


@pytest.mark.parametrize("locale", ["pt", "ru"])
def test_a_malformed_date_is_refused_in_the_pages_language(app: Flask, learner: FlaskClient, instructor: FlaskClient,
                                                           locale: str) -> None:  # fmt: skip
    exercise, ada = with_due(app, PAST, 0.5), user_id(app, "ada@example.com")
    choose(instructor, locale)
    for typed, problem in [
        ("2999-06-01 12:00", "give the due date a time zone, such as %(example)s (or Z for UTC)"),
        ("next friday", "write the due date as a date, time and zone, such as %(example)s"),
        ("0001-01-01T00:00:00+14:00", "the due date falls outside the years 1 to 9999 in UTC; give one such as %(example)s"),
    ]:  # fmt: skip
        answer = set_due(instructor, ada, exercise, due=typed)
        said = tr(locale, problem) % {"example": DUE_EXAMPLE}
        assert answer.status_code == 422 and f'>{said}</span>' in unescape(answer.get_data(as_text=True))


def test_the_form_shows_the_date_that_applies_and_only_where_there_is_one(app: Flask, learner: FlaskClient,
                                                                         instructor: FlaskClient) -> None:  # fmt: skip
    exercise, ada = with_due(app, PAST), user_id(app, "ada@example.com")
    page = instructor.get(f"/teach/gradebook/{ada}/{exercise}").get_data(as_text=True)
    assert 'name="due" type="text" value="2000-01-01T00:00:00+00:00"' in page
    assert "Remove the extension" not in page
    undated = instructor.get(f"/teach/gradebook/{ada}/block-residual").get_data(as_text=True)
    assert 'name="due"' not in undated
    assert set_due(instructor, ada, "block-residual").status_code == 409


def test_an_extension_counts_for_code_too(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    with_due(app, PAST, 0.5, exercise="code/code-layer-norm", new_id="code-layer-norm")
    set_due(instructor, user_id(app, "ada@example.com"), "code-layer-norm")
    page = learner.get(send(learner, GOOD).headers["Location"]).get_data(as_text=True)
    assert f"Due {SHOWN}." in page and "sent after the due date" not in page
    row = only(app, Submission)
    assert (row.score, row.late) == (1.0, False)


def test_one_form_extends_every_dated_exercise_of_the_lesson(app: Flask, learner: FlaskClient,
                                                             instructor: FlaskClient) -> None:  # fmt: skip
    first = with_due(app, PAST)
    second = with_due(app, PAST, exercise="gpt2-block/block-gelu", new_id="gelu-due")
    other_lesson = with_due(app, PAST, exercise="microgpt/microgpt-params", new_id="params-due")
    ada = user_id(app, "ada@example.com")
    answer = set_due(instructor, ada, first, whole_lesson=True)
    assert answer.status_code == 303
    page = instructor.get(answer.headers["Location"]).get_data(as_text=True)
    assert "ada@example.com now has until 01 Jun 2999, 10:00 UTC on 2 exercises." in page
    assert "not earlier" not in page  # both exercises were due before the new date

    def extended() -> dict[str, str]:
        with app.app_context():
            rows = db.session.execute(sa.select(Extension.exercise_id, Extension.due_at).where(Extension.user_id == ada))
            return {exercise: due.isoformat() for exercise, due in rows}

    assert extended() == {first: "2999-06-01T10:00:00", second: "2999-06-01T10:00:00"}  # undated ones and
    assert other_lesson not in extended()  # other lessons are left alone
    dashboard = learner.get("/").get_data(as_text=True)
    assert dashboard.count(f"due {SHOWN}") == 2 * 2  # each in its lesson and in the upcoming list
    removed = set_due(instructor, ada, second, action="remove", whole_lesson=True)
    page = instructor.get(removed.headers["Location"]).get_data(as_text=True)
    assert str(escape("2 extensions were removed: the exercises' due dates apply again.")) in page
    assert extended() == {}
