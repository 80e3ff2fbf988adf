"""Practice with new numbers: opens once the learner is done, checks answers, stores nothing."""

from __future__ import annotations

from html import unescape
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Progress, User
from grader.services import practice
from grader.services.exercises import save_source
from tests.web.api_support import auth, token_for
from tests.web.conftest import build_app, csrf_from, login, make_user, seat
from tests.web.test_i18n import choose
from tests.web.test_learn import EXERCISES, count, expected, fmt, limited_exercise, post_answers

PRACTICE = "/exercises/block-layernorm/practice"


def solve(app: Flask, client: FlaskClient, exercise: str = "block-layernorm") -> None:
    answers = {k: fmt(v) for k, v in expected(app, exercise).items()}
    assert post_answers(client, exercise, answers).status_code == 303


def numbers_token(client: FlaskClient, path: str = PRACTICE) -> str:
    """Ask for new numbers; returns the token the redirect carries."""
    response = client.get(path)
    assert response.status_code == 303, response.get_data(as_text=True)
    return parse_qs(urlsplit(response.headers["Location"]).query)["numbers"][0]


def practice_answers(app: Flask, token: str, exercise: str = "block-layernorm") -> dict[str, object]:
    """The answers the practice variant behind `token` expects."""
    with app.app_context():
        user_id = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
        opened = practice.from_token(practice.allowed(seat(user_id), exercise), token, app.config["SECRET_KEY"])
    assert opened is not None
    return {p.spec.id: p.answer_json() for p in opened.variant.parts}


def check(client: FlaskClient, token: str, answers: dict[str, str], exercise: str = "block-layernorm"):  # type: ignore[no-untyped-def]
    page = client.get(f"/exercises/{exercise}/practice?numbers={token}").get_data(as_text=True)
    data = {"csrf_token": csrf_from(page), "numbers": token, **{f"part-{k}": v for k, v in answers.items()}}
    return client.post(f"/exercises/{exercise}/practice", data=data)


def test_practice_stays_closed_until_the_learner_is_done(app: Flask, learner: FlaskClient) -> None:
    assert "Practise with new numbers" not in learner.get("/exercises/block-layernorm").get_data(as_text=True)
    refused = learner.get(PRACTICE)
    assert refused.status_code == 403
    assert "opens once you have solved this exercise" in refused.get_data(as_text=True)
    post_answers(learner, "block-layernorm", {"mu": "0", "sigma": "1", "u": "[0; 0; 0; 0]"})  # wrong: not done
    assert learner.get(PRACTICE).status_code == 403


