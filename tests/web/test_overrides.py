"""Scores set by hand: an instructor sets one learner's score on one exercise, with a reason the learner sees."""

from __future__ import annotations

import json

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Progress
from grader.services import overrides
from grader.services.regrade import regrade
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import csrf_from, make_user, seat_key
from tests.web.test_extensions import user_id
from tests.web.test_learn import expected, fmt, post_answers

EXERCISE = "block-residual"
REASON = "Worked it out on paper in class; the site was down."


def set_score(instructor: FlaskClient, learner_id: int, score: str, reason: str = REASON, action: str = "set",
              exercise: str = EXERCISE):  # type: ignore[no-untyped-def]  # fmt: skip
    page = instructor.get(f"/teach/gradebook/{learner_id}/{exercise}").get_data(as_text=True)
    data = {"csrf_token": csrf_from(page), "score": score, "reason": reason, "action": action}
    return instructor.post(f"/teach/gradebook/{learner_id}/{exercise}/score", data=data)


def progress_row(app: Flask, uid: int, exercise: str = EXERCISE) -> Progress | None:
    with app.app_context():
        found = db.session.get(Progress, (*seat_key(uid), exercise))
        if found is not None:
            db.session.expunge(found)
        return found


def test_a_score_set_by_hand_shows_everywhere_a_score_does(app: Flask, learner: FlaskClient,
                                                           instructor: FlaskClient) -> None:  # fmt: skip
    post_answers(learner, EXERCISE, {"h": "[1,000; 2,000; 3,000; 4,000]"})
    ada = user_id(app, "ada@example.com")
    answer = set_score(instructor, ada, "72,5 %")
    assert answer.status_code == 303
    page = instructor.get(answer.headers["Location"]).get_data(as_text=True)
    assert "ada@example.com now has 72\u00a0% on this exercise." in page  # whole percentages, as everywhere
    assert "set by hand on" in page and "Their best attempt has 0\u00a0%." in page
    assert f"{REASON}</textarea>" in page and 'value="72.5"' in page
    gradebook = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert '<span aria-hidden="true">✎</span><span class="visually-hidden">set by hand</span>' in gradebook
    csv = instructor.get("/teach/gradebook.csv").get_data(as_text=True)
    header, ada_line = csv.splitlines()[:2]
    column = header.split(",").index(f"{EXERCISE} best")
    assert ada_line.split(",")[column:column + 2] == ["0.725", "1"]
    assert header.split(",")[-1] == "set by hand" and ada_line.split(",")[-1] == EXERCISE  # as the page's ✎
    shown = instructor.get(f"/teach/gradebook.csv?lesson=gpt2-block").get_data(as_text=True).splitlines()
    assert shown[0].split(",")[:3] == ["email", "solved", "average"]
    assert shown[1].split(",")[:3] == ["ada@example.com", "0", f"{0.725 / 8:.3f}"]  # eight exercises in the lesson
    dashboard = learner.get("/").get_data(as_text=True)
    assert "72\u00a0% · set by your instructor" in dashboard
    exercise_page = learner.get(f"/exercises/{EXERCISE}").get_data(as_text=True)
    assert f"Your instructor set your score on this exercise to 72\u00a0%:\n    <q>{REASON}</q>" in exercise_page
    progress = learner.get(f"{API}/progress", headers=auth(token_for(app))).get_json()
    [item] = [i for i in progress if i["exercise"] == EXERCISE]
    assert item == {"exercise": EXERCISE, "best_score": 0.725, "attempts": 1, "solved": False, "overridden": True}


def test_later_attempts_and_regrades_leave_it_and_removing_it_brings_the_best_back(app: Flask, learner: FlaskClient,
                                                                                  instructor: FlaskClient) -> None:  # fmt: skip
    ada = user_id(app, "ada@example.com")
    assert set_score(instructor, ada, "40").status_code == 303
    post_answers(learner, EXERCISE, {"h": fmt(expected(app, EXERCISE)["h"])})
    with app.app_context():
        regrade(EXERCISE)
    row = progress_row(app, ada)
    assert row is not None and (row.best_score, row.score, row.solved_at is not None) == (1.0, 0.4, True)
    assert "40\u00a0% · set by your instructor" in learner.get("/").get_data(as_text=True)
    removed = set_score(instructor, ada, "", "", action="remove")
    assert removed.status_code == 303
    assert "the best attempt counts again" in instructor.get(removed.headers["Location"]).get_data(as_text=True)
    row = progress_row(app, ada)
    assert row is not None and row.score == 1.0
    assert (row.override_score, row.override_reason, row.override_by, row.override_at) == (None, None, None, None)
    assert "set by your instructor" not in learner.get("/").get_data(as_text=True)
    assert "Your instructor set your score" not in learner.get(f"/exercises/{EXERCISE}").get_data(as_text=True)


