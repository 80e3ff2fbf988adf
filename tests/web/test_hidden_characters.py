"""Invisible and text-direction characters: refused in new emails, shown visibly wherever learner text is shown.

"alice@\u202emoc.elpmaxe" reads as alice@example.com; a right-to-left override in code makes it read
otherwise than it runs ("Trojan Source"); an ESC rewrites a terminal. Pages, the CLI and the CSV
exports write each as its escape (\\u202e), through grader/visible.py.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader import visible
from grader.extensions import db
from grader.models import User
from grader.services import accounts, attempts
from tests.layer_norm_sources import GOOD
from tests.web.conftest import csrf_from, in_default_course, login, PASSWORD, seat
from tests.web.test_code import send
from tests.web.test_i18n import tr
from tests.web.test_learner_work import user_id

SPOOF = "alice@\u202emoc.elpmaxe"  # shows as alice@example.com
HIDDEN_MESSAGE = "This email address contains invisible or text-direction characters. Type it again by hand."
MIXED_MESSAGE = ("This email address mixes letters of different alphabets, so it can pass for another address. "
                 "Use one alphabet in each part.")  # fmt: skip
ANSWERS = {"neg": "0.000", "pos": "0.952"}
RAW = ("\u202e", "\u2066", "\u2069", "\x1b", "\u200b")


def register(client: FlaskClient, email: str, language: str = "en"):  # type: ignore[no-untyped-def]
    headers = {"Accept-Language": language}
    token = csrf_from(client.get("/register", headers=headers).get_data(as_text=True))
    form = {"email": email, "password": PASSWORD, "confirm": PASSWORD, "csrf_token": token}
    return client.post("/register", data=form, headers=headers)


@pytest.mark.parametrize("language", ["en", "pt", "ru"])
@pytest.mark.parametrize(("email", "message"), [
    (SPOOF, HIDDEN_MESSAGE), ("ali\u200bce@example.com", HIDDEN_MESSAGE), ("bob\x1b[2J@example.com", HIDDEN_MESSAGE),
    ("\u0430lice@example.com", MIXED_MESSAGE),  # a Cyrillic а, then Latin
    ("alice@xn--80ak6aa92e.com", MIXED_MESSAGE),  # аррӏе.com, all Cyrillic, beside a Latin name
])  # fmt: skip
def test_registration_refuses_an_email_that_can_pass_for_another(app: Flask, client: FlaskClient, email: str,
                                                                 message: str, language: str) -> None:  # fmt: skip
    response = register(client, email, language)
    assert response.status_code == 422
    expected = message if language == "en" else tr(language, message)
    assert expected in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(User)) == 0


@pytest.mark.parametrize("email", ["иван@пример.рф", "ivan@example.com", "δοκιμή@παράδειγμα.δοκιμή", "7@example.com"])
def test_an_email_in_one_alphabet_per_part_is_welcome(client: FlaskClient, email: str) -> None:
    assert register(client, email).status_code == 302


def test_an_account_made_before_keeps_its_email_and_shows_it_visibly(app: Flask, instructor: FlaskClient) -> None:
    with app.app_context():  # as a registration before the check stored it
        db.session.add(User(email=SPOOF, password_hash=accounts._hasher().hash(PASSWORD), role="learner"))
        db.session.commit()
        spoof = db.session.scalar(sa.select(User.id).where(User.email == SPOOF))
        assert spoof is not None
        in_default_course(spoof)
        assert attempts.submit(seat(spoof), "block-gelu", ANSWERS).outcome == "graded"
    login(app.test_client(), SPOOF)  # it still signs in
    for page in (instructor.get("/teach/gradebook"), instructor.get(f"/teach/gradebook/{spoof}/block-gelu")):
        html = page.get_data(as_text=True)
        assert page.status_code == 200 and not any(char in html for char in RAW)
        assert '<span class="hidden-char" title="U+202E RIGHT-TO-LEFT OVERRIDE">\\u202e</span>moc.elpmaxe' in html
    for export in ("/teach/gradebook.csv", "/teach/exercises/block-gelu/attempts.csv"):
        text = instructor.get(export).get_data(as_text=True)
        assert not any(char in text for char in RAW)
        assert ["alice@\\u202emoc.elpmaxe"] == [row[0] for row in csv.reader(io.StringIO(text)) if "moc" in row[0]]


# Reads "admin" where it checks "user" (the override turns the rest of the line around), and clears
# the screen of whoever prints it.
TROJAN = GOOD + 'access = "user\u202e \u2066# admin\u2069 \u2066"  # \x1b[2J\n'


def test_code_with_hidden_characters_shows_them_with_a_warning_on_the_instructors_page(
        app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:  # fmt: skip
    assert send(learner, TROJAN).status_code == 303
    ada = user_id(app, "ada@example.com")
    html = instructor.get(f"/teach/gradebook/{ada}/code-layer-norm").get_data(as_text=True)
    assert not any(char in html for char in RAW)
    assert "5 hidden characters" in html and "change the direction of text" in html
    for code in ("\\u202e", "\\u2066", "\\u2069", "\\u001b"):
        assert f">{code}</span>" in html
    assert "def layer_norm(x, gamma, beta, eps=1e-5):" in html  # the rest as it was


def test_one_helper_writes_hidden_characters_as_escapes_and_leaves_the_rest() -> None:
    assert visible.visible("a\u202eb\r\nc\rd\x1b[2J\x85\u2028\U000e0001 иван\tok") == (
        "a\\u202eb\r\nc\\u000dd\\u001b[2J\\u0085\\u2028\\U000e0001 иван\tok")  # fmt: skip
    assert visible.hidden_in("x\r\ny") == [] and visible.hidden_in("\ufeffx") == ["\ufeff"]
    data = {"printed": "\x1b]0;owned\x07 \u202e"}
    assert json.loads(visible.visible(json.dumps(data, ensure_ascii=False))) == {"printed": "\x1b]0;owned\x07 \u202e"}


def test_the_cli_prints_a_learners_code_with_hidden_characters_as_escapes(app: Flask, learner: FlaskClient) -> None:
    assert send(learner, TROJAN).status_code == 303
    result = app.test_cli_runner().invoke(args=["users", "export", "--email", "ada@example.com"])
    assert result.exit_code == 0 and not any(char in result.output for char in RAW)
    assert "\\u202e" in result.output and "\\u001b[2J" in result.output
    [sent] = json.loads(result.output)["submissions"]  # still JSON, which reads back as the code sent
    assert sent["source"] == TROJAN
