"""Page languages: complete catalogues, the language a request gets, and remembering a choice."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from flask import Flask, render_template_string
from flask.testing import FlaskClient
from flask_babel import force_locale, ngettext

from grader.codecheck.tasks import TASKS
from grader.extensions import db
from grader.models import User
from grader.web.i18n import LANGUAGES
from tests.web.conftest import PASSWORD, csrf_from, make_user

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = ROOT / "grader" / "web" / "translations"
TRANSLATED = [code for code in LANGUAGES if code != "en"]


def page_texts() -> set[str]:
    """Every msgid the code and templates ask for, extracted as `make messages` does."""
    with open(ROOT / "babel.cfg") as config:
        method_map, options_map = parse_mapping_cfg(config)
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(str(ROOT), method_map, options_map):
        found.add(message[0] if isinstance(message, tuple) else message)
    return found


def translations(locale: str) -> Translations:
    with open(CATALOGUES / locale / "LC_MESSAGES" / "messages.mo", "rb") as compiled:
        return Translations(compiled)


def tr(locale: str, text: str) -> str:
    translated = translations(locale).gettext(text)
    assert translated != text, f"{text!r} is not translated into {locale}"
    return translated


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_catalogue_translates_every_page_text(locale: str) -> None:
    with open(CATALOGUES / locale / "LC_MESSAGES" / "messages.po", "rb") as source:
        catalogue = read_po(source, locale=locale)
    done = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogue if m.id and not m.fuzzy
            and all(m.string if isinstance(m.string, tuple) else [m.string])}  # fmt: skip
    assert sorted(page_texts() - done) == [], "run `make messages` and translate the new texts"
    problems = [(m.id, [str(e) for e in errors]) for m, errors in catalogue.check()]
    assert problems == []  # placeholders such as %(count)d kept, plural forms complete



@pytest.mark.parametrize("locale", TRANSLATED)
def test_every_named_code_mistake_is_translated(locale: str) -> None:
    # Titles reach the catalogue only where they are marked; this catches one passed through a helper unmarked.
    catalogue = translations(locale)
    titles = [str(m.title) for task in TASKS.values() for m in task.mutants.values()]
    assert [t for t in titles if catalogue.gettext(t) == t] == []

def entries(catalogue: Catalog) -> dict[object, object]:
    """Each message's id and translation; plural ones as tuples (a read .mo gives lists)."""

    def plain(value: object) -> object:
        return tuple(value) if isinstance(value, list) else value

    return {plain(m.id): plain(m.string) for m in catalogue if m.id}


@pytest.mark.parametrize("locale", TRANSLATED)
def test_the_compiled_catalogue_matches_its_source(locale: str) -> None:
    folder = CATALOGUES / locale / "LC_MESSAGES"
    with open(folder / "messages.po", "rb") as source, open(folder / "messages.mo", "rb") as compiled:
        written, built = read_po(source, locale=locale), read_mo(compiled)
    assert entries(written) == entries(built), "run `make install`"


