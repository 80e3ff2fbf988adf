"""Drafts: a new exercise, or a new version of a published one, waits for an instructor to publish it;
unpublishing hides it again and keeps the learners' work; a preview as learner stores nothing."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, AuditEvent, Exercise, Progress, User, Variant
from grader.services import authoring, gradebook
from tests.web.api_support import API, auth
from tests.web.conftest import csrf_from, seat
from tests.web.test_learn import EXERCISES, expected, fmt, post_answers
from tests.web.test_sync import sync

RESIDUAL = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
DRAFT_ID = "residual-draft"
NEW = RESIDUAL.replace("id: block-residual", f"id: {DRAFT_ID}").replace("title: The first residual",
                                                                          "title: A residual in waiting")


def instructor_id(app: Flask) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(User.id).where(User.role == "staff"))


def save_on_the_web(app: Flask, source: str, editing: str | None = None) -> str | None:
    """Save a source as the editor does (a draft), by the instructor; returns the outcome."""
    with app.app_context():
        checked, outcome = authoring.save(source, instructor_id(app), "web", editing=editing, new=editing is None)
        assert checked.ok, checked.errors + checked.failures  # type: ignore[operator]
        return outcome


def row(app: Flask, exercise_id: str = DRAFT_ID) -> Exercise:
    with app.app_context():
        found = db.session.get(Exercise, exercise_id)
        db.session.expunge(found)
        return found


def count(app: Flask, model: type, exercise_id: str = DRAFT_ID) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model).where(model.exercise_id == exercise_id))


def press(instructor: FlaskClient, exercise_id: str, button: str) -> str:
    """Press Publish or Unpublish on the exercise's instructor page; returns the page it leads to."""
    page = instructor.get(f"/teach/exercises/{exercise_id}").get_data(as_text=True)
    done = instructor.post(f"/teach/exercises/{exercise_id}/{button}", data={"csrf_token": csrf_from(page)})
    assert done.status_code == 303
    return instructor.get(done.headers["Location"]).get_data(as_text=True)


def learner_sees(learner: FlaskClient, token: str, exercise_id: str = DRAFT_ID, hidden: int = 404) -> bool:
    """Whether the exercise shows anywhere a learner looks: dashboard, its page, the API's list and detail.
    Asserts that those places agree, and that its page and detail answer `hidden` when it is not shown
    (404 for a draft: as if there were no such exercise)."""
    listed = f"/exercises/{exercise_id}" in learner.get("/").get_data(as_text=True)
    page = learner.get(f"/exercises/{exercise_id}").status_code
    api_listed = exercise_id in [e["id"] for e in learner.get(f"{API}/exercises", headers=auth(token)).get_json()]
    api_detail = learner.get(f"{API}/exercises/{exercise_id}", headers=auth(token)).status_code
    seen = (listed, page == 200, api_listed, api_detail == 200)
    assert seen in ((True,) * 4, (False,) * 4), seen
    assert page in (200, hidden) and api_detail in (200, hidden)
    return listed


def test_a_new_exercise_saved_on_the_web_is_a_draft_no_learner_can_reach(
        app: Flask, learner: FlaskClient, instructor: FlaskClient, token: str) -> None:  # fmt: skip
    assert save_on_the_web(app, NEW) == "created"
    assert row(app).status == "draft"
    assert not learner_sees(learner, token)
    answered = learner.post(f"/exercises/{DRAFT_ID}", data={"csrf_token": csrf_from(learner.get("/").get_data(
        as_text=True)), "part-h": "[1; 2; 3; 4]"})  # fmt: skip
    sent = learner.post(f"{API}/exercises/{DRAFT_ID}/attempts", json={"answers": {"h": "[1; 2; 3; 4]"}},
                        headers=auth(token))  # fmt: skip
    assert answered.status_code == sent.status_code == 404
    assert learner.get(f"/exercises/{DRAFT_ID}/practice").status_code == 404
    assert count(app, Attempt) == count(app, Variant) == count(app, Progress) == 0
    with app.app_context():
        assert DRAFT_ID not in [e.id for e in gradebook.columns(gradebook.Filters(seat(0).course_id))]
    listing = instructor.get("/teach/exercises").get_data(as_text=True)
    assert "A residual in waiting" in listing and '<span class="badge warn">draft</span>' in listing


