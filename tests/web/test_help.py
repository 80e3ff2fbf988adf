"""Help for a stuck learner: hints on request with their cost, giving up, the solution offered after wrong tries."""

from __future__ import annotations

import html
import re
from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Progress, User
from grader.services import attempts
from grader.services.exercises import code_spec_of, existing_version, save_source
from grader.services.regrade import regrade
from tests.web.conftest import csrf_from, login, make_user, seat, seat_key
from tests.web.test_editor_round_trip import editor_fields, save_unchanged, source_of
from tests.web.test_learn import expected, fmt, post_answers

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
WRONG = {"mu": "9,000", "sigma": "9,000", "u": "[9,000; 9,000; 9,000; 9,000]"}


def _user_id(app: Flask, email: str = "ada@example.com") -> int:
    with app.app_context():
        return db.session.scalar(sa.select(User.id).where(User.email == email))


def _hints(app: Flask, exercise: str) -> tuple[str, ...]:
    with app.app_context():
        return attempts.learner_variant(seat(_user_id(app)), exercise, early=True)[1].hints_in("en")


def _post(client: FlaskClient, exercise: str, action: str, **fields: str):  # type: ignore[no-untyped-def]
    """A help button's POST; giving up is confirmed unless `fields` say otherwise."""
    token = csrf_from(client.get(f"/exercises/{exercise}").get_data(as_text=True))
    sure = {"confirm": "yes"} if action == "give-up" else {}
    return client.post(f"/exercises/{exercise}/{action}", data={"csrf_token": token, **sure, **fields})


def _progress(app: Flask, exercise: str) -> Progress | None:
    with app.app_context():
        return db.session.get(Progress, (*seat_key(_user_id(app)), exercise))


def _policy_exercise(app: Flask, policy: str) -> None:
    source = (EXERCISES / "gpt2-block" / "block-layernorm.yaml").read_text(encoding="utf-8")
    with app.app_context():
        save_source(source.replace("id: block-layernorm", "id: ln-quiz") + policy, None, "web")


def test_hints_reveal_the_solution_steps_one_at_a_time_with_the_learners_numbers(app: Flask, learner: FlaskClient) -> None:
    steps = _hints(app, "block-layernorm")
    assert len(steps) >= 2
    page = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert "Show a hint" in page and f"{len(steps)} hints left" in page
    response = _post(learner, "block-layernorm", "hint")
    assert response.status_code == 303 and response.headers["Location"].endswith("/exercises/block-layernorm#hints")
    page = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    mu = f"{expected(app, 'block-layernorm')['mu']:.3f}".replace("-", "−")
    assert mu in page.split('id="hints"')[1].split("</section>")[0]  # the first step, with this learner's μ
    assert "Show the next step" in page and "Worked solution" not in page
    for _ in range(len(steps) + 2):  # asking past the last hint reveals nothing more
        _post(learner, "block-layernorm", "hint")
    mine = _progress(app, "block-layernorm")
    assert mine is not None and mine.hints_used == len(steps) and mine.attempts_used == 0
    assert "hints left" not in learner.get("/exercises/block-layernorm").get_data(as_text=True)


def test_each_hint_costs_later_attempts_its_penalty(app: Flask, learner: FlaskClient) -> None:
    _policy_exercise(app, "hint_penalty: 0.2\n")
    assert "each hint costs 20 % of later attempts" in learner.get("/exercises/ln-quiz").get_data(as_text=True)
    _post(learner, "ln-quiz", "hint")
    right = {k: fmt(v) for k, v in expected(app, "ln-quiz").items()}  # type: ignore[arg-type]
    page = learner.get(post_answers(learner, "ln-quiz", right).headers["Location"]).get_data(as_text=True)
    assert "Score for this attempt: 80\u00a0%" in page
    with app.app_context():
        assert db.session.scalar(sa.select(Attempt.hints_used)) == 1


def test_hints_can_be_turned_off(app: Flask, learner: FlaskClient) -> None:
    _policy_exercise(app, "offer_hints: false\n")
    assert "Show a hint" not in learner.get("/exercises/ln-quiz").get_data(as_text=True)
    assert _post(learner, "ln-quiz", "hint").status_code == 404


def test_solution_is_offered_after_three_wrong_attempts_and_giving_up_ends_scoring(
    app: Flask, learner: FlaskClient
) -> None:
    for attempt in range(3):
        page = learner.get("/exercises/block-layernorm").get_data(as_text=True)
        assert "You have tried several times" not in page
        post_answers(learner, "block-layernorm", {k: v.replace("9", str(attempt + 1)) for k, v in WRONG.items()})
    page = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert "You have tried several times" in page and "Worked solution" not in page
    assert _post(learner, "block-layernorm", "give-up").headers["Location"].endswith("#solution")
    page = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert "Worked solution" in page and "You gave up on these numbers" in page
    assert "Practise with new numbers" in page and "Give up" not in page
    right = {k: fmt(v) for k, v in expected(app, "block-layernorm").items()}  # type: ignore[arg-type]
    closed = post_answers(learner, "block-layernorm", right)
    assert closed.status_code == 409 and "this answer was not counted" in closed.get_data(as_text=True)
    mine = _progress(app, "block-layernorm")
    assert mine is not None and mine.attempts_used == 3 and mine.solved_at is None and mine.best_score == 0


