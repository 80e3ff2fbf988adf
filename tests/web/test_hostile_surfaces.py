"""Cases from an attack on the newer surfaces that were contained but not yet in the suite: a draft through
every learner route, static paths that climb out, BREACH against the CSRF token, the API viewer's CSP,
a forged X-Forwarded-For behind a trusted proxy, and giving up while an answer is in flight. Each keeps
what was found contained."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import itsdangerous.timed
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Progress, Submission, Variant
from grader.services import accounts, attempts, help
from grader.web.app import SECURITY_HEADERS
from tests.web.api_support import API, EXERCISE, answers_of, auth, typed
from tests.web.conftest import PASSWORD, build_app, csrf_from, make_user
from tests.web.test_deployment import FORWARDED
from tests.web.test_drafts import DRAFT_ID, NEW, count, save_on_the_web

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
                found["answer"] = attempts.submit(user_id, EXERCISE, right[n]).outcome
                db.session.remove()

        def give_up() -> None:
            with app.app_context():
                start.wait()
                found["gave_up"] = help.give_up(user_id, EXERCISE)
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
            mine = db.session.get(Progress, (user_id, EXERCISE))
            assert mine is not None
            stored = db.session.scalar(sa.select(sa.func.count()).select_from(Attempt).where(Attempt.user_id == user_id))
            if gave_up:  # the give-up came first: the answer was refused, nothing stored or earned
                assert (answered, mine.gave_up_at is not None, mine.solved_at, mine.best_score, stored) == \
                    ("closed", True, None, 0.0, 0)  # fmt: skip
            else:  # the answer came first: solved, and giving up changed nothing
                assert (answered, mine.gave_up_at, mine.solved_at is not None, mine.best_score, stored) == \
                    ("graded", None, True, 1.0, 1)  # fmt: skip
