"""Cases from an attack on the newer surfaces that were contained but not yet in the suite: a draft through
every learner route, static paths that climb out, BREACH against the CSRF token, the API viewer's CSP,
a forged X-Forwarded-For behind a trusted proxy, giving up while an answer is in flight, and markup in
every text of a formula exercise in every language. Each keeps what was found contained."""

from __future__ import annotations

import re
import threading
from html.parser import HTMLParser
from pathlib import Path

import itsdangerous.timed
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Progress, Variant
from grader.code_models import Submission
from grader.services import accounts, attempts, help
from grader.web.app import SECURITY_HEADERS
from tests.web.api_support import API, EXERCISE, answers_of, auth, typed
from tests.web.conftest import build_app, csrf_from, make_user, PASSWORD, seat, seat_key
from tests.web.test_deployment import FORWARDED
from tests.web.test_drafts import DRAFT_ID, NEW, count, save_on_the_web
from tests.web.test_i18n import choose
from tests.web.test_sync import sync

ROOT = Path(__file__).resolve().parents[2]
ANSWERS = {"h": "[1; 2; 3; 4]"}
API_BODIES = {"attempts": {"answers": ANSWERS}, "practice": {"numbers": "abc.def", "answers": ANSWERS},
              "submissions": {"source": "x = 1\n"}}  # fmt: skip


def test_a_draft_is_a_404_through_every_learner_route_and_nothing_is_stored(
        app: Flask, learner: FlaskClient, token: str) -> None:  # fmt: skip
    assert save_on_the_web(app, NEW) == "created"
    routes = [(rule.rule.replace("<exercise_id>", DRAFT_ID), method) for rule in app.url_map.iter_rules()
              if "exercise_id" in rule.arguments and not rule.rule.startswith("/teach")
              for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})]  # fmt: skip
    assert len(routes) >= 11  # the learner's pages (answer, hint, give up, practice) and the API's calls
    form = {"csrf_token": csrf_from(learner.get("/").get_data(as_text=True)), "part-h": "[1; 2; 3; 4]",
            "source": "def f():\n    return 1\n", "numbers": "abc.def"}  # fmt: skip
    for path, method in routes:
        if path.startswith(API):  # each call's own well-formed body: the refusal must be the draft's 404
            body = API_BODIES.get(path.rsplit("/", 1)[-1])
            reply = learner.open(path, method=method, headers=auth(token), json=body if method == "POST" else None)
        else:
            reply = learner.open(path, method=method, data=form if method == "POST" else None)
        assert reply.status_code == 404, (method, path, reply.status_code)
        assert "A residual in waiting" not in reply.get_data(as_text=True), (method, path)
    for model in (Attempt, Variant, Progress, Submission):
        assert count(app, model) == 0, model


@pytest.mark.parametrize("path", ["/static/../wsgi.py", "/static/..%2fwsgi.py", "/static/%2e%2e/wsgi.py",
                                  "/static/vendor/../../config.py", "/static/..%2f..%2fconfig.py",
                                  "/static/%2e%2e%2f%2e%2e%2fconfig.py", "/static//etc/passwd",
                                  "/static/..\\..\\config.py", "/static/app.0123456789.js/../../config.py"])
def test_static_paths_that_climb_out_find_nothing(client: FlaskClient, path: str) -> None:
    reply = client.get(path)
    assert reply.status_code == 404
    body = reply.get_data(as_text=True)
    assert "GRADER_" not in body and "create_app" not in body and "root:" not in body


