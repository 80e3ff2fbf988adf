"""Per-exercise CSV exports for instructors: every attempt as typed, or every code submission, streamed."""

from __future__ import annotations

import csv
import io

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Variant
from grader.code_models import Submission
from grader.services import accounts, attempts
from grader.services.exercises import current_version, save_source
from grader.services.exports import spreadsheet_safe
from tests.web.conftest import make_user, seat
from tests.layer_norm_sources import GOOD
from tests.web.test_code import send


def table(response) -> list[list[str]]:  # type: ignore[no-untyped-def]
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_every_attempt_on_an_exercise_as_typed_with_verdicts(app: Flask, instructor: FlaskClient) -> None:
    ada, bob = make_user(app, "ada@example.com"), make_user(app, "=bob@example.com")
    with app.app_context():
        db.session.add(Variant(user_id=ada, exercise_id="block-gelu", seed=0))  # the page's own numbers
        db.session.commit()
        assert attempts.submit(seat(ada), "block-gelu", {"neg": "0.000", "pos": "0.952"}).outcome == "graded"
        assert attempts.submit(seat(ada), "block-gelu", {"neg": "-0,500", "pos": "0,952"}).outcome == "graded"
        assert attempts.submit(seat(bob), "block-gelu", {"neg": "1.000", "pos": "2.000"}).outcome == "graded"
    page = instructor.get("/teach/exercises/block-gelu").get_data(as_text=True)
    assert 'href="/teach/exercises/block-gelu/attempts.csv"' in page
    response = instructor.get("/teach/exercises/block-gelu/attempts.csv")
    assert response.is_streamed and response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == 'attachment; filename="block-gelu-attempts.csv"'
    header, first, second, third = table(response)
    assert header == ["email", "attempt", "time", "version", "score", "raw score", "late", "neg typed", "neg verdict",
                      "neg mistake", "pos typed", "pos verdict", "pos mistake"]  # fmt: skip
    assert first[:2] == ["ada@example.com", "1"] and first[4] == "0.500"
    assert first[6] == "" and first[7:] == ["0.000", "incorrect", "relu", "0.952", "correct", ""]
    assert second[7:9] == ["-0,500", "incorrect"]  # a signed number is no formula: kept as typed
    assert third[0] == "'=bob@example.com" and third[1] == "1"
    assert first[2].endswith("Z") and len(first[2]) == len("2026-12-01T10:00:00Z")  # UTC, as the pages say


def test_an_instructors_own_tries_are_not_exported_as_the_pages_count_learners_only(app: Flask,
                                                                                   instructor: FlaskClient) -> None:  # fmt: skip
    ada = make_user(app, "ada@example.com")
    with app.app_context():
        teacher = accounts.user_by_email("teach@example.com")
        assert teacher is not None
        for user in (ada, teacher.id):
            assert attempts.submit(seat(user), "block-gelu", {"neg": "0.000", "pos": "0.952"}).outcome == "graded"
    rows = table(instructor.get("/teach/exercises/block-gelu/attempts.csv"))
    assert [row[0] for row in rows[1:]] == ["ada@example.com"]


def test_a_code_exercise_exports_its_submissions(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    assert send(learner, GOOD).status_code == 303
    header, row = table(instructor.get("/teach/exercises/code-layer-norm/attempts.csv"))
    assert header == ["email", "submission", "attempt", "time", "status", "score", "late", "message", "source sha256"]
    with app.app_context():
        [sent] = db.session.scalars(db.select(Submission)).all()
        assert row == ["ada@example.com", str(sent.id), "1", sent.created_at.isoformat(timespec="seconds") + "Z",
                       "graded", "1.000", "", sent.result["message"], sent.source_hash]  # fmt: skip


def test_an_unknown_exercise_has_no_export(instructor: FlaskClient) -> None:
    assert instructor.get("/teach/exercises/no-such-thing/attempts.csv").status_code == 404


@pytest.mark.parametrize("cell, written", [
    ("-0.52", "-0.52"), ("+1.5e-3", "+1.5e-3"), ("-0,500", "-0,500"), ("[-0.5; 1.2]", "[-0.5; 1.2]"),
    ("-.500", "-.500"), ("+,5", "+,5"), ("-5.", "-5."), ("-.", "'-."), ("-e5", "'-e5"),
    ("=1+1", "'=1+1"), ("-1+cmd|' /C calc'!A0", "'-1+cmd|' /C calc'!A0"), ("+1@example.com", "'+1@example.com"),
    ("@SUM(A1)", "'@SUM(A1)"), ("-0.5; 1.2", "'-0.5; 1.2"), ("- 3", "'- 3"),
])
def test_only_cells_a_spreadsheet_could_run_are_marked_as_text(cell: str, written: str) -> None:
    assert spreadsheet_safe(cell) == written


def test_an_exercise_whose_parts_changed_exports_every_versions_answers(app: Flask, instructor: FlaskClient) -> None:
    ada = make_user(app, "ada@example.com")
    with app.app_context():
        assert attempts.submit(seat(ada), "block-residual", {"h": "[1.000; 2.000; 3.000; 4.000]"}).outcome == "graded"
        source = current_version("block-residual").source  # type: ignore[union-attr]
        save_source(source.replace("- id: h\n", "- id: h5\n", 1), None, "web")
        assert attempts.submit(seat(ada), "block-residual", {"h5": "[0.000; 2.000; 3.000; 4.000]"}).outcome == "graded"
    header, first, second = table(instructor.get("/teach/exercises/block-residual/attempts.csv"))
    assert header[7:] == ["h5 typed", "h5 verdict", "h5 mistake", "h typed", "h verdict", "h mistake"]
    assert (first[3], first[7], first[10]) == ("1", "", "[1.000; 2.000; 3.000; 4.000]")
    assert (second[3], second[7], second[10]) == ("2", "[0.000; 2.000; 3.000; 4.000]", "")