def test_publishing_shows_it_to_learners_and_is_audited(
        app: Flask, learner: FlaskClient, instructor: FlaskClient, token: str) -> None:  # fmt: skip
    save_on_the_web(app, NEW)
    page = press(instructor, DRAFT_ID, "publish")
    assert "Published version 1: learners see it now." in page
    assert row(app).status == "published" and learner_sees(learner, token)
    with app.app_context():
        assert DRAFT_ID in [e.id for e in gradebook.columns(gradebook.Filters(seat(0).course_id))]
        event = db.session.scalar(sa.select(AuditEvent).where(AuditEvent.action == "exercise.published"))
        assert (event.exercise_id, event.actor_id, event.detail) == (DRAFT_ID, instructor_id(app), {"version": 1})
    assert "exercise published" in instructor.get("/teach/audit").get_data(as_text=True)


def test_unpublishing_hides_it_and_keeps_the_work_that_shows_again_once_republished(
        app: Flask, learner: FlaskClient, instructor: FlaskClient, token: str) -> None:  # fmt: skip
    exercise = "block-residual"  # synced from its file: published
    right = {k: fmt(v) for k, v in expected(app, exercise).items()}
    assert post_answers(learner, exercise, right).status_code == 303
    assert "1 / 8 solved" in learner.get("/").get_data(as_text=True)
    assert [p["exercise"] for p in learner.get(f"{API}/progress", headers=auth(token)).get_json()] == [exercise]
    assert "Unpublished" in press(instructor, exercise, "unpublish")
    assert row(app, exercise).status == "unpublished" and not learner_sees(learner, token, exercise)
    assert "0 / 7 solved" in learner.get("/").get_data(as_text=True)  # the lesson counts it no more
    assert learner.get(f"{API}/progress", headers=auth(token)).get_json() == []
    with app.app_context():
        assert exercise not in [e.id for e in gradebook.columns(gradebook.Filters(seat(0).course_id))]
        assert db.session.scalar(sa.select(AuditEvent.action).order_by(AuditEvent.id.desc())) == "exercise.unpublished"
    assert count(app, Attempt, exercise) == count(app, Progress, exercise) == 1  # kept
    press(instructor, exercise, "publish")
    assert learner_sees(learner, token, exercise)
    assert "1 / 8 solved" in learner.get("/").get_data(as_text=True)
    [mine] = learner.get(f"{API}/progress", headers=auth(token)).get_json()
    assert (mine["exercise"], mine["solved"]) == (exercise, True)


def test_a_new_version_of_a_published_exercise_waits_while_learners_keep_the_old_one(
        app: Flask, learner: FlaskClient, instructor: FlaskClient, token: str) -> None:  # fmt: skip
    exercise = "block-residual"
    edited = RESIDUAL.replace("title: The first residual", "title: The first residual, rewritten")
    assert save_on_the_web(app, edited, editing=exercise) == "updated"
    stored = row(app, exercise)
    assert (stored.status, stored.current_version, stored.latest_version, stored.pending) == ("published", 1, 2, True)
    page = learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert "The first residual" in page and "rewritten" not in page
    assert 'name="version" value="1"' in page
    assert learner.get(f"{API}/exercises/{exercise}", headers=auth(token)).get_json()["version"] == 1
    teach = instructor.get(f"/teach/exercises/{exercise}").get_data(as_text=True)
    assert "draft changes pending" in teach and "Publish version 2" in teach
    assert "rewritten" in instructor.get(f"/teach/exercises/{exercise}/as-learner").get_data(as_text=True)
    assert "rewritten" in instructor.get(f"/teach/exercises/{exercise}/edit").get_data(as_text=True)
    press(instructor, exercise, "publish")
    assert "The first residual, rewritten" in learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert not row(app, exercise).pending


def prompt(html: str) -> str:
    return html.split('class="card prompt"')[1].split("</section>")[0]


def test_a_preview_as_learner_checks_answers_and_stores_nothing(app: Flask, instructor: FlaskClient) -> None:
    save_on_the_web(app, NEW)
    page = instructor.get(f"/teach/exercises/{DRAFT_ID}/as-learner")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "A residual in waiting" in html
    assert "Answers you check here are not stored" in html
    again = instructor.get(f"/teach/exercises/{DRAFT_ID}/as-learner").get_data(as_text=True)
    assert prompt(again) == prompt(html)  # the instructor's own numbers: the same on every visit
    with app.app_context():
        from grader.services import publishing

        variant = publishing.preview(instructor_id(app), DRAFT_ID).variant
        assert variant is not None
        right = {f"part-{p.spec.id}": fmt(p.answer_json()) for p in variant.parts}
    checked = instructor.post(f"/teach/exercises/{DRAFT_ID}/as-learner", data={"csrf_token": csrf_from(html), **right})
    assert checked.status_code == 200
    assert "Score a learner would get for these answers: 100" in checked.get_data(as_text=True)
    wrong = instructor.post(f"/teach/exercises/{DRAFT_ID}/as-learner",
                            data={"csrf_token": csrf_from(html), "part-h": fmt([0.0] * 4)})  # fmt: skip
    assert "Score a learner would get for these answers: 0" in wrong.get_data(as_text=True)
    assert count(app, Attempt) == count(app, Variant) == count(app, Progress) == 0
    assert row(app).status == "draft"  # previewing publishes nothing


