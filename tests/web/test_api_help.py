"""Hints, giving up and the worked solution through the API: the same rows as the exercise page's forms leave,
in the course the call acts in, refused with the documented statuses."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, AuditEvent, Progress, User, Variant
from grader.services import attempts
from grader.services.courses import Seat
from grader.services.exercises import code_spec_of, existing_version
from tests.web.api_support import API, EXERCISE, answers_of, assert_error, auth, token_for, typed
from tests.web.conftest import csrf_from, login, make_user, seat
from tests.web.test_course_content import set_rules
from tests.web.test_courses import EXERCISE as IN_BOTH, ZEROS, signed_in, two_courses  # noqa: F401 - a fixture
from tests.web.test_learn import count

GRACE = "grace@example.com"


def url(action: str, exercise: str = EXERCISE, query: str = "") -> str:
    return f"{API}/exercises/{exercise}/{action}{query}"


def _half_right(app: Flask, email: str) -> dict[str, str]:
    """The learner's right μ, and wrong σ and u: a third of the score, so that the hints' cost shows."""
    return {**typed(answers_of(app, email)), "sigma": "9.000", "u": "[9.000; 9.000; 9.000; 9.000]"}


def _by_page(app: Flask, page: FlaskClient, action: str) -> None:
    token = csrf_from(page.get(f"/exercises/{EXERCISE}").get_data(as_text=True))
    data = {"csrf_token": token}
    if action == "answer":
        data.update({f"part-{k}": v for k, v in _half_right(app, GRACE).items()})
        assert page.post(f"/exercises/{EXERCISE}", data=data).status_code == 303
    else:  # giving up on the page is confirmed (the question page's "yes")
        sure = {"confirm": "yes"} if action == "give-up" else {}
        assert page.post(f"/exercises/{EXERCISE}/{action}", data={**data, **sure}).status_code == 303


def _rows(app: Flask, email: str) -> dict[str, Any]:
    """What is stored of the learner's work on EXERCISE: progress, attempts and audit events, without ids or times."""
    with app.app_context():
        uid = db.session.execute(sa.select(User.id).where(User.email == email)).scalar_one()
        mine = attempts.progress_of(seat(uid), EXERCISE)
        assert mine is not None
        tried = db.session.execute(sa.select(Attempt.number, Attempt.hints_used, Attempt.raw_score, Attempt.score)
                                   .where(Attempt.user_id == uid)).all()  # fmt: skip
        events = db.session.scalars(sa.select(AuditEvent.action).where(AuditEvent.learner_id == uid)).all()
        return {"hints": mine.hints_used, "attempts": mine.attempts_used, "best": mine.best_score,
                "solved": mine.solved_at is not None, "gave_up": mine.gave_up_at is not None,
                "tried": [tuple(t) for t in tried], "audit": list(events)}  # fmt: skip


def test_the_api_and_the_page_store_the_same_hints_penalties_and_giving_up(app: Flask, client: FlaskClient,
                                                                          token: str) -> None:  # fmt: skip
    make_user(app, "teach@example.com", "instructor")
    assert set_rules(signed_in(app, "teach@example.com"), EXERCISE, hint_penalty="0.2")[0] == 303  # the course's
    make_user(app, GRACE)
    page = app.test_client()
    login(page, GRACE)

    first = client.post(url("hints"), headers=auth(token)).get_json()
    assert len(first["hints"]) == 1 and first["hint_penalty"] == 0.2 and first["scoring"]
    assert len(client.post(url("hints"), headers=auth(token)).get_json()["hints"]) == 2
    sent = client.post(url("attempts"), json={"answers": _half_right(app, "ada@example.com")}, headers=auth(token))
    assert sent.status_code == 201
    gave_up = client.post(url("give-up"), headers=auth(token)).get_json()
    assert gave_up["gave_up"] and not gave_up["scoring"] and gave_up["hints_left"] == 0
    steps = client.get(url("solution"), headers=auth(token)).get_json()["steps"]
    assert len(steps) == 3 and steps[:2] == gave_up["hints"] and gave_up["hints"][0] == first["hints"][0]

    for action in ("hint", "hint", "answer", "give-up"):
        _by_page(app, page, action)
    shown = page.get(f"/exercises/{EXERCISE}").get_data(as_text=True)
    assert "Worked solution" in shown

    by_api, by_page = _rows(app, "ada@example.com"), _rows(app, GRACE)
    assert by_api == by_page
    # a third right, less two hints at the course's 0.2 each
    assert by_api["tried"] == [(1, 2, 0.333333, 0.2)] and by_api["gave_up"] and not by_api["solved"]
    assert client.get(f"{API}/progress", headers=auth(token)).get_json() == [
        {"exercise": EXERCISE, "best_score": by_api["best"], "attempts": 1, "solved": False, "overridden": False}]


