"""The instructor's exercise list and one exercise's page cost a fixed number of SQL statements: the
mistakes of every exercise come from one GROUP BY over the latest wrong parts, not a query (or a
Python scan) per exercise or per learner. Counted on the engine, as the analytics pages are."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from grader.services import attempts
from tests.web.analytics_class import EXERCISE
from tests.web.test_analytics_queries import add_learners, statements
from tests.web.test_teach import ZEROS
from tests.web.test_extensions import user_id
from tests.web.conftest import seat

PAGES = ("/teach/exercises", f"/teach/exercises/{EXERCISE}")


def residual_tries(app: Flask, emails: list[str]) -> None:
    """Each learner sends a wrong answer to block-residual (all zeros): a second exercise with attempts."""
    with app.app_context():
        for email in emails:
            assert attempts.submit(seat(user_id(app, email)), "block-residual", {"h": ZEROS}).outcome == "graded"


def test_exercise_pages_send_as_many_statements_for_more_learners_and_exercises(app: Flask,
                                                                                instructor: FlaskClient) -> None:
    add_learners(app, 0, 3)
    # One learner spells ReLU's answer with spaces around it: the same answer, so its learners are counted
    # across spellings.
    with app.app_context():
        spelled = attempts.submit(seat(user_id(app, "learner000@example.com")), EXERCISE, {"neg": " 0.000 ", "pos": "9.000"})
        assert spelled.outcome == "graded"
    few = {path: statements(app, instructor, path) for path in PAGES}
    add_learners(app, 3, 9)
    many = {path: statements(app, instructor, path) for path in PAGES}
    residual_tries(app, [f"learner{n:03}@example.com" for n in range(12)])
    more_exercises = {path: statements(app, instructor, path) for path in PAGES}
    assert many == few and more_exercises == few
    assert all(count <= 15 for count in few.values()), few
    listing = instructor.get("/teach/exercises").get_data(as_text=True)
    gelu = listing[listing.index("GELU by hand"):]
    assert 'ReLU in place of GELU' in gelu[: gelu.index("learners")]  # ReLU's mistake, each learner once
    assert "· 12 learners" in gelu[: gelu.index("</tr>")]
    residual = listing[listing.index("block-residual</div>"):]
    assert "· 12 learners" in residual[: residual.index("</tr>")]
    page = instructor.get(f"/teach/exercises/{EXERCISE}").get_data(as_text=True)
    row = page[page.index('<code class="wrong">0.000</code>'):]
    assert '<td class="num">12</td>' in row[: row.index("</tr>")]  # both spellings, each learner once
