"""Practise next through the JSON API: the start, a learner sent to the skill of their mistake with numbers that
expose it, the switches, and mastery that is the learner's and their instructors' only."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from grader.answers import syntax
from grader.answers.kinds import KINDS, NumericKind, render_answer
from grader.services import accounts, adaptive_switches, attempts, practice
from grader.services.courses import ensure_default
from grader.services.recommend import _gap
from tests.web.api_support import ADA, API, MISTAKE, auth
from tests.web.conftest import seat

NEXT = f"{API}/practice/next"


def _answers(app: Flask, exercise_id: str, mistake: str | None, token: str | None = None) -> dict[str, str]:
    """The learner's answers to their own variant (or to practice numbers): the mistake's where a part names it."""
    with app.app_context():
        user = accounts.user_by_email(ADA)
        assert user is not None
        if token is None:
            variant = attempts.learner_variant(seat(user.id), exercise_id)[1]
        else:
            opened = practice.from_token(attempts.open_version(seat(user.id), exercise_id), token,
                                         app.config["SECRET_KEY"])  # fmt: skip
            assert opened is not None
            variant = opened.variant
        typed = {}
        for part in variant.parts:
            found = next((m for m in part.target.mutants if m.name == mistake), None)
            value = found.routes[0] if found else part.target.exact
            kind = part.spec.type
            decimals = 6 if isinstance(KINDS[kind], NumericKind) else 0
            typed[part.spec.id] = render_answer(kind, value, syntax.syntaxes(kind)[0], decimals)
        return typed


def _work(client: FlaskClient, app: Flask, token: str, reply: dict[str, Any], mistake: str | None) -> None:
    """Do what a recommendation says: answer the own variant, or check the practice numbers."""
    exercise = reply["exercise"]
    if reply["scored"]:
        sent = client.post(f"{API}/exercises/{exercise}/attempts", headers=auth(token),
                           json={"answers": _answers(app, exercise, mistake)})  # fmt: skip
        assert sent.status_code == 201, sent.get_data(as_text=True)
    else:
        sent = client.post(f"{API}/exercises/{exercise}/practice", headers=auth(token),
                           json={"numbers": reply["numbers"], "answers": _answers(app, exercise, mistake,
                                                                                  reply["numbers"])})  # fmt: skip
        assert sent.status_code == 200, sent.get_data(as_text=True)


def test_a_learner_with_no_attempts_starts_at_the_lessons_first_exercise(client: FlaskClient, token: str) -> None:
    reply = client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).get_json()
    assert reply["exercise"] == "block-residual" and reply["scored"] is True and reply["numbers"] is None
    assert reply["reason"] == "Start with the lesson's first exercise."
    in_pt = client.get(f"{NEXT}?lesson=gpt2-block&lang=pt", headers=auth(token)).get_json()
    assert in_pt["reason"] != reply["reason"] and in_pt["exercise"] == "block-residual"
    course = client.get(NEXT, headers=auth(token)).get_json()
    assert course["exercise"] == "block-residual"  # the course's lineup starts with the same lesson


def test_a_learner_who_always_makes_one_mistake_is_sent_to_its_skill_within_three(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    seen = []  # ReLU for GELU, wherever an answer can show it; every other answer right
    for _ in range(3):
        reply = client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).get_json()
        seen.append((reply["exercise"], reply["skill"]))
        if reply["skill"] == "gelu":
            break
        _work(client, app, token, reply, "relu")
    assert seen[-1][1] == "gelu" and len(seen) <= 3, seen


def test_after_the_mistake_twice_the_numbers_make_it_show_and_the_reason_names_it(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    for again in (False, True):  # the own variant, then a second try: the same mistake twice
        answers = _answers(app, "block-layernorm", MISTAKE)
        answers["mu"] += "0" if again else ""  # the same answers count once: a trailing zero makes them new
        assert client.post(f"{API}/exercises/block-layernorm/attempts", headers=auth(token),
                           json={"answers": answers}).status_code == 201  # fmt: skip
    assert client.post(f"{API}/exercises/block-layernorm/give-up", headers=auth(token)).status_code == 200
    reply = client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).get_json()
    assert reply["skill"] == "layernorm-stats" and reply["exercise"] == "block-layernorm"
    assert reply["scored"] is False and reply["numbers"]
    assert "times this week" in reply["reason"] and "These numbers make it show." in reply["reason"]
    with app.app_context():  # the chosen numbers beat a plain draw at separating the mistake from the answer
        user = accounts.user_by_email(ADA)
        assert user is not None
        current = attempts.open_version(seat(user.id), "block-layernorm")
        chosen = practice.from_token(current, reply["numbers"], app.config["SECRET_KEY"])
        assert chosen is not None
        part = next(p for p in chosen.variant.parts if p.spec.id == "mu")
        mutant = next(m for m in part.target.mutants if m.name == MISTAKE)
        assert _gap(part.target.exact, mutant.routes[0]) > 0
    _work(client, app, token, reply, MISTAKE)  # practice checks count as evidence too
    assert client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).get_json()["skill"] == "layernorm-stats"


def test_switched_off_for_the_course_or_the_lesson_is_a_409_and_pinned_follows_the_lineup(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    with app.app_context():
        course_id = ensure_default().id
        adaptive_switches.set_switches(course_id, "gpt2-block", False, False, None)
    assert client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).status_code == 409
    assert client.get(f"{NEXT}?lesson=ffn-memory", headers=auth(token)).status_code == 200
    with app.app_context():
        adaptive_switches.set_switches(course_id, "gpt2-block", True, False, None)
        adaptive_switches.set_switches(course_id, "", False, False, None)
    assert client.get(f"{NEXT}?lesson=ffn-memory", headers=auth(token)).status_code == 409
    with app.app_context():
        adaptive_switches.set_switches(course_id, "", True, True, None)
    _work(client, app, token, client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).get_json(), MISTAKE)
    reply = client.get(f"{NEXT}?lesson=gpt2-block", headers=auth(token)).get_json()
    assert reply["exercise"] == "block-layernorm" and reply["scored"] is True  # block-residual is solved
    assert reply["reason"] == "Next in your course's order."


def test_mastery_lists_every_skill_and_moves_with_answers(app: Flask, client: FlaskClient, token: str) -> None:
    before = client.get(f"{API}/mastery", headers=auth(token)).get_json()["skills"]
    assert [s["skill"] for s in before][:2] == ["layernorm-stats", "gelu"] and before[0]["evidence"] == 0
    assert before[0]["title"] == "LayerNorm statistics" and before[0]["due_at"] is None
    _work(client, app, token, {"exercise": "block-layernorm", "scored": True}, None)
    after = {s["skill"]: s for s in client.get(f"{API}/mastery?lang=ru", headers=auth(token)).get_json()["skills"]}
    assert after["layernorm-stats"]["evidence"] == 3 and after["layernorm-stats"]["mastery"] > before[0]["mastery"]
    assert after["layernorm-stats"]["due_at"] is not None and after["layernorm-stats"]["title"] != "LayerNorm statistics"
