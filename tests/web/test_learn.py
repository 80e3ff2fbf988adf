"""A learner in the browser without JavaScript: forms, feedback, attempts and progress."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Progress, SignIn, User
from grader.services import attempts
from grader.services.exercises import save_source
from tests.web.conftest import csrf_from, login, make_user, PASSWORD, seat

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def expected(app: Flask, exercise: str, email: str = "ada@example.com") -> dict[str, object]:
    with app.app_context():
        user_id = db.session.scalar(sa.select(User.id).where(User.email == email))
        # early: the answers of an exercise not open yet are needed too (an instructor tries it first)
        return {p.spec.id: p.answer_json() for p in attempts.learner_variant(seat(user_id), exercise, early=True)[1].parts}


def fmt(value: object) -> str:
    if isinstance(value, list):
        return "[" + "; ".join(f"{v:.3f}".replace(".", ",") for v in value) + "]"
    return f"{value:.3f}".replace(".", ",")


def post_answers(client: FlaskClient, exercise: str, answers: dict[str, str]):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get(f"/exercises/{exercise}").get_data(as_text=True))
    data = {"csrf_token": token, **{f"part-{k}": v for k, v in answers.items()}}
    return client.post(f"/exercises/{exercise}", data=data)


def count(app: Flask, model: type) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count()).select_from(model))


def test_dashboard_lists_lessons_with_progress(learner: FlaskClient) -> None:
    html = learner.get("/").get_data(as_text=True)
    assert "The GPT-2 block, by hand" in html
    assert "0 / 8 solved" in html  # five block exercises and the three formula ones
    assert html.index("The first residual") < html.index("LayerNorm of a row")


def test_exercise_page_shows_own_numbers_labels_and_syntax(learner: FlaskClient) -> None:
    html = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert "<math" in html and "$" not in html.split("<main")[1].split("</section>")[0]
    assert 'for="part-mu"' in html and 'name="part-u"' in html
    assert "decimal comma allowed" in html
    assert "Unlimited attempts" in html


@pytest.mark.parametrize(("exercise", "part", "precision"), [
    ("block-layernorm", "mu", "Precision: give at least 3 decimal places."),  # abs 0.0005
    ("microgpt-params", None, "Precision: give the exact whole number"),  # a count
    ("modern-shapes", "q", None),  # a shape has no precision
])  # fmt: skip
def test_each_field_says_the_precision_it_asks_for_before_a_check(app: Flask, learner: FlaskClient, exercise: str,
                                                                  part: str | None, precision: str | None) -> None:  # fmt: skip
    html = learner.get(f"/exercises/{exercise}").get_data(as_text=True)
    hints = re.findall(r'<span class="hint" id="part-([^"]+)-hint">(.*?)</span>', html, re.S)
    said = dict(hints)[part] if part else hints[0][1]
    assert (precision in said) if precision else "Precision" not in said


def test_correct_decimal_comma_answer_is_stored_and_redirects(app: Flask, learner: FlaskClient) -> None:
    answers = {k: fmt(v) for k, v in expected(app, "block-layernorm").items()}
    response = post_answers(learner, "block-layernorm", answers)
    assert response.status_code == 303
    page = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 100\u00a0%" in page
    assert "Worked solution" in page
    assert count(app, Attempt) == 1
    assert "1 / 8 solved" in learner.get("/").get_data(as_text=True)


def test_garbage_is_reported_inline_and_not_counted(app: Flask, learner: FlaskClient) -> None:
    response = post_answers(learner, "block-layernorm", {"mu": "minus zero point nine", "sigma": "1,041", "u": "1 2"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "could not read" in html and "expected 4 numbers, got 2" in html
    assert "this try was not counted" in html
    assert "minus zero point nine" in html  # what was typed stays in the field
    assert count(app, Attempt) == 0
    assert count(app, Progress) == 0


def test_a_broken_field_hides_the_verdicts_of_the_others(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-gelu")
    html = post_answers(learner, "block-gelu", {"neg": "oops", "pos": fmt(right["pos"])}).get_data(as_text=True)
    assert "Not checked yet" in html
    assert "Correct." not in html


def test_wrong_answer_names_the_misconception_next_to_the_field(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-gelu")
    response = post_answers(learner, "block-gelu", {"neg": "0.000", "pos": fmt(right["pos"])})
    page = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert "ReLU in place of GELU" in page and "Likely mistake" in page
    assert "Score for this attempt: 50\u00a0%" in page
    assert "Worked solution" not in page


def test_the_same_answers_twice_count_once(app: Flask, learner: FlaskClient) -> None:
    first = post_answers(learner, "block-gelu", {"neg": "0.000", "pos": "1.000"})
    second = post_answers(learner, "block-gelu", {"neg": " 0.000", "pos": "1.000 "})
    assert "outcome=repeat" in second.headers["Location"]
    assert first.headers["Location"].split("attempt=")[1][:1] == second.headers["Location"].split("attempt=")[1][:1]
    assert count(app, Attempt) == 1
    assert "already submitted exactly these answers" in learner.get(second.headers["Location"]).get_data(as_text=True)


def test_answers_that_differ_only_in_spacing_count_once(app: Flask, learner: FlaskClient) -> None:
    post_answers(learner, "block-residual", {"h": "[1.000; 2.000; 3.000; 4.000]"})
    again = post_answers(learner, "block-residual", {"h": " [1.000;  2.000;\t3.000; 4.000]  "})
    assert "outcome=repeat" in again.headers["Location"] and count(app, Attempt) == 1
    other = post_answers(learner, "block-residual", {"h": "[1,000; 2,000; 3,000; 4,000]"})  # another way to write them
    assert "outcome=graded" in other.headers["Location"] and count(app, Attempt) == 2


def limited_exercise(app: Flask) -> None:
    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
    source = source.replace("id: block-residual", "id: residual-quiz") + "max_attempts: 2\npenalty: 0.25\n"
    with app.app_context():
        save_source(source, None, "web")


def test_attempt_limit_and_penalty(app: Flask, learner: FlaskClient) -> None:
    limited_exercise(app)
    post_answers(learner, "residual-quiz", {"h": "1.000 2.000 3.000 4.000"})
    right = fmt(expected(app, "residual-quiz")["h"])
    page = learner.get(post_answers(learner, "residual-quiz", {"h": right}).headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 75\u00a0%" in page
    assert "0 attempts left" in page and "Worked solution" in page
    closed = post_answers(learner, "residual-quiz", {"h": "4.000 3.000 2.000 1.000"})
    assert closed.status_code == 409 and "used all your attempts" in closed.get_data(as_text=True)
    assert count(app, Attempt) == 2


def test_answers_to_numbers_an_edit_has_changed_are_not_graded_against_the_new_ones(
        app: Flask, learner: FlaskClient) -> None:  # fmt: skip
    limited_exercise(app)
    page = learner.get("/exercises/residual-quiz").get_data(as_text=True)
    assert '<input type="hidden" name="version" value="1">' in page
    right = fmt(expected(app, "residual-quiz")["h"])  # right for the numbers on the page
    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
    edited = source.replace("id: block-residual", "id: residual-quiz").replace("low: -2.0, high: 2.0", "low: -1.0, high: 1.0")
    assert edited != source.replace("id: block-residual", "id: residual-quiz")
    with app.app_context():
        save_source(edited + "max_attempts: 2\npenalty: 0.25\n", None, "web")  # new numbers while the page is open
    data = {"csrf_token": csrf_from(page), "version": "1", "part-h": right}
    response = learner.post("/exercises/residual-quiz", data=data)
    html = response.get_data(as_text=True)
    assert response.status_code == 409 and "This exercise changed while you were answering it." in html
    assert "Nothing was counted." in html and '<input type="hidden" name="version" value="2">' in html
    assert count(app, Attempt) == 0
    assert learner.post("/exercises/residual-quiz", data={**data, "version": "2"}).status_code == 303


def test_solution_appears_when_attempts_are_used_up(app: Flask, learner: FlaskClient) -> None:
    limited_exercise(app)
    post_answers(learner, "residual-quiz", {"h": "1.000 2.000 3.000 4.000"})
    page = learner.get(post_answers(learner, "residual-quiz", {"h": "1.000 2.000 3.000 5.000"}).headers["Location"]).get_data(as_text=True)
    assert "Worked solution" in page


def test_history_lists_attempts_and_links_back(app: Flask, learner: FlaskClient) -> None:
    post_answers(learner, "block-gelu", {"neg": "0.000", "pos": "1.000"})
    post_answers(learner, "block-gelu", {"neg": "0.100", "pos": "1.000"})
    html = learner.get("/exercises/block-gelu").get_data(as_text=True)
    assert len(re.findall(r'attempt=\d+#feedback" aria-label="Attempt \d+"', html)) == 2


def test_learner_text_is_escaped(learner: FlaskClient) -> None:
    html = post_answers(learner, "block-gelu", {"neg": "<script>alert(1)</script>", "pos": "1"}).get_data(as_text=True)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_another_learners_attempt_is_not_shown(app: Flask, learner: FlaskClient) -> None:
    location = post_answers(learner, "block-gelu", {"neg": "0.000", "pos": "1.000"}).headers["Location"]
    from tests.web.conftest import login, make_user

    make_user(app, "eve@example.com")
    eve = app.test_client()
    login(eve, "eve@example.com")
    html = eve.get(location).get_data(as_text=True)
    assert "Score for this attempt" not in html and "0.000" not in html


def test_each_learner_gets_a_stable_variant_of_their_own(app: Flask, learner: FlaskClient) -> None:
    from tests.web.conftest import login, make_user

    def page() -> str:  # the CSRF token carries a timestamp, so two loads may differ only there
        html = learner.get("/exercises/block-output").get_data(as_text=True)
        return html.replace(csrf_from(html), "")

    assert page() == page()
    make_user(app, "bob@example.com")
    bob = app.test_client()
    login(bob, "bob@example.com")
    assert expected(app, "block-output") != expected(app, "block-output", "bob@example.com")


def test_unknown_exercise_is_a_404_page(learner: FlaskClient) -> None:
    response = learner.get("/exercises/no-such-thing")
    assert response.status_code == 404
    assert "There is no exercise with that name." in response.get_data(as_text=True)


def test_answer_without_csrf_token_is_refused(app: Flask, learner: FlaskClient) -> None:
    response = learner.post("/exercises/block-gelu", data={"part-neg": "0", "part-pos": "1"})
    assert response.status_code == 400
    assert "form had expired, so nothing was checked or counted" in response.get_data(as_text=True)
    assert count(app, Attempt) == 0


def test_a_partly_right_vector_says_how_much_credit_it_earned(app: Flask, learner: FlaskClient) -> None:
    learner.get("/exercises/block-residual")
    right = list(expected(app, "block-residual")["h"])  # type: ignore[call-overload]
    for answer, credit in (([right[0], right[1], right[2] + 1, right[3] + 1], True), ([v + 1 for v in right], False)):
        checked = post_answers(learner, "block-residual", {"h": fmt(answer)})
        html = learner.get(checked.headers["Location"]).get_data(as_text=True)
        assert "Incorrect: entries" in html
        assert ('<span class="credit">Partial credit: 50\u00a0%.</span>' in html) == credit


def test_answers_sent_with_an_expired_form_come_back_to_be_sent_again(app: Flask, learner: FlaskClient) -> None:
    learner.get("/exercises/block-residual")
    sent = learner.post("/exercises/block-residual", data={"csrf_token": "from-a-lost-session", "part-h": "[1,5; 2; 3; 4]"})
    html = sent.get_data(as_text=True)
    assert sent.status_code == 400 and "This page's form had expired, so nothing was checked or counted." in html
    assert "[1,5; 2; 3; 4]" in html and csrf_from(html) != "from-a-lost-session"  # a fresh token to send it with
    assert count(app, Attempt) == 0
    code = learner.post("/exercises/code-gelu", data={"csrf_token": "stale", "source": "def gelu(z):\n    return z\n"},
                        content_type="multipart/form-data")  # fmt: skip
    assert code.status_code == 400 and "def gelu(z):\n    return z" in code.get_data(as_text=True)


def test_answers_sent_after_the_sign_in_ended_wait_for_the_learner_to_log_in_again(
        app: Flask, learner: FlaskClient) -> None:  # fmt: skip
    token = csrf_from(learner.get("/exercises/block-residual").get_data(as_text=True))
    with app.app_context():  # signed out from the profile page of another browser, say
        db.session.execute(sa.delete(SignIn))
        db.session.commit()
    sent = learner.post("/exercises/block-residual", data={"csrf_token": token, "part-h": "[1,5; 2; 3; 4]"})
    assert sent.status_code == 302 and "/login?next=" in sent.headers["Location"]
    page = learner.get("/login").get_data(as_text=True)
    back = learner.post("/login?next=/exercises/block-residual",
                        data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": csrf_from(page)})
    html = learner.get(back.headers["Location"]).get_data(as_text=True)
    assert "This page's form had expired, so nothing was checked or counted." in html and "[1,5; 2; 3; 4]" in html
    assert count(app, Attempt) == 0
    assert "[1,5; 2; 3; 4]" not in learner.get("/exercises/block-residual").get_data(as_text=True)  # shown once


def test_answers_sent_after_the_cookie_was_lost_wait_too_for_half_an_hour(app: Flask, client: FlaskClient) -> None:
    make_user(app, "ada@example.com")
    sent = client.post("/exercises/block-residual", data={"csrf_token": "lost", "part-h": "[1,5; 2; 3; 4]"})
    assert sent.status_code == 302 and "/login?next=" in sent.headers["Location"]
    login(client, "ada@example.com")
    assert "[1,5; 2; 3; 4]" in client.get("/exercises/block-residual").get_data(as_text=True)
    with client.session_transaction() as kept:  # typed an hour ago, by whoever used this browser then
        kept["kept_answers"] = {"exercise": "block-residual", "answers": {"h": "[9; 9; 9; 9]"},
                                "at": int(time.time()) - 3600}  # fmt: skip
    assert "[9; 9; 9; 9]" not in client.get("/exercises/block-residual").get_data(as_text=True)


def test_an_expired_form_on_an_exercise_that_does_not_exist_is_the_plain_refusal(learner: FlaskClient) -> None:
    sent = learner.post("/exercises/no-such-thing", data={"csrf_token": "stale", "part-h": "1"})
    assert sent.status_code == 400 and "The form has expired or was not sent from this site." in sent.get_data(as_text=True)
