"""Every grade change reaches the LMS: an override set and removed, a regrade, an extension then a regrade, a
due-date change then a regrade. After each, the LMS's score and the gradebook's agree."""

from __future__ import annotations

import csv
import io

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader import grade_events
from grader.catalog.policy import due_from_text
from grader.extensions import db
from grader.lti.models import LtiAccount
from grader.services import extensions
from grader.services.regrade import regrade
from tests.lti.conftest import launch, wait_for
from tests.lti.platform import FakePlatform
from tests.web.conftest import login, make_user, seat
from tests.web.test_due_dates import FUTURE, PAST
from tests.web.test_overrides import set_score
from tests.web.test_regrade import LOOSE, TIGHT, off_by, save, submit

EMAIL = "learner-1@school.example"
LATE = f"due: {PAST}\nlate_credit: 0.5\n"


def gradebook_percent(teacher: FlaskClient) -> float:
    rows = list(csv.DictReader(io.StringIO(teacher.get("/teach/gradebook.csv").get_data(as_text=True))))
    [mine] = [row for row in rows if row["email"] == EMAIL]
    return round(float(mine["quiz best"]) * 100, 4)


def lms_gets(platform: FakePlatform, teacher: FlaskClient, percent: float) -> None:
    """The LMS receives `percent`, and the gradebook shows the same."""
    wait_for(lambda: platform.scores and platform.scores[-1]["score"]["scoreGiven"] == percent)
    assert gradebook_percent(teacher) == percent


def test_every_grade_change_goes_out_and_the_lms_agrees_with_the_gradebook(app: Flask,
                                                                           platform: FakePlatform) -> None:
    save(app, TIGHT, LATE)
    assert launch(app.test_client(), platform, custom={"exercise": "quiz"}).status_code == 303
    with app.app_context():
        learner = db.session.scalars(sa.select(LtiAccount.user_id)).one()
    teacher_id = make_user(app, "teach@example.com", "instructor")
    teacher = app.test_client()
    login(teacher, "teach@example.com")
    submit(app, learner, off_by(app, EMAIL, 0.003))  # a near miss, late
    lms_gets(platform, teacher, 0.0)
    save(app, LOOSE, LATE)  # the tolerance loosened: right, but late
    with app.app_context():
        regrade("quiz")
    lms_gets(platform, teacher, 50.0)
    assert set_score(teacher, learner, "80", exercise="quiz").status_code == 303
    lms_gets(platform, teacher, 80.0)
    assert set_score(teacher, learner, "", action="remove", exercise="quiz").status_code == 303
    lms_gets(platform, teacher, 50.0)
    sent = len(platform.scores)
    with app.app_context():  # the learner's own due date: nothing changes until the attempts are regraded
        extensions.grant(seat(learner), ["quiz"], due_from_text(FUTURE), teacher_id)
        regrade("quiz")
    lms_gets(platform, teacher, 100.0)
    assert len(platform.scores) == sent + 1  # the extension alone sent nothing: the score had not changed
    with app.app_context():
        extensions.withdraw(seat(learner), ["quiz"], teacher_id)
        regrade("quiz")
    lms_gets(platform, teacher, 50.0)
    save(app, LOOSE, f"due: {FUTURE}\nlate_credit: 0.5\n")  # the exercise's own due date moved
    with app.app_context():
        regrade("quiz")
    lms_gets(platform, teacher, 100.0)


def test_services_know_no_listener_and_lti_registers_once(app: Flask) -> None:
    from grader.lti import outbox

    assert grade_events._listeners.count(outbox.queue_scores) == 1
    import pathlib

    services = pathlib.Path(__file__).parents[2] / "grader" / "services"
    assert not [p.name for p in services.glob("*.py") if "grader.lti" in p.read_text(encoding="utf-8")]
    views = (services.parent / "lti" / "views.py").read_text(encoding="utf-8")
    assert "grader.web.app" not in views


def test_the_personal_data_export_has_the_lms_parts_lti_registered(app: Flask, platform: FakePlatform) -> None:
    from grader.models import User
    from grader.services import privacy

    launch(app.test_client(), platform, custom={"exercise": "block-layernorm"})
    with app.app_context():
        data = privacy.export(db.session.scalars(sa.select(User)).one())
    assert [a["subject"] for a in data["lms_accounts"]] == ["learner-1"]
    assert [link["target"] for link in data["lms_grade_links"]] == ["exercise:block-layernorm"]
