"""An instructor opens a gradebook cell: the learner's attempts as typed, or their code, and how each was graded."""

from __future__ import annotations

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from grader.extensions import db
from grader.models import User, Variant
from grader.services import attempts
from tests.layer_norm_sources import GOOD
from tests.web.test_code import send
from tests.web.test_i18n import choose, tr
from tests.web.conftest import seat


def user_id(app: Flask, email: str) -> int:
    with app.app_context():
        found = db.session.scalar(sa.select(User.id).where(User.email == email))
        assert found is not None
        return found


def test_a_gradebook_cell_opens_the_learners_attempts_as_typed(app: Flask, learner: FlaskClient,
                                                               instructor: FlaskClient) -> None:  # fmt: skip
    ada = user_id(app, "ada@example.com")
    with app.app_context():
        db.session.add(Variant(user_id=ada, exercise_id="block-gelu", seed=0))  # the page's own numbers
        db.session.commit()
        right = f"{float(attempts.learner_variant(seat(ada), 'block-gelu')[1].part('neg').target.exact):.3f}"
        assert attempts.submit(seat(ada), "block-gelu", {"neg": "0.000", "pos": "0.952"}).outcome == "graded"
        typed = right.replace(".", ",")  # shown as typed, decimal comma and all
        assert attempts.submit(seat(ada), "block-gelu", {"neg": typed, "pos": "0.952"}).outcome == "graded"
    book = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert f'href="/teach/gradebook/{ada}/block-gelu"' in book
    page = instructor.get(f"/teach/gradebook/{ada}/block-gelu").get_data(as_text=True)
    assert "ada@example.com" in page and "best 100\u00a0% after 2 counted attempts" in page and "· solved" in page
    second, first = page.index(f"<code>{typed}</code>"), page.index('<code class="wrong">0.000</code>')
    assert second < first  # newest first
    assert '<span class="pill">ReLU in place of GELU</span>' in page[first: page.index("</tr>", first)]


def test_code_submissions_show_their_verdict_and_source(app: Flask, learner: FlaskClient,
                                                        instructor: FlaskClient) -> None:  # fmt: skip
    assert send(learner, GOOD + "# <script>x</script>\n").status_code == 303
    ada = user_id(app, "ada@example.com")
    page = instructor.get(f"/teach/gradebook/{ada}/code-layer-norm").get_data(as_text=True)
    assert "Code submissions" in page and "graded · 100" in page
    assert "def layer_norm(x, gamma, beta, eps=1e-5):" in page
    assert "&lt;script&gt;x&lt;/script&gt;" in page and "<script>x</script>" not in page


def test_an_unknown_learner_or_exercise_is_a_404(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    ada = user_id(app, "ada@example.com")
    assert instructor.get("/teach/gradebook/99999/block-gelu").status_code == 404
    assert instructor.get(f"/teach/gradebook/{ada}/no-such-exercise").status_code == 404
    assert learner.get(f"/teach/gradebook/{ada}/block-gelu").status_code == 403


def test_an_instructor_reading_russian_sees_the_verdicts_in_russian(app: Flask, learner: FlaskClient,
                                                                      instructor: FlaskClient) -> None:  # fmt: skip
    ada = user_id(app, "ada@example.com")
    with app.app_context():
        assert attempts.submit(seat(ada), "block-gelu", {"neg": "0.000", "pos": "0.000"}).outcome == "graded"
    choose(instructor, "ru", "/teach/gradebook")
    page = instructor.get(f"/teach/gradebook/{ada}/block-gelu").get_data(as_text=True)
    assert f'<span class="badge bad">{tr("ru", "incorrect")}</span>' in page
    assert escape(tr("ru", "The GPT-2 block, by hand")) in page and ">incorrect<" not in page


def test_the_instructor_sees_the_learners_own_numbers_and_the_answers_they_expect(app: Flask, learner: FlaskClient,
                                                                                  instructor: FlaskClient) -> None:  # fmt: skip
    from grader.catalog.display import DECIMAL_COMMA, show

    ada = user_id(app, "ada@example.com")
    assert "Their variant" not in instructor.get(f"/teach/gradebook/{ada}/block-gelu").get_data(as_text=True)
    with app.app_context():
        db.session.add(Variant(user_id=ada, exercise_id="block-gelu", seed=0))  # the lesson page's numbers
        db.session.commit()
        parts = attempts.learner_variant(seat(ada), "block-gelu")[1].parts
    page = instructor.get(f"/teach/gradebook/{ada}/block-gelu").get_data(as_text=True)
    card = page[page.index("Their variant"):page.index("<h2>Attempts")]
    assert "variant 0" in card and "= 1.102." in card  # z: the normalised row of the lesson page, −1.102
    for part in parts:
        assert f"<code>{show(part.target.exact)}</code>" in card
    assert "Worked solution" in card
    choose(instructor, "pt", "/teach/gradebook")  # an instructor reading Portuguese gets its notation
    card = instructor.get(f"/teach/gradebook/{ada}/block-gelu").get_data(as_text=True)
    for part in parts:
        assert f"<code>{show(part.target.exact, style=DECIMAL_COMMA)}</code>" in card
    choose(instructor, "en", "/teach/gradebook")
    code = instructor.get(f"/teach/gradebook/{ada}/code-layer-norm").get_data(as_text=True)
    assert "Their variant" not in code  # code exercises draw fresh inputs per submission