def test_after_solving_new_numbers_are_checked_and_nothing_is_stored(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    assert "Practise with new numbers" in learner.get("/exercises/block-layernorm").get_data(as_text=True)
    with app.app_context():
        before = db.session.scalars(sa.select(Progress)).one()
        kept = (before.best_score, before.attempts_used, before.solved_at)
    token = numbers_token(learner)
    wanted = practice_answers(app, token)
    assert wanted != expected(app, "block-layernorm")  # new numbers, not the learner's own
    page = learner.get(f"{PRACTICE}?numbers={token}").get_data(as_text=True)
    assert "checked but not stored" in page and "Worked solution" in page

    right = check(learner, token, {k: fmt(v) for k, v in wanted.items()})
    html = right.get_data(as_text=True)
    assert right.status_code == 200
    assert "Score for these answers: 100\u00a0%" in html and html.count('class="verdict correct"') == 3
    assert count(app, Attempt) == 1
    with app.app_context():
        after = db.session.scalars(sa.select(Progress)).one()
        assert (after.best_score, after.attempts_used, after.solved_at) == kept


def test_practice_names_the_mistake_and_reports_every_field(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    token = numbers_token(learner)
    wanted = practice_answers(app, token)
    answers = {"mu": fmt(wanted["mu"]), "sigma": "nonsense", "u": "[1; 2; 3; 4]"}
    response = check(learner, token, answers)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "could not be read" in html
    assert html.count('class="verdict correct"') == 1  # the readable fields are still checked: there is no score to protect
    assert re.search(r'name="part-sigma"[^>]*value="nonsense"', html)
    assert count(app, Attempt) == 1


def test_the_same_numbers_come_back_on_reload(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    token = numbers_token(learner)

    def prompt() -> str:
        html = learner.get(f"{PRACTICE}?numbers={token}").get_data(as_text=True)
        return html.split('<section class="card prompt">')[1].split("</section>")[0]

    assert prompt() == prompt()
    other = numbers_token(learner)  # asking again gives other numbers
    assert other != token and practice_answers(app, other) != practice_answers(app, token)


def test_tampered_or_other_lessons_numbers_are_refused(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    token = numbers_token(learner)
    for bad in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), "garbage"):
        refused = learner.get(f"{PRACTICE}?numbers={bad}")
        assert refused.status_code == 400
        assert "not valid any more" in refused.get_data(as_text=True)
    borrowed = practice.numbers_token("ffn-memory", 7, app.config["SECRET_KEY"])  # another lesson's token
    assert learner.get(f"{PRACTICE}?numbers={borrowed}").status_code == 400
    chosen = practice.numbers_token("gpt2-block", "1", app.config["SECRET_KEY"])  # type: ignore[arg-type]
    assert learner.get(f"{PRACTICE}?numbers={chosen}").status_code == 400
    negative = practice.numbers_token("gpt2-block", -3, app.config["SECRET_KEY"])
    assert learner.get(f"{PRACTICE}?numbers={negative}").status_code == 400


def test_new_numbers_are_one_token_for_the_whole_lesson(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner, "block-residual")
    solve(app, learner)
    token = numbers_token(learner, "/exercises/block-residual/practice")
    page = learner.get(f"/exercises/block-residual/practice?numbers={token}").get_data(as_text=True)
    assert f"/exercises/block-layernorm/practice?numbers={token}" in page  # the next exercise, same token
    with app.app_context():
        user_id = db.session.scalar(sa.select(User.id).where(User.email == "ada@example.com"))
        first, then = (practice.from_token(practice.allowed(seat(user_id), e), token, app.config["SECRET_KEY"])
                       for e in ("block-residual", "block-layernorm"))  # fmt: skip
    assert first is not None and then is not None
    assert list(first.variant.params["x"]) == list(then.variant.params["x"])
    assert list(first.variant.params["a"]) == list(then.variant.params["a"])


def test_the_lessons_own_example_is_offered_as_a_worked_warm_up(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    page = learner.get(f"{PRACTICE}?numbers={numbers_token(learner)}").get_data(as_text=True)
    warm_up = page.split("The lesson&#39;s own example")[0].rsplit('href="', 1)[1].split('"')[0].replace("&amp;", "&")
    shown = learner.get(warm_up).get_data(as_text=True)
    assert "own example, worked in full below" in shown and "<details class=\"more\" open>" in shown
    assert "[−0.5; −0.5; −0.5; 1.5]" in shown  # the page's x₅


def test_practice_opens_when_attempts_are_used_up(app: Flask, learner: FlaskClient) -> None:
    limited_exercise(app)
    post_answers(learner, "residual-quiz", {"h": "1.000 2.000 3.000 4.000"})
    assert learner.get("/exercises/residual-quiz/practice").status_code == 403
    post_answers(learner, "residual-quiz", {"h": "1.000 2.000 3.000 5.000"})
    token = numbers_token(learner, "/exercises/residual-quiz/practice")
    right = {"h": fmt(practice_answers(app, token, "residual-quiz")["h"])}
    assert "Score for these answers: 100\u00a0%" in check(learner, token, right, "residual-quiz").get_data(as_text=True)


def test_instructors_practise_any_exercise_and_code_has_no_practice(instructor: FlaskClient, learner: FlaskClient) -> None:
    numbers_token(instructor)
    assert learner.get("/exercises/code-gelu/practice").status_code == 404
    assert learner.get("/exercises/no-such-thing/practice").status_code == 404


def test_a_check_needs_the_csrf_token(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    token = numbers_token(learner)
    assert learner.post(PRACTICE, data={"numbers": token, "part-mu": "0"}).status_code == 400


def test_changing_the_language_after_a_check_keeps_the_numbers(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner)
    token = numbers_token(learner)
    html = check(learner, token, {"mu": "0.000"}).get_data(as_text=True)
    assert re.search(rf'name="next" value="/exercises/block-layernorm/practice\?numbers={re.escape(token)}"', html)


def test_new_numbers_are_rate_limited(tmp_path: Path) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True)
    make_user(app, "ada@example.com")
    client = app.test_client()
    login(client, "ada@example.com")
    solve(app, client)
    # A draw in a browser is a redirect to its numbers, and showing them again (a reload) is free.
    for _ in range(30):
        drawn = client.get(PRACTICE)
        assert drawn.status_code == 303
        assert [client.get(drawn.headers["Location"]).status_code for _ in range(2)] == [200, 200]
    assert client.get(PRACTICE).status_code == 429
    # One budget for the page and the API together.
    api = client.get("/api/v1/exercises/block-layernorm/practice", headers=auth(token_for(app)))
    assert api.status_code == 429 and api.get_json()["error"] == "rate_limited"


def test_practice_answers_to_numbers_an_edit_changed_are_not_checked_against_the_new_ones(
        app: Flask, learner: FlaskClient) -> None:  # fmt: skip
    solve(app, learner)
    token = numbers_token(learner)
    page = learner.get(f"{PRACTICE}?numbers={token}").get_data(as_text=True)
    assert '<input type="hidden" name="version" value="1">' in page
    source = (EXERCISES / "gpt2-block" / "block-layernorm.yaml").read_text(encoding="utf-8")
    with app.app_context():  # an instructor edits the exercise while the practice page is open
        save_source(source.replace("low: -2.0, high: 2.0", "low: -1.0, high: 1.0", 1), None, "web")
    data = {"csrf_token": csrf_from(page), "numbers": token, "version": "1", "part-mu": "0,125"}
    sent = learner.post(PRACTICE, data=data)
    html = sent.get_data(as_text=True)
    assert sent.status_code == 409 and "This exercise changed while you were answering it." in html
    assert 'value="0,125"' in html and '<input type="hidden" name="version" value="2">' in html
    gone = learner.post(PRACTICE, data={**data, "version": "2", "part-nope": "1"})  # a part it no longer has
    assert gone.status_code == 409 and 'value="0,125"' in gone.get_data(as_text=True)


def test_the_next_exercise_link_says_which_unfinished_exercises_it_skips(app: Flask, learner: FlaskClient) -> None:
    solve(app, learner, "block-residual")
    solve(app, learner, "block-mlp")  # LayerNorm and GELU, between them, are not finished
    token = numbers_token(learner, "/exercises/block-residual/practice")
    said = {
        "en": "The next exercise skips “LayerNorm of a row” and “GELU by hand”, which you have not finished yet",
        "pt": "O próximo exercício pula “LayerNorm de uma linha” e “GELU à mão”, que você ainda não terminou",
        "ru": "Следующее упражнение пропускает «LayerNorm строки» и «GELU вручную», которые вы ещё не закончили",
    }
    for language, sentence in said.items():
        choose(learner, language)
        page = learner.get(f"/exercises/block-residual/practice?numbers={token}").get_data(as_text=True)
        assert f"/exercises/block-mlp/practice?numbers={token}" in page and 'aria-describedby="skipped"' in page
        assert sentence in unescape(page), (language, unescape(page).split('id="skipped">')[1][:300])
    solve(app, learner, "block-layernorm")
    choose(learner, "en")
    page = learner.get(f"/exercises/block-residual/practice?numbers={token}").get_data(as_text=True)
    assert f"/exercises/block-layernorm/practice?numbers={token}" in page and 'id="skipped"' not in page
    page = learner.get(f"/exercises/block-layernorm/practice?numbers={token}").get_data(as_text=True)
    assert "skips “GELU by hand”, which you have not finished yet: its practice opens" in unescape(page)