def test_the_csrf_token_a_page_repeats_changes_with_the_second_and_its_constant_part_is_refused(
        app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    # BREACH reads a secret repeated across compressed replies beside text the attacker chose.
    now = [1_900_000_000.0]
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: now[0])
    first = csrf_from(client.get("/login?next=x").get_data(as_text=True))
    assert csrf_from(client.get("/login?next=x").get_data(as_text=True)) == first  # the same second
    now[0] += 1
    second = csrf_from(client.get("/login?next=x").get_data(as_text=True))
    assert second != first and second.split(".")[0] == first.split(".")[0]  # only the signed time changes
    with client.session_transaction() as session:
        raw = session["csrf_token"]
    assert raw not in client.get("/login").get_data(as_text=True)  # the session's own secret never shows
    make_user(app, "ada@example.com")
    for token in (raw, first.split(".")[0]):  # the constant part alone, or the secret itself
        refused = client.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": token})
        assert refused.status_code == 400, token
    assert client.post("/login", data={"email": "ada@example.com", "password": PASSWORD,
                                       "csrf_token": second}).status_code == 302  # fmt: skip


def test_the_api_viewer_runs_under_the_site_s_strict_policy_with_no_inline_script(client: FlaskClient) -> None:
    reply = client.get(f"{API}/docs")
    assert reply.status_code == 200
    policy = reply.headers["Content-Security-Policy"]
    assert policy == SECURITY_HEADERS["Content-Security-Policy"] and "unsafe" not in policy
    html = reply.get_data(as_text=True)
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all('src="/static/' in attributes and not body.strip() for attributes, body in scripts)
    assert not re.search(r"\son[a-z]+=", html)  # no inline event handlers either


def test_behind_a_trusted_proxy_a_forged_first_forwarded_address_dodges_nothing(tmp_path: Path) -> None:
    # The proxy appends the peer it saw; whatever the client wrote before it is the client's to forge.
    app = build_app(tmp_path, RATELIMIT_ENABLED=True, TRUSTED_PROXIES=1)
    make_user(app, "ada@example.com")
    statuses = []
    for n in range(12):
        client = app.test_client()
        chain = f"198.51.100.{n}, 203.0.113.66"
        token = csrf_from(client.get("/login", headers={FORWARDED: chain}).get_data(as_text=True))
        statuses.append(client.post("/login", data={"email": "ada@example.com", "password": "not it",
                                                    "csrf_token": token}, headers={FORWARDED: chain}).status_code)
    assert statuses == [401] * 10 + [429] * 2