def test_a_browser_asking_for_portuguese_gets_portuguese_pages(client: FlaskClient) -> None:
    html = client.get("/login", headers={"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}).get_data(as_text=True)
    assert '<html lang="pt">' in html
    assert f"<h1>{tr('pt', 'Log in')}</h1>" in html
    assert 'value="pt" lang="pt" selected' in html


def test_an_unknown_language_falls_back_to_english(client: FlaskClient) -> None:
    html = client.get("/login", headers={"Accept-Language": "de-DE,fr;q=0.8"}).get_data(as_text=True)
    assert '<html lang="en">' in html and "<h1>Log in</h1>" in html


def choose(client: FlaskClient, locale: str, back: str = "/login"):  # type: ignore[no-untyped-def]
    token = csrf_from(client.get("/login").get_data(as_text=True))
    return client.post("/language", data={"csrf_token": token, "locale": locale, "next": back})


def test_choosing_a_language_applies_to_the_following_pages(client: FlaskClient) -> None:
    response = choose(client, "ru", "/register?from=menu")
    assert response.status_code == 303 and response.headers["Location"] == "/register?from=menu"
    html = client.get("/register", headers={"Accept-Language": "pt"}).get_data(as_text=True)
    assert '<html lang="ru">' in html and tr("ru", "Create an account") in html  # the choice beats the browser


def test_the_language_menu_refuses_unknown_languages_and_foreign_redirects(client: FlaskClient) -> None:
    response = choose(client, "xx", "//evil.example/")
    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert '<html lang="en">' in client.get("/login").get_data(as_text=True)


def test_the_language_menu_needs_the_csrf_token(client: FlaskClient) -> None:
    response = client.post("/language", data={"locale": "ru", "next": "/login"})
    assert response.status_code == 400
    assert '<html lang="en">' in client.get("/login").get_data(as_text=True)


def test_a_signed_in_choice_is_kept_on_the_account(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "pt", "/")
    with app.app_context():
        assert db.session.scalar(db.select(User.locale).where(User.email == "ada@example.com")) == "pt"
    elsewhere = app.test_client()  # another browser, which prefers Russian
    page = elsewhere.get("/login", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    elsewhere.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": csrf_from(page)})
    html = elsewhere.get("/", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    assert '<html lang="pt">' in html and f"<h1>{tr('pt', 'Lessons')}</h1>" in html


def test_registration_keeps_the_language_the_pages_were_in(app: Flask, client: FlaskClient) -> None:
    page = client.get("/register", headers={"Accept-Language": "ru"}).get_data(as_text=True)
    form = {"email": "ivan@example.com", "password": PASSWORD, "confirm": PASSWORD, "csrf_token": csrf_from(page)}
    response = client.post("/register", data=form, headers={"Accept-Language": "ru"}, follow_redirects=True)
    html = response.get_data(as_text=True)
    assert tr("ru", "Welcome! Pick an exercise to start.") in html
    with app.app_context():
        assert db.session.scalar(db.select(User.locale).where(User.email == "ivan@example.com")) == "ru"


def test_form_and_service_messages_are_translated(app: Flask, client: FlaskClient) -> None:
    make_user(app, "taken@example.com")
    page = client.get("/register", headers={"Accept-Language": "pt"}).get_data(as_text=True)
    short = {"email": "new@example.com", "password": "short", "confirm": "short", "csrf_token": csrf_from(page)}
    html = client.post("/register", data=short, headers={"Accept-Language": "pt"}).get_data(as_text=True)
    assert tr("pt", "Use a password of at least %(count)d characters.") % {"count": 10} in html
    taken = {**short, "email": "taken@example.com", "password": PASSWORD, "confirm": PASSWORD}
    html = client.post("/register", data=taken, headers={"Accept-Language": "pt"}).get_data(as_text=True)
    assert tr("pt", "An account with this email already exists.") in html


def test_error_pages_follow_the_chosen_language(client: FlaskClient) -> None:
    choose(client, "ru")
    response = client.get("/no/such/page")
    html = response.get_data(as_text=True)
    assert response.status_code == 404 and tr("ru", "There is nothing at this address.") in html
    assert '<html lang="ru">' in html


def test_the_api_answers_in_english_whatever_the_browser_asks(client: FlaskClient, token: str) -> None:
    choose(client, "ru")
    headers = {"Accept-Language": "ru", "Authorization": f"Bearer {token}"}
    response = client.get("/api/v1/exercises/no-such-exercise", headers=headers)
    assert response.status_code == 404
    assert response.get_json()["message"] == "There is no exercise with that name."  # translated on pages
    bare = client.get("/api", headers=headers)  # the API's own root, no slash after it
    assert bare.status_code == 404 and bare.get_json()["error"] == "not_found"
    assert bare.get_json()["message"] == client.get("/api/nothing", headers=headers).get_json()["message"]
    assert bare.get_json()["message"].isascii()


def test_russian_counts_take_their_three_plural_forms(app: Flask) -> None:
    with app.test_request_context("/"), force_locale("ru"):
        said = [ngettext("%(num)d attempt left", "%(num)d attempts left", n) for n in (1, 2, 5, 21)]
    assert said == ["осталась 1 попытка", "осталось 2 попытки", "осталось 5 попыток", "осталась 21 попытка"]


def test_a_learners_exercise_page_is_translated_around_the_exercise(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "pt", "/")
    html = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert tr("pt", "Check my answers") in html and tr("pt", "Your attempts") in html
    assert "Check my answers" not in html



def test_page_texts_keep_their_markup_and_escape_their_values(app: Flask) -> None:
    template = '{{ _("<b>%(who)s</b> left", who=who) }} {{ ngettext("%(num)d try", "%(num)d tries", 3) }}'
    with app.test_request_context("/"), force_locale("ru"):
        html = render_template_string(template, who="<script>x</script>")
    assert html == "<b>&lt;script&gt;x&lt;/script&gt;</b> left 3 tries"  # not in the catalogue: as written
    with app.test_request_context("/"), force_locale("ru"):
        said = render_template_string('{{ ngettext("%(num)d attempt left", "%(num)d attempts left", 5) }}')
    assert said == "осталось 5 попыток"


def test_a_zero_count_of_attempts_reads_naturally(app: Flask, learner: FlaskClient) -> None:
    # CLDR puts 0 with 1 in Portuguese ("0 usada"): the page says a zero count in a sentence of its own.
    choose(learner, "pt", "/")
    html = learner.get("/exercises/block-layernorm").get_data(as_text=True)
    assert "Tentativas ilimitadas · 0 usadas" in html and "0 usada<" not in html
    choose(learner, "ru", "/")
    assert "Попытки не ограничены · использовано 0" in learner.get("/exercises/block-layernorm").get_data(as_text=True)
