"""Opening dates: learners neither see nor answer an exercise before it opens; instructors try it first."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Exercise, Variant
from grader.code_models import Submission
from tests.layer_norm_sources import GOOD
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import csrf_from
from tests.web.test_due_dates import with_lines
from tests.web.test_learn import EXERCISES, expected, fmt

LATER = "2999-03-01T09:00:00+01:00"  # 08:00 UTC
SHOWN = "01 Mar 2999, 08:00 UTC"
EARLIER = "2000-03-01T09:00:00Z"


def with_opening(app: Flask, opens: str, exercise: str = "gpt2-block/block-residual",
                 new_id: str = "residual-later") -> str:  # fmt: skip
    """Store a shipped exercise under new_id with an opening date."""
    return with_lines(app, f"opens: {opens}\n", exercise, new_id)


def stored(app: Flask, model: type, exercise: str) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model).where(model.exercise_id == exercise))


def answer(client: FlaskClient, exercise: str, h: str):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/profile").get_data(as_text=True))
    return client.post(f"/exercises/{exercise}", data={"csrf_token": token, "part-h": h})


def test_before_it_opens_a_learner_neither_sees_nor_answers_it(app: Flask, learner: FlaskClient) -> None:
    exercise = with_opening(app, LATER)
    with app.app_context():
        assert db.session.get(Exercise, exercise).opens_at.isoformat() == "2999-03-01T08:00:00"
    assert f"/exercises/{exercise}" not in learner.get("/").get_data(as_text=True)
    page = learner.get(f"/exercises/{exercise}")
    assert page.status_code == 403 and f"This exercise opens {SHOWN}." in page.get_data(as_text=True)
    sent = answer(learner, exercise, "[1,000; 2,000; 3,000; 4,000]")
    assert sent.status_code == 403 and stored(app, Attempt, exercise) == 0
    assert stored(app, Variant, exercise) == 0  # refused before any numbers were made


def test_before_it_opens_the_api_hides_it_and_refuses_it(app: Flask, client: FlaskClient, token: str) -> None:
    exercise = with_opening(app, LATER)
    listed = client.get(f"{API}/exercises", headers=auth(token)).get_json()
    assert exercise not in [e["id"] for e in listed] and "block-residual" in [e["id"] for e in listed]
    detail = client.get(f"{API}/exercises/{exercise}", headers=auth(token))
    assert detail.status_code == 403
    assert detail.get_json() == {"error": "forbidden", "message": "This exercise opens 2999-03-01T08:00:00Z."}
    sent = client.post(f"{API}/exercises/{exercise}/attempts", json={"answers": {"h": "[1; 2; 3; 4]"}},
                       headers=auth(token))  # fmt: skip
    assert sent.status_code == 403 and stored(app, Attempt, exercise) == 0
    assert stored(app, Variant, exercise) == 0
    code = client.post(f"{API}/exercises/{exercise}/submissions", json={"source": GOOD}, headers=auth(token))
    assert code.get_json() == detail.get_json()  # not "this exercise takes typed answers": nothing about its kind


def test_a_code_exercise_takes_no_code_before_it_opens(app: Flask, learner: FlaskClient, client: FlaskClient) -> None:
    exercise = with_opening(app, LATER, "code/code-layer-norm", "layer-norm-later")
    assert learner.get(f"/exercises/{exercise}").status_code == 403
    token = csrf_from(learner.get("/profile").get_data(as_text=True))
    page = learner.post(f"/exercises/{exercise}", data={"csrf_token": token, "source": GOOD},
                        content_type="multipart/form-data")  # fmt: skip
    assert page.status_code == 403
    api = client.post(f"{API}/exercises/{exercise}/submissions", json={"source": GOOD}, headers=auth(token_for(app)))
    assert api.status_code == 403 and stored(app, Submission, exercise) == 0


def test_practice_before_it_opens_is_refused_first_and_makes_nothing(app: Flask, client: FlaskClient,
                                                                      token: str) -> None:  # fmt: skip
    numeric = with_opening(app, LATER)
    code = with_opening(app, LATER, "code/code-layer-norm", "layer-norm-later")
    for exercise in (numeric, code):  # a code exercise would say it takes code (409): it says nothing
        refused = client.get(f"{API}/exercises/{exercise}/practice", headers=auth(token))
        assert refused.status_code == 403 and refused.get_json()["error"] == "forbidden"
    assert stored(app, Variant, numeric) == 0


def test_instructors_see_it_coming_and_try_it_first(app: Flask, instructor: FlaskClient, client: FlaskClient) -> None:
    exercise = with_opening(app, LATER)
    dashboard = instructor.get("/").get_data(as_text=True)
    assert f'href="/exercises/{exercise}"' in dashboard and "opens <time" in dashboard
    assert f"opens {SHOWN}" in instructor.get("/teach/exercises").get_data(as_text=True)
    assert instructor.get(f"/exercises/{exercise}").status_code == 200
    right = fmt(expected(app, exercise, "teach@example.com")["h"])
    assert answer(instructor, exercise, right).status_code == 303 and stored(app, Attempt, exercise) == 1
    staff = token_for(app, "teach@example.com", "instructor")
    assert exercise in [e["id"] for e in client.get(f"{API}/exercises", headers=auth(staff)).get_json()]
    assert client.get(f"{API}/exercises/{exercise}", headers=auth(staff)).status_code == 200


def test_once_open_it_is_an_exercise_like_any_other(app: Flask, learner: FlaskClient) -> None:
    exercise = with_opening(app, EARLIER)
    assert f'href="/exercises/{exercise}"' in learner.get("/").get_data(as_text=True)
    assert "opens" not in learner.get("/").get_data(as_text=True)
    assert learner.get(f"/exercises/{exercise}").status_code == 200
    right = fmt(expected(app, exercise)["h"])
    assert answer(learner, exercise, right).status_code == 303 and stored(app, Attempt, exercise) == 1


def test_an_opening_date_must_have_a_zone_and_come_before_the_due_date(app: Flask, instructor: FlaskClient) -> None:
    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
    page = instructor.get("/teach/exercises/new?mode=yaml").get_data(as_text=True)
    for extra, message in (("opens: 2999-03-01\n", "give the opening date a time and a zone too"),
                           ("opens: 2999-03-01T09:00:00Z\ndue: 2999-02-01T09:00:00Z\n",
                            "the exercise must open before its due date")):  # fmt: skip
        sent = instructor.post("/teach/exercises/new", data={"csrf_token": csrf_from(page), "mode": "yaml",
                                                             "source": source.replace("id: block-residual", "id: x-1") + extra})  # fmt: skip
        assert sent.status_code == 422 and message in sent.get_data(as_text=True), sent.get_data(as_text=True)[:300]


def test_the_structured_editor_sets_and_keeps_an_opening_date(app: Flask, instructor: FlaskClient) -> None:
    from tests.web.test_teach import editor_fields, residual_form, source_of

    saved = instructor.post("/teach/exercises/new", data=residual_form(instructor, opens=LATER))
    assert saved.status_code == 303
    assert "opens: 2999-03-01 09:00:00+01:00" in source_of(app, "my-residual")  # a YAML timestamp
    with app.app_context():
        assert db.session.get(Exercise, "my-residual").opens_at.isoformat() == "2999-03-01T08:00:00"
    fields = editor_fields(instructor.get("/teach/exercises/my-residual/edit").get_data(as_text=True))
    assert fields["opens"] == "2999-03-01 09:00:00+01:00"  # as YAML wrote it; the form reads it back


def test_the_gradebook_average_leaves_out_exercises_not_open_yet(app: Flask, learner: FlaskClient,
                                                                 instructor: FlaskClient) -> None:  # fmt: skip
    with_opening(app, LATER, "gpt2-block/block-residual", "residual-later")
    right = fmt(expected(app, "block-residual")["h"])
    assert answer(learner, "block-residual", right).status_code == 303
    table = instructor.get("/teach/gradebook.csv?lesson=gpt2-block").get_data(as_text=True).splitlines()
    header, ada = table[0].split(","), table[1].split(",")
    assert "residual-later best" in header  # shown to the instructor, with its cells
    assert ada[:3] == ["ada@example.com", "1", f"{1 / 8:.3f}"]  # one of the eight open exercises, not of nine
    alone = instructor.get("/teach/gradebook.csv?exercise=residual-later").get_data(as_text=True).splitlines()
    assert alone[1].split(",")[:3] == ["ada@example.com", "0", ""]  # no average over nothing open, not 0
    page = instructor.get("/teach/gradebook?exercise=residual-later").get_data(as_text=True)
    assert 'title="None of these exercises has opened yet.">–</span>' in page