def test_the_solution_is_refused_until_it_is_open_and_nothing_is_stored(app: Flask, client: FlaskClient,
                                                                       token: str) -> None:  # fmt: skip
    assert_error(client.get(url("solution"), headers=auth(token)), 409, "conflict")
    assert count(app, Progress) == 0 and count(app, Variant) == 0 and count(app, Attempt) == 0
    assert client.get(f"{API}/exercises/{EXERCISE}", headers=auth(token)).status_code == 200
    sent = client.post(url("attempts"), json={"answers": _half_right(app, "ada@example.com")}, headers=auth(token))
    assert sent.status_code == 201
    assert_error(client.get(url("solution"), headers=auth(token)), 409, "conflict")  # one wrong try: still scoring
    assert count(app, Progress) == 1 and count(app, Attempt) == 1
    mine = client.get(url("hints"), headers=auth(token)).get_json()
    assert mine["scoring"] and not mine["gave_up"] and mine["hints"] == []


def test_hints_run_out_and_giving_up_counts_once(app: Flask, client: FlaskClient, token: str) -> None:
    left = client.get(url("hints"), headers=auth(token)).get_json()["hints_left"]
    assert left >= 2
    for _ in range(left):
        assert client.post(url("hints"), headers=auth(token)).status_code == 200
    assert_error(client.post(url("hints"), headers=auth(token)), 409, "conflict")
    assert client.post(url("give-up"), headers=auth(token)).status_code == 200
    assert_error(client.post(url("give-up"), headers=auth(token)), 409, "conflict")
    assert_error(client.post(url("hints"), headers=auth(token)), 409, "conflict")
    with app.app_context():
        [mine] = db.session.scalars(sa.select(Progress)).all()
        assert mine.hints_used == left and mine.attempts_used == 0
    english = client.get(url("solution"), headers=auth(token)).get_json()["steps"]
    assert client.get(url("solution", query="?lang=pt"), headers=auth(token)).get_json()["steps"] != english
    assert_error(client.get(url("solution", query="?lang=de"), headers=auth(token)), 400, "bad_request")


def test_a_code_exercise_gives_its_hints_and_its_solution_after_giving_up(app: Flask, client: FlaskClient,
                                                                         token: str) -> None:  # fmt: skip
    with app.app_context():
        spec = code_spec_of(existing_version("code-gelu"))
    assert client.get(url("solution", "code-gelu"), headers=auth(token)).status_code == 409
    assert client.post(url("hints", "code-gelu"), headers=auth(token)).get_json()["hints"] == spec.hints_in("en")[:1]
    assert client.post(url("give-up", "code-gelu"), headers=auth(token)).status_code == 200
    assert client.get(url("solution", "code-gelu"), headers=auth(token)).get_json()["steps"] == spec.solution_in("en")


