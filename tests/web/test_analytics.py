"""One exercise's analytics, against a real database: the numbers of a class built by hand."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from grader.models import utcnow
from grader.services import analytics, attempts, attention
from grader.services.exercises import all_exercises, existing, save_source
from tests.web.conftest import make_user, seat
from tests.web.analytics_class import EXERCISE, UNEXPLAINED, build_class
from tests.web.test_i18n import choose


def test_an_exercise_s_figures_count_the_class_built_by_hand(app: Flask, instructor: FlaskClient) -> None:
    build_class(app, teacher="teach@example.com")
    with app.app_context():
        found = analytics.exercise_analytics(seat(0).course_id, existing(EXERCISE))
    assert (found.stats.learners, found.stats.solved, found.stats.attempts) == (4, 2, 9)
    assert found.stats.solved_share == 0.5
    assert dict(found.to_solve) == {"1": 1, "2": 0, "3": 1, "4": 0, "5": 0, "6–9": 0, "10+": 0}
    assert dict(found.hints) == {"0": 3, "1": 1, "2": 0, "3+": 0}
    assert found.gave_up == 1
    relu, unexplained = found.misconceptions
    assert (relu.name, relu.answers, relu.learners) == ("relu", 6, 3)
    assert (unexplained.name, unexplained.answers, unexplained.learners) == (None, 1, 1)
    assert unexplained.examples == (("neg", UNEXPLAINED),)
    # The latest three, as typed, with no learner named.
    assert relu.examples == (("neg", "0.0"), ("neg", "0"), ("neg", "0.000"))


def test_an_exercise_nobody_tried_has_empty_figures(app: Flask) -> None:
    with app.app_context():
        found = analytics.exercise_analytics(seat(0).course_id, existing(EXERCISE))
    assert found.stats.learners == 0 and found.misconceptions == () and found.gave_up == 0
    assert sum(n for _, n in found.to_solve) == 0 and sum(n for _, n in found.hints) == 0


def test_the_dashboard_figures_count_the_class_built_by_hand(app: Flask, instructor: FlaskClient) -> None:
    ids = build_class(app, teacher="teach@example.com")
    with app.app_context():
        found = attention.rates(seat(0).course_id)[EXERCISE]
        assert (found.tried, found.solved, found.attempts, found.hinted, found.gave_up) == (4, 2, 9, 1, 1)
        assert attention.lowest_rates(all_exercises(), attention.rates(seat(0).course_id)) == [found]  # the only one tried by 3+
        met = attention.misconceptions_since(seat(0).course_id, attention.this_week())
        assert met == [attention.Met(EXERCISE, "relu", 3, 6)]
        assert attention.misconceptions_since(seat(0).course_id, utcnow() + timedelta(minutes=1)) == []  # none newer than now
        stuck, total = attention.stuck(seat(0).course_id, utcnow())
        # dee: three wrong attempts; cy: two, but asked for the solution. Newest first.
        assert total == 2 and [s.user_id for s in stuck] == [ids["dee"], ids["cy"]]
        assert stuck[0].on[0].attempts == 3 and not stuck[0].on[0].gave_up and stuck[1].on[0].gave_up
        assert attention.stuck(seat(0).course_id, utcnow() + attention.STUCK_WINDOW + timedelta(days=1)) == ([], 0)  # gone quiet
        series, learners = attention.completion(seat(0).course_id, [EXERCISE], utcnow().date(), days=3)
    # Two of four learners solved it, today.
    assert learners == 4 and [share for _, share in series] == [0.0, 0.0, 0.5]
    assert series[-1][0] == utcnow().date()


def test_analytics_pages_are_for_instructors_and_refuse_what_does_not_exist(
        instructor: FlaskClient, learner: FlaskClient) -> None:  # fmt: skip
    for path in ("/teach/", "/teach/exercises/block-gelu/analytics", "/teach/figures/solve-rates.csv",
                 "/teach/exercises/block-gelu/figures/hints.csv"):  # fmt: skip
        # Each response read to its end first: a streamed one keeps its request's context until then.
        allowed, refused = instructor.get(path), None
        allowed.get_data()
        refused = learner.get(path)
        assert allowed.status_code == 200 and refused.status_code == 403, path
    for path in ("/teach/figures/nothing.csv", "/teach/exercises/no-such/analytics",
                 "/teach/exercises/block-gelu/figures/nothing.csv", "/teach/exercises/no-such/figures/hints.csv"):
        missing = instructor.get(path)
        assert missing.status_code == 404, path


def test_the_examples_are_called_what_they_are_in_every_language(app: Flask, instructor: FlaskClient) -> None:
    # Each learner's numbers are their own, so an example leads to its author through the gradebook:
    # "anonymised" promised what the page cannot keep.
    build_class(app, teacher="teach@example.com")
    said = {"en": ("Examples (instructors only)", "are not anonymous"),
            "pt": ("Exemplos (só para professores)", "não são anônimos"),
            "ru": ("Примеры (только для преподавателей)", "не анонимны")}  # fmt: skip
    for language, (column, note) in said.items():
        choose(instructor, language)
        page = instructor.get(f"/teach/exercises/{EXERCISE}/analytics")
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and column in html and note in html, language
        assert not any(word in html.lower() for word in ("anonymised", "anonimizados", "без имён")), language


OWN_MISTAKE = (Path(__file__).resolve().parents[1] / "catalog" / "formula_examples" / "softmax-temperature.yaml")


def test_an_exercises_own_mistake_is_shown_by_its_title_wherever_instructors_see_it(
        app: Flask, instructor: FlaskClient) -> None:  # fmt: skip
    source = OWN_MISTAKE.read_text(encoding="utf-8").replace("lesson: demo", "lesson: gpt2-block\nposition: 90")
    learner = make_user(app, "ada@example.com")
    with app.app_context():
        save_source(source, None, "web")
        part = attempts.learner_variant(seat(learner), "softmax-temperature")[1].part("p")
        left_out = next(m.routes[0] for m in part.target.mutants if m.name == "no-temperature")
        typed = "[" + "; ".join(f"{v:.3f}" for v in left_out) + "]"
        assert attempts.submit(seat(learner), "softmax-temperature", {"p": typed}).outcome == "graded"
    pages = {path: instructor.get(path).get_data(as_text=True) for path in (
        "/teach/", "/teach/exercises", "/teach/exercises/softmax-temperature",
        "/teach/exercises/softmax-temperature/analytics", f"/teach/gradebook/{learner}/softmax-temperature")}
    for path, page in pages.items():
        assert "the temperature left out" in re.sub(r"<[^>]+>", " ", page), path  # in the text, not an attribute
    for path in ("/teach/exercises", "/teach/exercises/softmax-temperature",
                 f"/teach/gradebook/{learner}/softmax-temperature"):
        assert "no-temperature" not in pages[path], path
    # The charts' bars too (the tables beside them keep the id in a column of its own, as their CSV does).
    for path in ("/teach/", "/teach/exercises/softmax-temperature/analytics"):
        chart = pages[path].split('aria-labelledby="this-week"' if path == "/teach/" else 'id="wrong"')[1]
        bars = chart.split("<svg")[1].split("</svg>")[0]
        assert "the temperature left out" in bars and "no-temperature" not in bars, path


def test_the_editor_offers_mistakes_by_their_titles(instructor: FlaskClient) -> None:
    page = instructor.get("/teach/exercises/block-gelu/edit").get_data(as_text=True)
    assert re.search(r'value="relu"[^>]*> ReLU in place of GELU <code class="muted">relu</code>', page)
