"""Only the first check of each part on given practice numbers is evidence for the learner model: the same answer
again, respelt or changed, is no new opportunity, even sent at once from several clients; the same answer on new
numbers is."""

from __future__ import annotations

import threading

from flask import Flask
from flask.testing import FlaskClient

from grader.services import overrides
from tests.web.api_support import API, EXERCISE, answers_of, auth, post, typed
from tests.web.conftest import seat
from tests.web.test_mastery import _user, events, states

SKILL = "layernorm-stats"
WRONG = {"mu": "0.000", "sigma": "0.000", "u": "[0.000; 0.000; 0.000; 0.000]"}


def new_numbers(client: FlaskClient, token: str) -> str:
    reply = client.get(f"{API}/exercises/{EXERCISE}/practice", headers=auth(token))
    assert reply.status_code == 200
    return str(reply.get_json()["numbers"])


def check(client: FlaskClient, token: str, numbers: str, answers: dict[str, str]) -> None:
    reply = client.post(f"{API}/exercises/{EXERCISE}/practice", json={"numbers": numbers, "answers": answers},
                        headers=auth(token))  # fmt: skip
    assert reply.status_code == 200, reply.get_data(as_text=True)


def practice(app: Flask) -> list[tuple[str, str, bool | None, str | None]]:
    return [e for e in events(app) if e[0] == "practice"]  # the observations, not the notes of answers checked


def test_checking_the_same_answers_on_the_same_numbers_again_adds_nothing(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app))).status_code == 201  # solved: practice opens
    numbers = new_numbers(client, token)
    check(client, token, numbers, WRONG)
    after_first = states(app)[SKILL]
    assert len(practice(app)) == 3 and after_first[1] == 6
    check(client, token, numbers, WRONG)
    check(client, token, numbers, {**WRONG, "u": " [0.000;  0.000; 0.000; 0.000] "})  # spacing aside, the same
    assert len(practice(app)) == 3 and states(app)[SKILL] == after_first


def test_a_respelt_or_changed_answer_on_the_same_numbers_adds_nothing(
        app: Flask, client: FlaskClient, token: str) -> None:  # fmt: skip
    assert post(client, token, typed(answers_of(app))).status_code == 201
    numbers = new_numbers(client, token)
    check(client, token, numbers, WRONG)
    after_first = states(app)[SKILL]
    check(client, token, numbers, {**WRONG, "mu": "0.0000"})  # the same number, spelt otherwise
    check(client, token, numbers, {**WRONG, "mu": "1.000"})  # changed (still wrong)
    right = typed(answers_of(app))  # the learner's own numbers' answers: wrong here too, but changed again
    check(client, token, numbers, {**WRONG, "sigma": right["sigma"]})
    assert practice(app) == [("practice", SKILL, False, None)] * 3 and states(app)[SKILL] == after_first


def test_the_same_answers_on_new_numbers_are_new_evidence(app: Flask, client: FlaskClient, token: str) -> None:
    assert post(client, token, typed(answers_of(app))).status_code == 201
    check(client, token, new_numbers(client, token), WRONG)
    check(client, token, new_numbers(client, token), WRONG)
    assert len(practice(app)) == 6 and states(app)[SKILL][1] == 9


def test_the_noted_answers_are_no_evidence_for_a_replay(app: Flask, client: FlaskClient, token: str) -> None:
    assert post(client, token, typed(answers_of(app))).status_code == 201
    numbers = new_numbers(client, token)
    check(client, token, numbers, WRONG)
    check(client, token, numbers, WRONG)
    live = states(app)[SKILL]
    with app.app_context():
        overrides.set_score(seat(_user(app)), EXERCISE, "40", "a typo in the prompt", by=_user(app))
    assert states(app) == {SKILL: live}  # the replay read the observations only, and made no state of the notes


def test_the_same_check_sent_at_once_from_six_clients_counts_once(app: Flask, token: str) -> None:
    """Six identical checks released together (a double-clicked button, a notebook cell run in a loop): the first
    to take the learner's skill states counts, the others wait for it and then find its note."""
    assert post(app.test_client(), token, typed(answers_of(app))).status_code == 201
    numbers = new_numbers(app.test_client(), token)
    start, failures = threading.Barrier(6), []

    def send() -> None:
        client = app.test_client()
        start.wait()
        try:
            check(client, token, numbers, WRONG)
        except AssertionError as error:
            failures.append(error)

    senders = [threading.Thread(target=send) for _ in range(6)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join(timeout=120)
    assert failures == [] and not any(sender.is_alive() for sender in senders)
    assert len(practice(app)) == 3 and states(app)[SKILL][1] == 6
