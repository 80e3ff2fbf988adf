"""The authorisation matrix: every route × anonymous, learner and instructor.

Each route is classified; a route added without a class fails test_every_route_is_classified.
"""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import User
from grader.services import api_tokens
from tests.web.conftest import csrf_from, login, make_user

PUBLIC, LEARNER, INSTRUCTOR, API, API_INSTRUCTOR = "public", "learner", "instructor", "api", "api-instructor"
# Practice opens for a learner once their own variant is finished; in this matrix nobody has finished one.
FINISHED, API_FINISHED = "learner-when-finished", "api-learner-when-finished"
# The LMS's own pages (deep-linking picker, a new LMS course's choice) need an LTI launch in the session: refused
# to all here. The roster pull is a course instructor's page (it says when the course has no LMS course).
LTI_LAUNCHED = "lti-launched"
CLASSES = {
    r"^/static/": PUBLIC, r"^/(login|register|language|forgot|healthz|readyz)$": PUBLIC, r"^/reset/": PUBLIC, r"^/api/v1(/openapi\.json|/docs|/client\.py)?$": PUBLIC,
    r"^/api/v1/(courses/[^/]+/)?gradebook\.csv$": API_INSTRUCTOR, r"^/api/v1/mastery/class$": API_INSTRUCTOR, r"^/api/v1/exercises/[^/]+/practice$": API_FINISHED, r"^/api/v1/": API,
    r"^/teach/": INSTRUCTOR, r"^/lti/(jwks|login|launch)$": PUBLIC, r"^/lti/(pick|course)$": LTI_LAUNCHED, r"^/lti/roster$": INSTRUCTOR,
    r"^/exercises/[^/]+/practice$": FINISHED, r"^/$": LEARNER, r"^/exercises/": LEARNER, r"^/profile": LEARNER, r"^/logout$": LEARNER,
    r"^/(courses|courses/use|join|join/[^/]+)$": LEARNER, r"^/(practise-next|mastery)$": LEARNER,
}  # fmt: skip
SAMPLE_ARGS = {"exercise_id": "block-gelu", "token_id": "999", "filename": "style.css", "submission_id": "999",
               "user_id": "1", "token": "not-a-token", "sign_in_id": "999",
               "name": "solve-rates", "code": "default", "action": "move"}


def classify(rule: str) -> str | None:
    return next((cls for pattern, cls in CLASSES.items() if re.search(pattern, rule)), None)


def routes(app: Flask) -> list[tuple[str, str, str]]:
    found = []
    for rule in app.url_map.iter_rules():
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: SAMPLE_ARGS[m.group(1)], rule.rule)
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            found.append((rule.rule, url, method))
    # Logging out last keeps the sessions alive; before it, removing someone from the course (user 1, the
    # learner, is then in none), unpublishing (the exercise is then a 404 for learners), and before that giving
    # up, since it opens practice (finished).
    return sorted(found, key=lambda r: (r[0] == "/logout", r[0].endswith("/remove"), r[0].endswith("/unpublish"),
                                        r[0].endswith("/give-up")))  # fmt: skip


def test_every_route_is_classified(app: Flask) -> None:
    assert [rule for rule, _, _ in routes(app) if classify(rule) is None] == []


def request_as(client: FlaskClient, url: str, method: str, token: str | None):  # type: ignore[no-untyped-def]
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if method == "GET":
        return client.get(url, headers=headers)
    csrf = csrf_from(client.get("/login").get_data(as_text=True))
    if url.startswith("/api/"):
        return client.post(url, json={"answers": {"neg": "0.1", "pos": "0.9"}}, headers=headers)
    return client.post(url, data={"csrf_token": csrf}, headers=headers)


@pytest.fixture
def clients(app: Flask) -> dict[str, tuple[FlaskClient, str | None]]:
    result: dict[str, tuple[FlaskClient, str | None]] = {"anonymous": (app.test_client(), None)}
    for role in ("learner", "instructor"):
        email = f"{role}@example.com"
        make_user(app, email, role)
        client = app.test_client()
        login(client, email)
        with app.app_context():
            token = api_tokens.create_token(db.session.scalar(db.select(User).where(User.email == email)))
        result[role] = (client, token)
    return result


def allowed(cls: str, role: str) -> bool:
    if cls == PUBLIC:
        return True
    if role == "anonymous":
        return False
    if cls in (INSTRUCTOR, API_INSTRUCTOR, FINISHED, API_FINISHED):
        return role == "instructor"
    return True


def sent_to_login(response) -> bool:  # type: ignore[no-untyped-def]
    """Flask-Login's redirect for a page that needs a signed-in user (logging out redirects without next=)."""
    return response.status_code == 302 and "/login?next=" in response.headers.get("Location", "")


def refused(response, url: str, role: str) -> bool:  # type: ignore[no-untyped-def]
    if url.startswith("/api/"):
        return response.status_code == (401 if role == "anonymous" else 403)
    if role == "anonymous":
        return sent_to_login(response)
    return response.status_code == 403


def test_authorisation_matrix(app: Flask, clients: dict[str, tuple[FlaskClient, str | None]]) -> None:
    problems = []
    for rule, url, method in routes(app):
        cls = classify(rule) or "?"
        for role, (client, token) in clients.items():
            response = request_as(client, url, method, token if url.startswith("/api/") else None)
            response.close()  # a streamed CSV holds its request context until closed, as a server would
            if cls == PUBLIC:
                ok = response.status_code != 403  # a failed login is a 401, not a refusal
            elif cls == LTI_LAUNCHED:
                ok = response.status_code == 403
            elif allowed(cls, role):
                ok = response.status_code not in (401, 403) and not sent_to_login(response)
            else:
                ok = refused(response, url, role)
            if not ok:
                problems.append(f"{method} {url} as {role} ({cls}): {response.status_code}")
    assert problems == [], "\n".join(problems)


def test_api_ignores_the_session_cookie_for_every_route(app: Flask, clients: dict[str, tuple[FlaskClient, str | None]]) -> None:
    instructor, _ = clients["instructor"]
    for rule, url, method in routes(app):
        if classify(rule) in (API, API_INSTRUCTOR):
            assert request_as(instructor, url, method, None).status_code == 401, url
