"""The instructor's exercise figures count learners only: an instructor trying an exercise (early, to
check it) changes neither its attempts, learners, solve rate nor its common wrong answers."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Variant
from grader.services import attempts
from tests.web.conftest import make_user, seat
from tests.web.test_extensions import user_id
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.web.test_code import send
from tests.web.test_learn import expected

RELU = "0.000"  # GELU's negative entry answered as ReLU would: a named mistake


def on_page_numbers(app: Flask, *user_ids: int) -> None:
    """Give these users the lesson page's own numbers (seed 0) on block-gelu."""
    with app.app_context():
        db.session.add_all(Variant(user_id=u, exercise_id="block-gelu", seed=0) for u in user_ids)
        db.session.commit()


def answer(app: Flask, user: int, email: str, neg: str | None = None) -> None:
    """Answer block-gelu: right, or with `neg` typed for the negative entry."""
    right = expected(app, "block-gelu", email)
    with app.app_context():
        typed = {"neg": neg if neg is not None else f"{right['neg']:.3f}", "pos": f"{right['pos']:.3f}"}
        assert attempts.submit(seat(user), "block-gelu", typed).outcome == "graded"


def test_an_instructor_trying_an_exercise_is_not_counted_as_a_learner(app: Flask, instructor: FlaskClient) -> None:
    ada, bob = make_user(app, "ada@example.com"), make_user(app, "bob@example.com")
    teacher = user_id(app, "teach@example.com")
    on_page_numbers(app, ada, bob, teacher)
    answer(app, ada, "ada@example.com", RELU)
    answer(app, bob, "bob@example.com", RELU)
    answer(app, teacher, "teach@example.com", RELU)  # a wrong try first, then solved
    answer(app, teacher, "teach@example.com")
    listing = instructor.get("/teach/exercises").get_data(as_text=True)
    row = listing[listing.index("GELU by hand"):]
    row = row[: row.index("</tr>")]
    _version, tried, learners, solved = re.findall(r'<td class="num">(.*?)</td>', row)
    assert (tried, learners, solved) == ("2", "2", "0\u00a0%")
    mistakes = re.sub(r"\s+", " ", row[row.index('<div class="wrong-line">'):])
    # the misconception in words, by its title as learners see it (not its id), met by the two learners only
    assert '>ReLU in place of GELU <span class="muted">· 2 learners</span>' in mistakes and 'relu' not in mistakes
    assert '<th scope="row"><a href="/teach/exercises/block-gelu">GELU by hand</a>' in listing
    assert '<tbody><tr class="group"><th scope="rowgroup" colspan="6">The GPT-2 block, by hand</th></tr>' in listing  # a lesson heads its own row group
    page = instructor.get("/teach/exercises/block-gelu").get_data(as_text=True)
    figures = page[page.index('<table class="table stats">'):]
    assert re.findall(r'<td class="num">(.*?)</td>', figures[: figures.index("</table>")]) == ["2", "2", "0", "0\u00a0%"]
    wrong = page[page.index(f'<code class="wrong">{RELU}</code>'):]
    assert '<td class="num">2</td>' in wrong[: wrong.index("</tr>")]
    history = page[page.index("Attempts on it"):]
    cells = re.findall(r'<td class="num">(.*?)</td>', history[: history.index("</tr>", history.index("<tbody"))])
    assert cells[-1] == "2"  # version 1 has the learners' two attempts, not the instructor's two


def test_counted_code_submissions_are_the_attempts_of_a_code_exercise(learner: FlaskClient,
                                                                       instructor: FlaskClient) -> None:  # fmt: skip
    for source in (NO_EPS, GOOD):
        assert send(learner, source).status_code == 303
    listing = instructor.get("/teach/exercises").get_data(as_text=True)
    row = listing[listing.index('href="/teach/exercises/code-layer-norm"'):]
    row = row[: row.index("</tr>")]
    _version, tried, learners, solved = re.findall(r'<td class="num">(.*?)</td>', row)
    assert (tried, learners, solved) == ("2", "1", "100\u00a0%")
    page = instructor.get("/teach/exercises/code-layer-norm").get_data(as_text=True)
    figures = page[page.index('<table class="table stats">'):]
    assert re.findall(r'<td class="num">(.*?)</td>', figures[: figures.index("</table>")]) == ["2", "1", "1", "100\u00a0%"]
    assert "Common wrong answers" not in page  # typed answers only; code is reviewed per learner
    history = page[page.index("Version history"):]
    assert re.findall(r'<td class="num">(\d+)</td></tr>', history) == ["2"]  # the counted submissions on version 1
    sidebar = learner.get("/exercises/code-layer-norm").get_data(as_text=True).split("Your submissions")[1]
    assert re.findall(r'aria-label="Submission (\d)">\1</a>', sidebar) == ["2", "1"]  # newest first, numbered per learner
