"""The audit trail: scores, due dates, regrades, exercises, reset links and deleted accounts, with who and when."""

from __future__ import annotations

import os
from html import unescape
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

import pytest

from grader.services import audit, courses
from tests.web.conftest import PASSWORD, csrf_from, empty_database, make_user
from tests.web.test_app import flask_cli
from tests.web.test_due_dates import PAST, with_due
from tests.web.test_extensions import set_due, user_id
from tests.web.test_i18n import choose, tr
from tests.web.test_learn import post_answers
from tests.web.test_overrides import set_score
from tests.web.test_privacy import close

TEACHER = "teach@example.com"


def events(app: Flask) -> list[tuple[str | None, str, str | None, str | None, dict[str, object]]]:
    """(actor, action, learner, exercise, detail), oldest first."""
    with app.app_context():
        return [(e.actor, e.action, e.learner, e.exercise_id, e.detail) for e in reversed(audit.latest())]


def test_each_change_an_instructor_makes_is_on_the_trail(app: Flask, learner: FlaskClient,
                                                         instructor: FlaskClient) -> None:  # fmt: skip
    ada = user_id(app, "ada@example.com")
    exercise = with_due(app, PAST)  # saved on the web by nobody in particular: an operator
    assert set_due(instructor, ada, exercise).status_code == 303
    assert set_due(instructor, ada, exercise, action="remove").status_code == 303
    assert set_score(instructor, ada, "80", "Oral exam instead").status_code == 303
    assert set_score(instructor, ada, "", "", action="remove").status_code == 303
    post_answers(learner, "block-residual", {"h": "[1,000; 2,000; 3,000; 4,000]"})
    page = instructor.get("/teach/exercises/block-residual").get_data(as_text=True)
    assert instructor.post("/teach/exercises/block-residual/regrade",
                           data={"csrf_token": csrf_from(page)}).status_code == 303  # fmt: skip
    page = instructor.get("/teach/reset-link").get_data(as_text=True)
    instructor.post("/teach/reset-link", data={"csrf_token": csrf_from(page), "email": "ada@example.com"})
    trail = events(app)
    assert [(actor, action, who, where) for actor, action, who, where, _ in trail] == [
        (None, "exercise.saved", None, exercise),
        (TEACHER, "extension.set", "ada@example.com", exercise),
        (TEACHER, "extension.removed", "ada@example.com", exercise),
        (TEACHER, "score.set", "ada@example.com", "block-residual"),
        (TEACHER, "score.removed", "ada@example.com", "block-residual"),
        (TEACHER, "regrade", None, "block-residual"),
        (TEACHER, "reset_link", "ada@example.com", None),
    ]  # fmt: skip
    assert trail[0][4] == {"version": 1, "origin": "web", "outcome": "created", "by": "operator"}
    assert trail[1][4] == {"due": "2999-06-01T10:00:00Z", "exercises": [exercise]}
    assert trail[3][4] == {"score": 0.8, "reason": "Oral exam instead"}
    assert trail[5][4] == {"version": 1, "attempts": 1, "changed": 0, "kept": 0}
    html = instructor.get("/teach/audit").get_data(as_text=True)
    assert "score set by hand" in html and "Oral exam instead" in html and "operator" in html
    only = instructor.get("/teach/audit?action=regrade").get_data(as_text=True)
    assert "regraded" in only and "Oral exam instead" not in only


def test_a_deleted_account_leaves_an_event_that_names_no_one(app: Flask, learner: FlaskClient,
                                                             instructor: FlaskClient) -> None:  # fmt: skip
    ada = user_id(app, "ada@example.com")
    scored = set_score(instructor, ada, "50", "Late enrolment")
    instructor.get(scored.headers["Location"])  # shows (and so clears) the flashed confirmation
    assert close(learner, PASSWORD).status_code == 303
    trail = events(app)
    assert [(actor, action, who) for actor, action, who, _, _ in trail] == [
        (TEACHER, "score.set", None), (None, "account.deleted", None)]  # fmt: skip
    assert trail[1][4] == {"role": "learner", "by": "self"}
    html = unescape(instructor.get("/teach/audit").get_data(as_text=True))
    assert "ada@example.com" not in html and "the account's owner" in html and "deleted account" in html