def test_solution_after_is_set_by_the_instructor(app: Flask, learner: FlaskClient) -> None:
    _policy_exercise(app, "solution_after: 1\n")
    post_answers(learner, "ln-quiz", WRONG)
    assert "You have tried several times" in learner.get("/exercises/ln-quiz").get_data(as_text=True)


def test_a_solved_exercise_cannot_be_given_up(app: Flask, learner: FlaskClient) -> None:
    right = {k: fmt(v) for k, v in expected(app, "block-layernorm").items()}  # type: ignore[arg-type]
    post_answers(learner, "block-layernorm", right)
    _post(learner, "block-layernorm", "give-up")
    mine = _progress(app, "block-layernorm")
    assert mine is not None and mine.solved_at is not None and mine.gave_up_at is None


def test_a_lessons_exercises_show_a_learner_the_same_token(app: Flask, learner: FlaskClient) -> None:
    with app.app_context():
        uid = _user_id(app)
        first = attempts.learner_variant(seat(uid), "block-residual")[1]
        later = [attempts.learner_variant(seat(uid), e)[1] for e in ("block-layernorm", "block-gelu", "block-output")]
    for variant in later:
        assert variant.seed == first.seed
        assert list(variant.params["x"]) == list(first.params["x"])
        assert list(variant.params["a"]) == list(first.params["a"])


def test_another_learner_gets_another_token(app: Flask, learner: FlaskClient) -> None:
    other = make_user(app, "grace@example.com")
    with app.app_context():
        mine = attempts.learner_variant(seat(_user_id(app)), "block-residual")[1].seed
        theirs = attempts.learner_variant(seat(other), "block-layernorm")[1].seed
    assert mine != theirs


def test_help_needs_a_form_token(app: Flask, client: FlaskClient) -> None:
    make_user(app, "eve@example.com")
    login(client, "eve@example.com")
    assert client.post("/exercises/block-layernorm/hint").status_code == 400
    assert _progress(app, "block-layernorm") is None


def test_the_editor_form_holds_the_help_settings(app: Flask, instructor: FlaskClient) -> None:
    _policy_exercise(app, "offer_hints: false\nhint_penalty: 0.1\nsolution_after: 2\n")
    fields = editor_fields(instructor.get("/teach/exercises/ln-quiz/edit").get_data(as_text=True))
    assert fields.get("no_hints") == "y" and fields.get("hint_penalty") == "0.1" and fields.get("solution_after") == "2"
    assert "No changes to ln-quiz." in save_unchanged(instructor, "ln-quiz")
    fields = editor_fields(instructor.get("/teach/exercises/ln-quiz/edit").get_data(as_text=True))
    del fields["no_hints"]
    fields["hint_penalty"], fields["action"] = "0.25", "save"
    assert instructor.post("/teach/exercises/ln-quiz/edit", data=fields).status_code == 303
    saved = source_of(app, "ln-quiz")
    assert "hint_penalty: 0.25" in saved and "offer_hints" not in saved and "solution_after: 2" in saved


def test_a_regrade_keeps_each_attempts_hint_cost(app: Flask, learner: FlaskClient) -> None:
    _policy_exercise(app, "hint_penalty: 0.2\n")
    post_answers(learner, "ln-quiz", WRONG)
    _post(learner, "ln-quiz", "hint")
    _post(learner, "ln-quiz", "hint")
    right = {k: fmt(v) for k, v in expected(app, "ln-quiz").items()}  # type: ignore[arg-type]
    post_answers(learner, "ln-quiz", right)
    _policy_exercise(app, "hint_penalty: 0.2\npenalty: 0.1\n")  # a new version: the retry now costs too
    with app.app_context():
        regrade("ln-quiz")
        scores = db.session.execute(sa.select(Attempt.hints_used, Attempt.score).order_by(Attempt.id)).all()
    assert [tuple(r) for r in scores] == [(0, 0.0), (2, 0.5)]  # 1 − 0.1 for the retry − 2 × 0.2 for the hints