def test_only_instructors_publish_and_every_button_needs_its_form_token(
        app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:  # fmt: skip
    save_on_the_web(app, NEW)
    token = csrf_from(learner.get("/").get_data(as_text=True))
    for path in ("publish", "unpublish", "as-learner"):
        assert learner.post(f"/teach/exercises/{DRAFT_ID}/{path}", data={"csrf_token": token}).status_code == 403
    assert instructor.post(f"/teach/exercises/{DRAFT_ID}/publish").status_code == 400
    assert row(app).status == "draft"
    assert instructor.post("/teach/exercises/no-such-exercise/publish", data={
        "csrf_token": csrf_from(instructor.get("/teach/exercises").get_data(as_text=True))}).status_code == 404


def test_publishing_before_the_opening_date_shows_it_from_then(
        app: Flask, learner: FlaskClient, instructor: FlaskClient, token: str) -> None:  # fmt: skip
    save_on_the_web(app, NEW + "opens: 2999-03-01T08:00:00Z\n")
    assert "learners see it from 01 Mar 2999, 08:00 UTC" in press(instructor, DRAFT_ID, "publish")
    assert row(app).status == "published" and not learner_sees(learner, token, hidden=403)  # not open yet
    with app.app_context():
        event = db.session.scalar(sa.select(AuditEvent).where(AuditEvent.action == "exercise.published"))
        assert event.detail == {"version": 1, "opens": "2999-03-01T08:00:00Z"}


def test_a_file_that_says_draft_is_synced_as_one_and_published_once_it_no_longer_does(
        app: Flask, tmp_path: Path, learner: FlaskClient, token: str) -> None:  # fmt: skip
    assert sync(app, {"draft.yaml": NEW + "draft: true\n"}, tmp_path / "files").exit_code == 0
    assert row(app).status == "draft" and not learner_sees(learner, token)
    assert sync(app, {"draft.yaml": NEW}, tmp_path / "files").exit_code == 0
    stored = row(app)
    assert (stored.status, stored.current_version) == ("published", 2) and learner_sees(learner, token)
    edited = NEW.replace("A residual in waiting", "A residual, edited") + "draft: true\n"
    assert sync(app, {"draft.yaml": edited}, tmp_path / "files").exit_code == 0
    stored = row(app)
    assert (stored.status, stored.current_version, stored.latest_version, stored.title) == (
        "published", 2, 3, "A residual in waiting")  # learners keep version 2 until it is published


def test_an_operator_publishes_and_unpublishes_on_the_command_line(app: Flask) -> None:
    cli = app.test_cli_runner()
    assert save_on_the_web(app, NEW) == "created"
    done = cli.invoke(args=["exercises", "publish", DRAFT_ID])
    assert (done.exit_code, done.output) == (0, f"published {DRAFT_ID} version 1\n")
    assert row(app).status == "published"
    done = cli.invoke(args=["exercises", "unpublish", DRAFT_ID])
    assert (done.exit_code, done.output) == (0, f"unpublished {DRAFT_ID}\n")
    assert row(app).status == "unpublished"
    with app.app_context():
        events = db.session.execute(sa.select(AuditEvent.action, AuditEvent.actor_id, AuditEvent.detail)
                                    .where(AuditEvent.exercise_id == DRAFT_ID).order_by(AuditEvent.id)).all()
    assert [tuple(e) for e in events][1:] == [("exercise.published", None, {"version": 1, "by": "operator"}),
                                              ("exercise.unpublished", None, {"version": 1, "by": "operator"})]
    missing = cli.invoke(args=["exercises", "publish", "no-such-exercise"])
    assert missing.exit_code == 1 and "no exercise no-such-exercise" in missing.output


def test_the_api_document_names_a_draft_s_paths_once_it_is_published(
        app: Flask, client: FlaskClient, instructor: FlaskClient) -> None:  # fmt: skip
    save_on_the_web(app, NEW)
    attempts_path = f"{API}/exercises/{DRAFT_ID}/attempts"
    assert attempts_path not in client.get(f"{API}/openapi.json").get_json()["paths"]
    press(instructor, DRAFT_ID, "publish")
    assert attempts_path in client.get(f"{API}/openapi.json").get_json()["paths"]