def test_the_trail_pages_back_a_hundred_events_at_a_time(app: Flask, instructor: FlaskClient) -> None:
    ada = make_user(app, "ada@example.com")
    with app.app_context():
        for i in range(105):
            audit.record(None, "reset_link", ada, course_id=courses.ensure_default().id, detail=i)
    first = instructor.get("/teach/audit").get_data(as_text=True)
    assert first.count("<tr><td>") == 100 and "Older →" in first
    older = first.split('href="/teach/audit?before=')[1].split('"')[0]
    second = instructor.get(f"/teach/audit?before={older}").get_data(as_text=True)
    assert second.count("<tr><td>") == 5 and "Older →" not in second


def test_an_operator_deleting_an_account_on_the_command_line_is_on_the_trail(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        assert flask_cli("users", "bootstrap", "--email", "boss@example.com", env=env).returncode == 0
        assert flask_cli("users", "delete", "--email", "boss@example.com", "--yes", env=env).returncode == 0
        from grader import create_app

        app = create_app({"INSTANCE_PATH": str(tmp_path), "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "x" * 32})
        assert [(a, action, detail) for a, action, _, _, detail in events(app)] == [
            (None, "account.deleted", {"role": "admin", "by": "operator"})]  # fmt: skip  (bootstrap makes the admin)
        with app.app_context():
            from grader.extensions import db

            db.engine.dispose()


def details_cell(html: str, action: str) -> str:
    """The Details cell of the newest event of one action (its name as the page shows it) on the audit page."""
    row = html[html.index(f"<td>{action}</td>"):]
    return row[row.index('<td class="small">'): row.index("</tr>")]


def trail_with_each_kind_of_detail(app: Flask, instructor: FlaskClient) -> None:
    """An exercise saved on the web, an own due date and a score set by hand, for ada."""
    ada = user_id(app, "ada@example.com")
    exercise = with_due(app, PAST)
    assert set_due(instructor, ada, exercise).status_code == 303
    assert set_score(instructor, ada, "87.5", "Oral exam instead").status_code == 303


def test_details_are_named_and_scores_are_percentages(app: Flask, learner: FlaskClient,
                                                      instructor: FlaskClient) -> None:  # fmt: skip
    trail_with_each_kind_of_detail(app, instructor)
    html = instructor.get("/teach/audit").get_data(as_text=True)
    assert details_cell(html, "score set by hand") == (
        '<td class="small"><span class="muted">score</span> 87.5\u00a0% · '
        '<span class="muted">reason</span> Oral exam instead</td>')  # fmt: skip
    assert details_cell(html, "own due date given") == (
        '<td class="small"><span class="muted">until</span> 01 Jun 2999, 10:00 · '
        '<span class="muted">exercises</span> residual-due</td>')  # fmt: skip
    assert details_cell(html, "exercise saved") == (
        '<td class="small"><span class="muted">version</span> 1 · from the web editor · new exercise</td>')


@pytest.mark.parametrize("locale", ["pt", "ru"])
def test_details_are_in_the_pages_language(app: Flask, learner: FlaskClient, instructor: FlaskClient,
                                           locale: str) -> None:  # fmt: skip
    trail_with_each_kind_of_detail(app, instructor)
    choose(instructor, locale)
    html = unescape(instructor.get("/teach/audit").get_data(as_text=True))
    score = details_cell(html, tr(locale, "score set by hand"))
    assert f'<span class="muted">{tr(locale, "score")}</span> 87,5\u00a0%' in score  # the page's decimal mark
    assert f'<span class="muted">{tr(locale, "reason")}</span> Oral exam instead' in score
    saved = details_cell(html, tr(locale, "exercise saved"))
    assert f"{tr(locale, 'from the web editor')} · {tr(locale, 'new exercise')}" in saved
    assert f'<span class="muted">{tr(locale, "until")}</span>' in details_cell(html, tr(locale, "own due date given"))
