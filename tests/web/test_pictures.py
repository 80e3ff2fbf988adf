"""Pictures on the exercise pages: well-formed SVG with the learner's own numbers, in the page's
language, and the per-entry comparison only once the page shows the solution anyway."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.catalog.display import MINUS
from grader.catalog.variants import Variant
from grader.extensions import db
from grader.models import User
from grader.services import attempts
from tests.web.test_i18n import choose, tr
from tests.web.test_learn import expected, post_answers
from tests.web.conftest import seat

SVG = re.compile(r"<svg\b.*?</svg>", re.S)
NS = "{http://www.w3.org/2000/svg}"


def variant(app: Flask, exercise: str) -> Variant:
    """The learner ada@example.com's own variant of `exercise`."""
    with app.app_context():
        uid = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
        return attempts.learner_variant(seat(uid), exercise)[1]


def params(app: Flask, exercise: str) -> dict[str, object]:
    """The learner's own parameters for `exercise`."""
    return dict(variant(app, exercise).params)


def drawn(html: str) -> list[ET.Element]:
    """Every SVG on the page, parsed as XML (a malformed one fails here)."""
    return [ET.fromstring(unescape_entities(svg)) for svg in SVG.findall(html)]


def unescape_entities(svg: str) -> str:
    # The page escapes text as HTML does (&#39; for '), which XML reads too; &nbsp; and such would not be.
    assert not re.search(r"&(?!amp;|lt;|gt;|quot;|#\d+;)", svg), "an HTML-only entity in the SVG"
    return svg


def texts(svg: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in svg.iter(f"{NS}text")]


def three(value: float, decimal: str = ".") -> str:
    text = f"{value + 0.0:.3f}"  # + 0.0: a drawn −0.0 is printed 0.000
    return ("0.000" if float(text) == 0 else text).replace("-", MINUS).replace(".", decimal)


def test_the_block_diagram_draws_the_learners_x_and_a_and_asks_for_h(app: Flask, learner: FlaskClient) -> None:
    html = learner.get("/exercises/block-residual").get_data(as_text=True)
    [svg] = drawn(html)
    assert svg.get("role") == "img" and svg.find(f"{NS}title") is not None and svg.find(f"{NS}desc") is not None
    mine = params(app, "block-residual")
    shown = texts(svg)
    assert all(three(v) in shown for v in [*mine["x"], *mine["a"]])  # type: ignore[attr-defined]
    current = [g for g in svg.iter(f"{NS}g") if "pic-current" in g.get("class", "")]
    assert len(current) == 1 and texts(current[0]) == ["h₅", "?", "?", "?", "?"]
    # The only numbers drawn are x's and a's: h (the answer), u, m and y are not.
    numbers = [t for t in shown if re.fullmatch(r"−?\d+\.\d{3}", t)]
    assert sorted(numbers) == sorted(three(v) for v in [*mine["x"], *mine["a"]])  # type: ignore[attr-defined]
    # The numbers again for screen readers, in a table the eye does not see.
    assert re.search(r'<div class="visually-hidden"><table>\s*<caption>Numbers in the picture</caption>', html)


def test_the_worked_solution_draws_every_station_and_only_its_own_numbers(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-gelu")
    # The numbers the worked solution prints: the page's hand route (0.952 at seed 0, where full precision gives 0.953).
    printed = variant(app, "block-gelu").quantities
    before = drawn(learner.get("/exercises/block-gelu").get_data(as_text=True))
    assert len(before) == 2 and not any(three(printed["gelu_pos"]) in texts(s) for s in before)
    post_answers(learner, "block-gelu", {k: f"{v:.4f}" for k, v in right.items()})  # type: ignore[str-format]
    after = drawn(learner.get("/exercises/block-gelu").get_data(as_text=True))
    assert len(after) == 4  # the prompt's two, and the solution's two with every number
    curve = after[-1]
    assert three(printed["gelu_pos"]) in texts(curve) and three(printed["gelu_neg"]) in texts(curve)
    # The block diagram draws every station, with only the numbers this exercise's own prompt and solution
    # print (its scalars are on the curve): never m or y, the next exercises' answers for the same token.
    block = texts(after[-2])
    assert [label for label in block if label in ("h₅", "u′₅", "m₅", "y₅")] == ["h₅", "u′₅", "m₅", "y₅"]
    assert not any(three(v) in block for name in ("h", "u", "m", "y") for v in printed[name])


def test_a_wrong_vector_is_compared_entry_by_entry_only_once_the_solution_shows(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-residual")["h"]
    wrong = list(right)  # type: ignore[call-overload]
    wrong[2] += 1
    typed = "[" + "; ".join(f"{v:.3f}" for v in wrong) + "]"
    first = post_answers(learner, "block-residual", {"h": typed}).headers["Location"]
    html = learner.get(first).get_data(as_text=True)
    assert "pic-compare" not in html  # unlimited attempts, not solved: the expected values stay hidden
    post_answers(learner, "block-residual", {"h": "[" + "; ".join(f"{v:.4f}" for v in right) + "]"})  # type: ignore[attr-defined]
    html = learner.get(first).get_data(as_text=True)
    compare = [s for s in drawn(html) if "Your answer against the expected one" in "".join(s.find(f"{NS}title").itertext())]  # type: ignore[union-attr]
    assert len(compare) == 1
    shown = texts(compare[0])
    assert three(wrong[2]) in shown and three(right[2]) in shown  # type: ignore[index]
    marked = [t for t in compare[0].iter(f"{NS}text") if "pic-wrong-text" in t.get("class", "")]
    assert ["".join(t.itertext()) for t in marked] == [three(wrong[2])]


def test_pictures_speak_the_pages_language(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "pt", "/")
    html = learner.get("/exercises/block-residual").get_data(as_text=True)
    [svg] = drawn(html)
    assert "".join(svg.find(f"{NS}title").itertext()) == tr("pt", "The GPT-2 block, one token at a time")  # type: ignore[union-attr]
    mine = params(app, "block-residual")
    assert all(three(v, ",") in texts(svg) for v in mine["x"])  # type: ignore[attr-defined]


def test_exercises_without_a_picture_draw_none(learner: FlaskClient) -> None:
    for exercise in ("swiglu-width", "modern-shapes", "ffn-keys"):  # ffn-keys: its heatmap is the solution's
        assert "<svg" not in learner.get(f"/exercises/{exercise}").get_data(as_text=True)