def test_giving_up_while_a_right_answer_is_in_flight_ends_one_way_only(app: Flask) -> None:
    # Whichever takes the learner's progress row first wins: solved (and giving up is refused) or given up
    # (and the answer is not counted). Never both, never a score earned after giving up.
    rounds = 6
    for n in range(rounds):
        make_user(app, f"racer{n}@example.com")
    right = {n: typed(answers_of(app, f"racer{n}@example.com")) for n in range(rounds)}
    outcomes: dict[int, tuple[str, bool]] = {}

    def race(n: int) -> None:
        with app.app_context():
            user = accounts.user_by_email(f"racer{n}@example.com")
            assert user is not None
            user_id = user.id
        start = threading.Barrier(2)
        found: dict[str, object] = {}

        def answer() -> None:
            with app.app_context():
                start.wait()
                found["answer"] = attempts.submit(seat(user_id), EXERCISE, right[n]).outcome
                db.session.remove()

        def give_up() -> None:
            with app.app_context():
                start.wait()
                found["gave_up"] = help.give_up(seat(user_id), EXERCISE)
                db.session.remove()

        threads = [threading.Thread(target=answer), threading.Thread(target=give_up)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        outcomes[user_id] = (str(found["answer"]), bool(found["gave_up"]))

    for n in range(rounds):
        race(n)
    with app.app_context():
        for user_id, (answered, gave_up) in outcomes.items():
            mine = db.session.get(Progress, (*seat_key(user_id), EXERCISE))
            assert mine is not None
            stored = db.session.scalar(sa.select(sa.func.count()).select_from(Attempt).where(Attempt.user_id == user_id))
            if gave_up:  # the give-up came first: the answer was refused, nothing stored or earned
                assert (answered, mine.gave_up_at is not None, mine.solved_at, mine.best_score, stored) == \
                    ("closed", True, None, 0.0, 0)  # fmt: skip
            else:  # the answer came first: solved, and giving up changed nothing
                assert (answered, mine.gave_up_at, mine.solved_at is not None, mine.best_score, stored) == \
                    ("graded", None, True, 1.0, 1)  # fmt: skip


MARKUP = "<script>alert(1)</script><img src=x onerror=alert(2)>"
FORMULA = (ROOT / "tests" / "catalog" / "formula_examples" / "block-residual-formula.yaml").read_text(encoding="utf-8")


class _Tags(HTMLParser):
    """Elements a browser would run: an on... attribute, or a script with a body or no src."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if any(name.startswith("on") for name in names) or (tag == "script" and "src" not in names):
            self.found.append(self.get_starttag_text() or tag)
        self._script = tag == "script"

    def handle_data(self, data: str) -> None:
        if self._script and data.strip():
            self.found.append(data[:80])


def _elements_with_handlers_or_inline_script(html: str) -> list[str]:
    parser = _Tags()
    parser.feed(html)
    return parser.found


def _hostile_formula_file() -> str:
    """A formula exercise with markup in every text an instructor writes, in English, Portuguese and Russian."""
    text = (FORMULA.replace("id: block-residual-formula", "id: xss-formula")
            .replace("title: The first residual, as formulas", f"title: 'Residual {MARKUP}'")
            .replace("title: the correction subtracted", f"title: 'subtracted {MARKUP}'")
            .replace("hint: The block adds the attention output to the token's vector.", f"hint: 'Adds {MARKUP}'")
            .replace("Compute $h_5 = x_5 + a_5$.", f"Compute $h_5 = x_5 + a_5$. {MARKUP}")
            .replace("label: h₅", f"label: 'h {MARKUP}'")
            .replace('  - "$h_5$ = {{h}}."', f'  - "$h_5$ = {{{{h}}}}. {MARKUP}"'))  # fmt: skip
    for language, title in (("pt", "Residual"), ("ru", "Остаток")):
        text += (("translations:\n" if language == "pt" else "") + f"  {language}:\n    title: '{title} {MARKUP}'\n"
                 f"    prompt: |\n      $x_5$ = {{{{x}}}}, $a_5$ = {{{{a}}}}. $h_5$? {MARKUP}\n"
                 f'    solution:\n      - "{title} {MARKUP}"\n      - "$h_5$ = {{{{h}}}}. {MARKUP}"\n')  # fmt: skip
    return text


def test_markup_in_every_formula_text_and_language_is_shown_as_text(
        app: Flask, learner: FlaskClient, instructor: FlaskClient, tmp_path: Path) -> None:  # fmt: skip
    assert "1 created" in sync(app, {"xss.yaml": _hostile_formula_file()}, tmp_path / "exercises").output
    page = learner.get("/exercises/xss-formula").get_data(as_text=True)
    learner.post("/exercises/xss-formula/give-up", data={"csrf_token": csrf_from(page), "confirm": "yes"})  # the solution shows
    pages = []
    for language in ("en", "pt", "ru"):
        for client, paths in ((learner, ["/", "/exercises/xss-formula"]),
                              (instructor, ["/teach/exercises/xss-formula", "/teach/exercises/xss-formula/analytics",
                                            "/teach/exercises/xss-formula/edit", "/teach/exercises"])):  # fmt: skip
            choose(client, language)
            pages += [(language, path, client.get(path).get_data(as_text=True)) for path in paths]
    for language, path, html in pages:
        assert "<script>alert" not in html and "<img src=x" not in html, (language, path)
        assert _elements_with_handlers_or_inline_script(html) == [], (language, path)
    shown = "".join(html for _, _, html in pages)
    for text in ("Residual ", "Остаток ", "h "):  # titles (en, pt, ru) and the part's label reached pages, escaped
        assert f"{text}&lt;script&gt;alert(1)&lt;/script&gt;" in shown, text
