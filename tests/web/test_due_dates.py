"""Due dates: what learners see, what a late attempt or submission keeps, and how instructors set one."""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.codecheck.results import CodeResult
from grader.extensions import db
from grader.models import Attempt, Exercise, Progress, User
from grader.code_models import Submission
from grader.services import submissions
from grader.services.exercises import save_source
from tests.layer_norm_sources import GOOD
from tests.web.api_support import API, auth
from tests.web.conftest import csrf_from, seat
from tests.web.test_code import send
from tests.web.test_learn import EXERCISES, expected, fmt, post_answers
from tests.web.test_teach import residual_form

Row = TypeVar("Row", Attempt, Progress, Submission)
PAST, FUTURE = "2000-01-01T00:00:00Z", "2999-12-15T23:59:00+00:00"


def utc(iso: str, shown: str) -> str:
    """A due date as the page writes it: UTC text that app.js turns into the reader's own time."""
    return f'<time class="local-time" datetime="{iso}Z">{shown} UTC</time>'


def with_due(app: Flask, due: str, late_credit: float | None = None, exercise: str = "gpt2-block/block-residual",
             new_id: str = "residual-due") -> str:  # fmt: skip
    """Store a shipped exercise under new_id with a due date (and a late credit), as the web or a file sync would."""
    credit = "" if late_credit is None else f"late_credit: {late_credit}\n"
    return with_lines(app, f"due: {due}\n{credit}", exercise, new_id)


def with_lines(app: Flask, lines: str, exercise: str, new_id: str) -> str:
    """Store a shipped exercise (numeric or code) under new_id with YAML lines added, as the web would."""
    source = (EXERCISES / f"{exercise}.yaml").read_text(encoding="utf-8")
    source = source.replace(f"id: {exercise.split('/')[1]}", f"id: {new_id}") + lines
    with app.app_context():
        save_source(source, None, "web")
    return new_id


def only(app: Flask, model: type[Row]) -> Row:
    """The one row of a table, detached so its columns can be read after the app context."""
    with app.app_context():
        [row] = db.session.scalars(sa.select(model)).all()
        db.session.expunge(row)
        return row