def test_the_instructor_sees_hints_taken_and_giving_up(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:
    _post(learner, "block-layernorm", "hint")
    _post(learner, "block-layernorm", "give-up")
    page = instructor.get(f"/teach/gradebook/{_user_id(app)}/block-layernorm").get_data(as_text=True)
    assert "1 hint taken" in page and "gave up" in page


def test_a_wrong_number_with_no_named_mistake_gets_a_clue_only_when_counted(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-layernorm")
    flipped = {k: fmt([-v for v in value] if isinstance(value, list) else -value) for k, value in right.items()}  # type: ignore[union-attr]
    flipped["mu"] = fmt(right["mu"])  # type: ignore[arg-type]
    response = post_answers(learner, "block-layernorm", {**flipped, "sigma": "abc"})  # not counted: no clue
    assert response.status_code == 422 and "A clue." not in response.get_data(as_text=True)
    page = learner.get(post_answers(learner, "block-layernorm", flipped).headers["Location"]).get_data(as_text=True)
    assert "A clue." in page and "sign" in page.split("A clue.")[1].split("</p>")[0]


def test_code_exercises_offer_their_hints_and_a_solution_after_giving_up(app: Flask, learner: FlaskClient) -> None:
    with app.app_context():
        spec = code_spec_of(existing_version("code-gelu"))
    assert len(spec.hints_in("en")) >= 2 and spec.solution_in("en")
    assert "Show a hint" in learner.get("/exercises/code-gelu").get_data(as_text=True)
    _post(learner, "code-gelu", "hint")
    page = learner.get("/exercises/code-gelu").get_data(as_text=True)
    first_words = spec.hints_in("en")[0].split()[:3]
    assert " ".join(first_words) in page.split('id="hints"')[1]
    assert "Worked solution" not in page
    _post(learner, "code-gelu", "give-up")
    page = learner.get("/exercises/code-gelu").get_data(as_text=True)
    assert "Worked solution" in page and "You gave up on this exercise" in page
    token = csrf_from(page)
    refused = learner.post("/exercises/code-gelu", data={"csrf_token": token, "source": "def gelu(z):\n    return z\n"})
    assert refused.status_code == 409 and "this run was not counted" in refused.get_data(as_text=True)


def _field(page: str, part: str) -> str:
    """What a part's field holds on an exercise page."""
    found = re.search(rf'<(?:textarea|input)[^>]*name="part-{part}"[^>]*?(?:value="([^"]*)"[^>]*>|>([^<]*)</textarea>)', page)
    assert found, part
    return html.unescape(found.group(1) if found.group(1) is not None else found.group(2))


def test_a_hint_keeps_the_typed_answers_and_the_last_verdict_without_grading_them(app: Flask, learner: FlaskClient) -> None:
    shown = post_answers(learner, "block-layernorm", WRONG).headers["Location"]
    attempt = re.search(r"attempt=(\d+)", shown).group(1)  # type: ignore[union-attr]
    typed = {"part-mu": "1,25", "part-u": "[1; 2; 3; 4]"}  # typed since, not sent to be checked
    response = _post(learner, "block-layernorm", "hint", shown=attempt, **typed)
    assert response.status_code == 303 and f"attempt={attempt}" in response.headers["Location"]
    assert response.headers["Location"].endswith("#hints")
    page = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert _field(page, "mu") == "1,25" and _field(page, "u") == "[1; 2; 3; 4]" and _field(page, "sigma") == ""
    assert "Score for this attempt: 0\u00a0%" in page and 'class="verdict incorrect"' in page  # the last verdict
    assert "The marks below are attempt 1's. The fields keep what you typed since" in html.unescape(page)
    assert len(page.split('id="hints"')[1].split("<ol class=\"hints\">")[1].split("</ol>")[0].split("<li>")) == 2
    mine = _progress(app, "block-layernorm")
    assert mine is not None and mine.attempts_used == 1 and mine.hints_used == 1
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Attempt)) == 1


def test_the_answer_forms_help_buttons_send_its_fields(learner: FlaskClient) -> None:
    page = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert 'id="answer-form"' in page
    for action in ("hint", "give-up"):
        button = re.search(rf'<button[^>]*formaction="/exercises/block-layernorm/{action}"[^>]*>', page)
        assert button and 'form="answer-form"' in button.group(0), action


def test_giving_up_is_asked_first_and_one_unconfirmed_post_does_not_give_up(app: Flask, learner: FlaskClient) -> None:
    typed = {"part-mu": "0,5", "part-sigma": "<b>2</b>"}
    for asked in ({}, {"confirm": "ask"}):
        token = csrf_from(learner.get("/exercises/block-layernorm").get_data(as_text=True))
        question = learner.post("/exercises/block-layernorm/give-up", data={"csrf_token": token, **asked, **typed})
        assert question.status_code == 200
        text = question.get_data(as_text=True)
        assert "Give up?" in text and "stops counting" in text
        assert 'name="part-mu" value="0,5"' in text and 'value="&lt;b&gt;2&lt;/b&gt;"' in text  # carried, escaped
        assert 'name="confirm" value="yes"' in text and 'name="confirm" value="no"' in text
        mine = _progress(app, "block-layernorm")
        assert mine is None or mine.gave_up_at is None
    back = _post(learner, "block-layernorm", "give-up", confirm="no", **typed)
    assert back.status_code == 303 and not back.headers["Location"].endswith("#solution")
    page = learner.get(back.headers["Location"]).get_data(as_text=True)
    assert _field(page, "mu") == "0,5" and "Worked solution" not in page
    mine = _progress(app, "block-layernorm")
    assert mine is None or mine.gave_up_at is None
    done = _post(learner, "block-layernorm", "give-up", confirm="yes", **typed)
    assert done.headers["Location"].endswith("#solution")
    page = learner.get(done.headers["Location"]).get_data(as_text=True)
    assert "Worked solution" in page and _field(page, "mu") == "0,5" and _field(page, "sigma") == "<b>2</b>"
    mine = _progress(app, "block-layernorm")
    assert mine is not None and mine.gave_up_at is not None