def test_outside_the_course_it_is_404_and_hints_switched_off_there_are_refused(
        app: Flask, client: FlaskClient, two_courses: dict[str, int]) -> None:  # noqa: F811
    assert set_rules(signed_in(app, "t1@example.com"), IN_BOTH, offer_hints="false")[0] == 303  # in ml101 only
    bo, ada = token_for(app, "bo@example.com"), token_for(app, "ada@example.com")
    for action in ("hints", "give-up"):
        assert_error(client.post(url(action, IN_BOTH, "?course=ml102"), headers=auth(bo)), 404, "not_found")
        assert_error(client.post(url(action, "block-layernorm"), headers=auth(bo)), 404, "not_found")  # not in ml101
    assert_error(client.get(url("solution", IN_BOTH, "?course=ml102"), headers=auth(bo)), 404, "not_found")
    assert_error(client.post(url("hints", IN_BOTH), headers=auth(bo)), 409, "conflict")
    assert_error(client.post(url("hints", IN_BOTH, "?course=ml101"), headers=auth(ada)), 409, "conflict")
    assert count(app, Progress) == 0
    taken = client.post(url("hints", IN_BOTH, "?course=ml102"), headers=auth(ada))
    assert taken.status_code == 200 and len(taken.get_json()["hints"]) == 1
    with app.app_context():
        ada_id, ml101, ml102 = two_courses["ada"], two_courses["ml101"], two_courses["ml102"]
        assert attempts.progress_of(Seat(ml101, ada_id), IN_BOTH) is None  # per course: ml102's hint only
        assert attempts.progress_of(Seat(ml102, ada_id), IN_BOTH).hints_used == 1  # type: ignore[union-attr]


def test_the_document_describes_the_new_calls_and_the_course_of_each(client: FlaskClient) -> None:
    paths = client.get(f"{API}/openapi.json").get_json()["paths"]
    for path, method, shape in ((f"{API}/exercises/{{exercise_id}}/hints", "get", "HelpOut"),
                                (f"{API}/exercises/{{exercise_id}}/hints", "post", "HelpOut"),
                                (f"{API}/exercises/{{exercise_id}}/give-up", "post", "HelpOut"),
                                (f"{API}/exercises/{{exercise_id}}/solution", "get", "SolutionOut")):  # fmt: skip
        operation = paths[path][method]
        assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(shape)
        assert {"400", "401", "403", "404"} <= set(operation["responses"])
        assert ("409" in operation["responses"]) == (method == "post" or shape == "SolutionOut")
        assert {p["name"] for p in operation["parameters"]} == {"exercise_id", "course", "lang"}
        assert "x-undocumented" not in operation
    for path, method in ((f"{API}/progress", "get"), (f"{API}/exercises/{EXERCISE}/practice", "post"),
                         (f"{API}/exercises/{EXERCISE}/attempts", "post")):  # fmt: skip
        assert "course" in {p["name"] for p in paths[path][method]["parameters"]}, path


def test_progress_and_practice_are_the_courses_the_call_acts_in(app: Flask, client: FlaskClient,
                                                               two_courses: dict[str, int]) -> None:  # noqa: F811
    bo, ada = token_for(app, "bo@example.com"), token_for(app, "ada@example.com")
    sent = client.post(url("attempts", IN_BOTH, "?course=ml102"), json={"answers": {"h": ZEROS}}, headers=auth(ada))
    assert sent.status_code == 201
    assert client.get(f"{API}/progress", headers=auth(ada)).get_json() == []  # ml101, ada's first
    [mine] = client.get(f"{API}/progress?course=ml102", headers=auth(ada)).get_json()
    assert mine["exercise"] == IN_BOTH and mine["attempts"] == 1 and not mine["solved"]
    assert client.post(url("give-up", IN_BOTH, "?course=ml102"), headers=auth(ada)).status_code == 200
    assert client.get(url("practice", IN_BOTH, "?course=ml102"), headers=auth(ada)).status_code == 200
    assert_error(client.get(url("practice", IN_BOTH, "?course=ml101"), headers=auth(ada)), 403, "forbidden")
    assert_error(client.get(url("practice", IN_BOTH, "?course=ml102"), headers=auth(bo)), 404, "not_found")
    assert_error(client.get(url("practice", "block-layernorm"), headers=auth(bo)), 404, "not_found")
    checked = client.post(url("practice", "block-layernorm"), json={"numbers": "a.b", "answers": {"mu": "1"}},
                          headers=auth(bo))  # fmt: skip
    assert_error(checked, 404, "not_found")
    assert_error(client.get(f"{API}/progress?course=ml102", headers=auth(bo)), 404, "not_found")