def test_a_score_can_be_given_for_an_exercise_never_attempted(app: Flask, learner: FlaskClient,
                                                              instructor: FlaskClient) -> None:  # fmt: skip
    ada = user_id(app, "ada@example.com")
    gradebook = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert f'href="/teach/gradebook/{ada}/code-layer-norm"' in gradebook  # an empty cell opens the page too
    assert set_score(instructor, ada, "100", exercise="code-layer-norm").status_code == 303
    row = progress_row(app, ada, "code-layer-norm")
    assert row is not None and (row.attempts_used, row.score, row.solved_at) == (0, 1.0, None)
    assert "100\u00a0% · set by your instructor" in learner.get("/").get_data(as_text=True)
    exercise_page = learner.get("/exercises/code-layer-norm").get_data(as_text=True)
    assert "Your instructor set your score on this exercise to 100\u00a0%" in exercise_page
    progress = learner.get(f"{API}/progress", headers=auth(token_for(app))).get_json()
    assert progress == [{"exercise": "code-layer-norm", "best_score": 1.0, "attempts": 0, "solved": False,
                         "overridden": True}]  # fmt: skip
    data = json.loads(learner.get("/profile/data").get_data(as_text=True))
    assert [(p["exercise"], p["override_score"], p["override_reason"]) for p in data["progress"]] == [
        ("code-layer-norm", 1.0, REASON)]


@pytest.mark.parametrize(("score", "reason", "field", "message"), [
    ("101", REASON, "score", "Give a score between 0 and 100."),
    ("eighty", REASON, "score", "Give a score between 0 and 100."),
    ("-5", REASON, "score", "Give a score between 0 and 100."),
    ("80", "   ", "reason", "Give a reason, in at most 500 characters: the learner sees it."),
    ("80", "x" * 501, "reason", "Field cannot be longer than 500 characters."),
])  # fmt: skip
def test_a_bad_score_or_reason_is_said_at_its_field_and_nothing_changes(app: Flask, instructor: FlaskClient,
                                                                        score: str, reason: str, field: str,
                                                                        message: str) -> None:  # fmt: skip
    ada = make_user(app, "ada@example.com")
    response = set_score(instructor, ada, score, reason)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    at_field = html[html.index(f'name="{field}"'):]
    assert message in at_field[:at_field.index("</label>")]
    assert progress_row(app, ada) is None


def test_learners_cannot_set_scores(app: Flask, learner: FlaskClient) -> None:
    ada = user_id(app, "ada@example.com")
    csrf = csrf_from(learner.get("/profile").get_data(as_text=True))
    response = learner.post(f"/teach/gradebook/{ada}/{EXERCISE}/score", data={"csrf_token": csrf, "score": "100",
                                                                             "reason": "me", "action": "set"})  # fmt: skip
    assert response.status_code == 403 and progress_row(app, ada) is None


def test_percentages_as_typed() -> None:
    typed = ("80", "80 %", "72,5", " 0.5% ", "100")
    assert [overrides.score_from_percent(t) for t in typed] == [0.8, 0.8, 0.725, 0.005, 1.0]
    for bad in ("", "1e2", "100.5", "50 50", "½"):
        with pytest.raises(overrides.OverrideError) as refused:
            overrides.score_from_percent(bad)
        assert refused.value.field == "score"


def test_an_instructors_account_has_no_page_score_or_due_date_in_the_gradebook(app: Flask,
                                                                               instructor: FlaskClient) -> None:  # fmt: skip
    teacher = user_id(app, "teach@example.com")
    assert instructor.get(f"/teach/gradebook/{teacher}/{EXERCISE}").status_code == 404
    token = csrf_from(instructor.get("/teach/gradebook").get_data(as_text=True))
    scored = instructor.post(f"/teach/gradebook/{teacher}/{EXERCISE}/score",
                             data={"csrf_token": token, "score": "100", "reason": REASON, "action": "set"})  # fmt: skip
    assert scored.status_code == 404
    with app.app_context():
        assert db.session.get(Progress, (*seat_key(teacher), EXERCISE)) is None
