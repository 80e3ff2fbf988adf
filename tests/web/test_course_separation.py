"""A learner in two courses that use the same catalogue exercise: answering in one leaves the other's progress,
gradebook row and analytics figures exactly as they were."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import csrf_from
from tests.web.test_courses import EXERCISE, signed_in, two_courses  # noqa: F401 (a fixture)

WRONG = "[0.000; 0.000; 0.000; 0.000]"  # answered, graded, not solved: an attempt and a wrong answer to count
# What an instructor of a course reads about it: the gradebook, the exercise's analytics and the dashboard's.
FIGURES = ("/teach/gradebook.csv", f"/teach/exercises/{EXERCISE}/figures/attempts-to-solve.csv",
           f"/teach/exercises/{EXERCISE}/figures/misconceptions.csv", f"/teach/exercises/{EXERCISE}/figures/hints.csv",
           "/teach/figures/solve-rates.csv", "/teach/figures/misconceptions-this-week.csv",
           "/teach/figures/stuck-learners.csv", "/teach/figures/completion.csv")  # fmt: skip


def seen_by(client: FlaskClient) -> dict[str, str]:
    """Every figure page's text, and the exercise's statistics as the instructor's exercise page shows them."""
    shown = {url: client.get(url).get_data(as_text=True) for url in FIGURES}
    page = client.get(f"/teach/exercises/{EXERCISE}").get_data(as_text=True)
    shown["exercise page"] = without_tokens(page[page.index("<main"):page.index("</main>")])
    return shown


def without_tokens(page: str) -> str:
    """A page without its forms' CSRF tokens, which are new each time."""
    return re.sub(r'name="csrf_token" (?:type="hidden" )?value="[^"]+"', "", page)


def learner_view(client: FlaskClient) -> str:
    """The learner's exercise page without its form's token (which changes each time)."""
    return without_tokens(client.get(f"/exercises/{EXERCISE}").get_data(as_text=True))


def test_answering_in_one_course_leaves_the_other_untouched(app: Flask, two_courses: dict[str, int]) -> None:
    t1, t2 = signed_in(app, "t1@example.com"), signed_in(app, "t2@example.com")
    ada_101, ada_102 = signed_in(app, "ada@example.com", "ml101"), signed_in(app, "ada@example.com", "ml102")
    before_101, before_102 = seen_by(t1), seen_by(t2)
    ada_in_102 = learner_view(ada_102)
    dashboard_102 = without_tokens(ada_102.get("/").get_data(as_text=True))

    page = ada_101.get(f"/exercises/{EXERCISE}").get_data(as_text=True)
    sent = ada_101.post(f"/exercises/{EXERCISE}", data={"csrf_token": csrf_from(page), "part-h": WRONG})
    assert sent.status_code in (200, 303), sent.status_code

    after_101, after_102 = seen_by(t1), seen_by(t2)
    assert after_102 == before_102  # the other course's gradebook, analytics and statistics
    assert learner_view(ada_102) == ada_in_102
    assert without_tokens(ada_102.get("/").get_data(as_text=True)) == dashboard_102
    # The same figures in the course she answered in did change: the comparison above can see an attempt.
    changed = {url for url in after_101 if after_101[url] != before_101[url]}
    assert changed == {"/teach/gradebook.csv", f"/teach/exercises/{EXERCISE}/figures/misconceptions.csv",
                       f"/teach/exercises/{EXERCISE}/figures/hints.csv", "exercise page"}  # the rest count solves
    ada_row = next(line for line in after_101["/teach/gradebook.csv"].splitlines() if line.startswith("ada@"))
    assert ada_row != next(line for line in before_101["/teach/gradebook.csv"].splitlines() if line.startswith("ada@"))
    assert "1 attempt" in ada_101.get("/").get_data(as_text=True)