def test_before_the_due_date_the_page_says_when_and_attempts_count_fully(app: Flask, learner: FlaskClient) -> None:
    exercise = with_due(app, FUTURE, 0.5)
    page = learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert f"Due {utc('2999-12-15T23:59:00', '15 Dec 2999, 23:59')}." in page and "After that, an attempt keeps 50\u00a0% of its score." in page
    right = fmt(expected(app, exercise)["h"])
    shown = learner.get(post_answers(learner, exercise, {"h": right}).headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 100\u00a0%" in shown and "sent after the due date" not in shown
    attempt = only(app, Attempt)
    assert (attempt.score, attempt.late) == (1.0, False)


def test_after_the_due_date_a_correct_answer_keeps_the_late_credit(app: Flask, learner: FlaskClient) -> None:
    exercise = with_due(app, PAST, 0.5)
    page = learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert f"The due date ({utc('2000-01-01T00:00:00', '01 Jan 2000, 00:00')}) has passed: an attempt now keeps 50\u00a0% of its score." in page
    assert "Worked solution" not in page  # a late attempt can still earn something
    right = fmt(expected(app, exercise)["h"])
    shown = learner.get(post_answers(learner, exercise, {"h": right}).headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 50\u00a0% · sent after the due date" in shown
    assert '50\u00a0% <span class="badge quiet">late</span>' in shown
    attempt, progress = only(app, Attempt), only(app, Progress)
    assert (attempt.raw_score, attempt.score, attempt.late) == (1.0, 0.5, True)
    assert progress.best_score == 0.5 and progress.solved_at is not None


def test_after_the_due_date_without_late_credit_it_is_practice_and_the_solution_opens(
        app: Flask, learner: FlaskClient) -> None:  # fmt: skip
    exercise = with_due(app, PAST)
    page = learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert "attempts are now for practice and no longer change your score" in page
    assert "Worked solution" in page
    right = fmt(expected(app, exercise)["h"])
    shown = learner.get(post_answers(learner, exercise, {"h": right}).headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 0\u00a0% · sent after the due date" in shown
    assert "✓" in shown  # the feedback still says the answer is right
    progress = only(app, Progress)
    assert progress.best_score == 0.0 and progress.solved_at is None  # practice solves nothing


def test_the_dashboard_shows_due_dates_until_solved(app: Flask, learner: FlaskClient) -> None:
    with_due(app, FUTURE, new_id="residual-later")
    with_due(app, PAST, 0.5, exercise="gpt2-block/block-gelu", new_id="gelu-overdue")
    html = learner.get("/").get_data(as_text=True)
    later, overdue = html[html.index(">The first residual</a>", html.index("residual-later")):], \
        html[html.index('href="/exercises/gelu-overdue"'):]  # fmt: skip
    assert f'<span class="badge quiet">due {utc("2999-12-15T23:59:00", "15 Dec 2999, 23:59")}</span>' in later[:500]
    assert '<span class="badge warn">past due</span>' in overdue[:400]
    assert html.count("past due") == 1 and html.count("badge quiet\">due ") == 2  # its lesson, and upcoming
    post_answers(learner, "gelu-overdue", {k: fmt(v) for k, v in expected(app, "gelu-overdue").items()})
    assert "past due" not in learner.get("/").get_data(as_text=True)


def test_pages_say_it_in_the_readers_language(app: Flask, learner: FlaskClient) -> None:
    exercise = with_due(app, PAST, 0.5)
    learner.post("/language", data={"csrf_token": csrf_from(learner.get("/").get_data(as_text=True)), "locale": "ru"})
    page = learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    assert f"Срок сдачи ({utc('2000-01-01T00:00:00', '01 янв. 2000, 00:00')}) прошёл: теперь попытка сохраняет 50\u00a0% своей оценки." in page
    assert "срок прошёл" in learner.get("/").get_data(as_text=True)


def test_the_api_gives_the_due_date_and_marks_late_attempts(app: Flask, client: FlaskClient, token: str) -> None:
    exercise = with_due(app, PAST, 0.25)
    detail = client.get(f"{API}/exercises/{exercise}", headers=auth(token)).get_json()
    assert (detail["due"], detail["late_credit"]) == ("2000-01-01T00:00:00Z", 0.25)
    assert client.get(f"{API}/exercises/block-residual", headers=auth(token)).get_json()["due"] is None
    right = {"answers": {"h": fmt(expected(app, exercise)["h"])}}
    first = client.post(f"{API}/exercises/{exercise}/attempts", json=right, headers=auth(token))
    assert first.status_code == 201 and (first.get_json()["late"], first.get_json()["score"]) == (True, 0.25)
    again = client.post(f"{API}/exercises/{exercise}/attempts", json=right, headers=auth(token))
    assert again.status_code == 200 and again.get_json()["outcome"] == "repeat" and again.get_json()["late"] is True
    on_time = client.post(f"{API}/exercises/block-residual/attempts", json=right, headers=auth(token))
    assert on_time.get_json()["late"] is False


def test_a_late_code_submission_keeps_the_late_credit(app: Flask, learner: FlaskClient) -> None:
    with_due(app, PAST, 0.5, exercise="code/code-layer-norm", new_id="code-layer-norm")
    page = learner.get(send(learner, GOOD).headers["Location"]).get_data(as_text=True)
    assert "All cases passed" in page and "score 50\u00a0% · sent after the due date" in page
    assert "has passed: an attempt now keeps 50\u00a0% of its score" in page
    row = only(app, Submission)
    assert (row.status, row.score, row.late) == ("graded", 0.5, True)


def test_a_late_code_submission_without_late_credit_solves_nothing(app: Flask, learner: FlaskClient) -> None:
    with_due(app, PAST, exercise="code/code-layer-norm", new_id="code-layer-norm")
    page = learner.get(send(learner, GOOD).headers["Location"]).get_data(as_text=True)
    assert "All cases passed" in page and "score 0\u00a0% · sent after the due date" in page
    progress = only(app, Progress)
    assert (progress.best_score, progress.solved_at) == (0.0, None)


def test_a_submission_sent_before_the_due_date_is_on_time_however_late_it_is_graded(app: Flask) -> None:
    with_due(app, PAST, 0.5, exercise="code/code-layer-norm", new_id="code-layer-norm")
    with app.app_context():
        user = User(email="ada@example.com", password_hash="-")
        db.session.add(user)
        db.session.commit()
        sent = submissions.create(seat(user.id), "code-layer-norm", GOOD).submission
        sent.created_at = datetime(1999, 12, 31, 23, 0)  # queued before the due date, graded now
        db.session.commit()
        spec = submissions.code_spec_of(submissions.current_version("code-layer-norm"))  # type: ignore[arg-type]
        graded = submissions.record(sent.id, CodeResult("passed", 1.0), spec)
        assert graded is not None and (graded.score, graded.late) == (1.0, False)


def test_the_editor_sets_a_due_date_and_refuses_one_without_a_zone(app: Flask, instructor: FlaskClient) -> None:
    bad = instructor.post("/teach/exercises/new", data=residual_form(instructor, due="2026-12-15 23:59"))
    assert bad.status_code == 422 and "give the due date a time zone" in bad.get_data(as_text=True)
    saved = instructor.post("/teach/exercises/new",
                            data=residual_form(instructor, due="2026-12-15T23:59:00+01:00", late_credit="0.5"))
    assert saved.status_code == 303
    with app.app_context():
        exercise = db.session.get(Exercise, "my-residual")
        assert exercise is not None and exercise.due_at == datetime(2026, 12, 15, 22, 59)
    editor = instructor.get("/teach/exercises/my-residual/edit").get_data(as_text=True)
    assert 'name="due" value="2026-12-15 23:59:00+01:00"' in editor and 'name="late_credit" value="0.5"' in editor


def test_instructors_see_which_attempts_were_late(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    exercise = with_due(app, PAST, 0.5)
    post_answers(learner, exercise, {"h": fmt(expected(app, exercise)["h"])})
    post_answers(learner, "block-residual", {"h": "1 2 3 4"})
    with app.app_context():
        ada = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
    late_page = instructor.get(f"/teach/gradebook/{ada}/{exercise}").get_data(as_text=True)
    on_time_page = instructor.get(f"/teach/gradebook/{ada}/block-residual").get_data(as_text=True)
    assert '50\u00a0% <span class="badge quiet">late</span>' in late_page and ">late</span>" not in on_time_page
    csv_rows = instructor.get(f"/teach/exercises/{exercise}/attempts.csv").get_data(as_text=True).splitlines()
    assert csv_rows[0].split(",")[4:7] == ["score", "raw score", "late"]
    assert csv_rows[1].split(",")[4:7] == ["0.500", "1.000", "yes"]


def test_the_instructors_list_shows_each_due_date(app: Flask, instructor: FlaskClient) -> None:
    with_due(app, FUTURE)
    listing = instructor.get("/teach/exercises").get_data(as_text=True)
    row = listing[listing.index('<div class="muted">residual-due'):]
    assert row.startswith('<div class="muted">residual-due · due 15 Dec 2999, 23:59 UTC</div>')
    assert listing.count("· due ") == 1  # the shipped exercises have none


def test_the_dashboard_lists_upcoming_due_dates_soonest_first(app: Flask, learner: FlaskClient) -> None:
    assert "Upcoming due dates" not in learner.get("/").get_data(as_text=True)  # nothing is due
    with_due(app, "2999-03-01T00:00:00Z", new_id="later")
    with_due(app, "2999-01-01T00:00:00Z", exercise="gpt2-block/block-gelu", new_id="sooner")
    with_due(app, PAST, exercise="gpt2-block/block-gelu", new_id="overdue")
    with_due(app, "2999-02-01T00:00:00Z", exercise="gpt2-block/block-gelu", new_id="solved-already")
    post_answers(learner, "solved-already", {k: fmt(v) for k, v in expected(app, "solved-already").items()})
    with_lines(app, "due: 2999-01-15T00:00:00Z\nmax_attempts: 1\n", "gpt2-block/block-gelu", "used-up")
    post_answers(learner, "used-up", {k: fmt(-7.5) for k in expected(app, "used-up")})  # wrong: its one attempt
    html = learner.get("/").get_data(as_text=True)
    card = html[html.index("Upcoming due dates"): html.index("</section>", html.index("Upcoming due dates"))]
    assert [m for m in ("later", "sooner", "overdue", "solved-already", "used-up")
            if f'/exercises/{m}"' in card] == ["later", "sooner"]  # fmt: skip
    used_up = html[html.index('/exercises/used-up"', html.index("</section>")):]
    assert used_up[:used_up.index("</li>")].count("no attempts left") == 1 and "due " not in used_up[:used_up.index("</li>")]
    assert card.index('/exercises/sooner"') < card.index('/exercises/later"')
    assert utc("2999-01-01T00:00:00", "01 Jan 2999, 00:00") in card
