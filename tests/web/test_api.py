"""The JSON API: tokens, the caller's own variant, and the generated OpenAPI document."""

from __future__ import annotations

import re

from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.answers.syntax import syntax_hint
from grader.extensions import db
from grader.models import ApiToken, User, utcnow
from grader.services import accounts, api_tokens, attempts, exercises, progress
from tests.web.api_support import API, EXERCISE, ATTEMPTS, ADA, MISTAKE, auth, answers_of, typed, post, numbers_in, attempt_rows, assert_error
from tests.web.conftest import seat


def test_missing_token_is_401_with_challenge(client: FlaskClient) -> None:
    response = client.get(f"{API}/exercises")
    assert_error(response, 401, "unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize("header", ["Token gr_abc", "Bearer", "Bearer gr_nope", "Basic YWRhOnB3", "gr_abc"])
def test_malformed_or_unknown_token_is_401(client: FlaskClient, token: str, header: str) -> None:
    response = client.get(f"{API}/exercises", headers={"Authorization": header})
    assert_error(response, 401, "unauthorized")
    assert "Bearer" in response.headers["WWW-Authenticate"]


def test_revoked_token_is_401(app: Flask, client: FlaskClient, token: str) -> None:
    assert client.get(f"{API}/progress", headers=auth(token)).status_code == 200
    with app.app_context():
        user = accounts.user_by_email(ADA)
        assert user is not None and api_tokens.revoke_token(user, api_tokens.active_tokens(user)[0].id)
    response = client.get(f"{API}/progress", headers=auth(token))
    assert_error(response, 401, "unauthorized")
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


def test_session_cookie_alone_does_not_authenticate(app: Flask, learner: FlaskClient) -> None:
    assert learner.get("/").status_code == 200  # the cookie does sign in to the web pages
    assert_error(learner.get(f"{API}/exercises"), 401, "unauthorized")
    assert_error(learner.post(ATTEMPTS, json={"answers": typed(answers_of(app))}), 401, "unauthorized")
    assert attempt_rows(app) == []


def test_last_used_at_is_written_at_most_once_a_minute(app: Flask, client: FlaskClient, token: str) -> None:
    def stamp(value: Any = ...) -> Any:
        with app.app_context():
            row = db.session.scalars(sa.select(ApiToken)).one()
            if value is not ...:
                row.last_used_at = value
                db.session.commit()
            return row.last_used_at

    assert stamp() is None
    client.get(f"{API}/progress", headers=auth(token))
    assert stamp() is not None
    recent = stamp(utcnow() - timedelta(seconds=30))
    client.get(f"{API}/progress", headers=auth(token))
    assert stamp() == recent
    old = stamp(utcnow() - timedelta(seconds=61))
    client.get(f"{API}/progress", headers=auth(token))
    assert stamp() > old + timedelta(seconds=60)


# --- exercises ---


def test_exercise_list(app: Flask, client: FlaskClient, token: str) -> None:
    response = client.get(f"{API}/exercises", headers=auth(token))
    assert response.status_code == 200
    items = {item["id"]: item for item in response.get_json()}
    with app.app_context():
        assert set(items) == {e.id for e in exercises.all_exercises()}
    layernorm = items[EXERCISE]
    assert (layernorm["lesson"], layernorm["kind"]) == ("gpt2-block", "numeric")
    assert layernorm["parts"] == [{"id": "mu", "type": "scalar", "label": "μ"},
                                  {"id": "sigma", "type": "scalar", "label": "σ"},
                                  {"id": "u", "type": "vector", "label": "u′₅"}]  # fmt: skip


def test_the_list_and_progress_follow_the_dashboards_lesson_order(app: Flask, client: FlaskClient,
                                                                  token: str) -> None:  # fmt: skip
    listed = [item["id"] for item in client.get(f"{API}/exercises", headers=auth(token)).get_json()]
    with app.app_context():
        ada = db.session.scalar(sa.select(User.id).where(User.email == ADA))
        assert ada is not None
        shown = [e.id for lesson in progress.dashboard(seat(ada), utcnow()) for e in lesson.exercises]
        for exercise, answers in (("ffn-share", {"share": "0.500"}), ("block-gelu", {"neg": "0.100", "pos": "0.200"})):
            assert attempts.submit(seat(ada), exercise, answers).outcome == "graded"  # in the reverse of the lesson order
    assert listed == shown and listed[0].startswith("block-") and listed[-1].startswith("code-")
    mine = [item["exercise"] for item in client.get(f"{API}/progress", headers=auth(token)).get_json()]
    assert mine == ["block-gelu", "ffn-share"]


def test_own_variant_without_answers(app: Flask, client: FlaskClient, token: str) -> None:
    response = client.get(f"{API}/exercises/{EXERCISE}", headers=auth(token))
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"id", "title", "lesson", "prompt", "params", "parts", "due", "late_credit",
                         "version"}  # no seed, no answers  # fmt: skip
    with app.app_context():
        user = accounts.user_by_email(ADA)
        assert user is not None
        variant = attempts.learner_variant(seat(user.id), EXERCISE)[1]
    assert body["params"] == {name: variant.params[name].tolist() for name in ("x", "a")}
    assert "LayerNorm" in body["prompt"] and body["prompt"] == variant.prompt
    hints = [(p.spec.id, syntax_hint(p.spec.type, p.target.exact)) for p in variant.parts]
    assert [(p["id"], p["hint"]) for p in body["parts"]] == hints
    # Whole numbers, not substrings; and only answers with more digits than the page shows: a mean
    # that happens to be -0.3 is no leak when -0.3 is also one of the inputs.
    shown = numbers_in({**body, "parts": [{**p, "hint": ""} for p in body["parts"]]})  # hints are fixed text
    answers = [n for v in answers_of(app).values() for n in (v if isinstance(v, list) else [v])]
    precise = [n for n in answers if round(n, 3) != n]
    assert len(precise) >= 4 and not [n for n in precise if n in shown]


def test_params_marked_hidden_are_left_out(app: Flask, client: FlaskClient, token: str) -> None:
    with app.app_context():
        spec = exercises.spec_of(exercises.current_version("block-gelu"))  # type: ignore[arg-type]
    hidden = {name for name, p in spec.params.items() if not p.show}
    assert hidden  # otherwise this test checks nothing
    body = client.get(f"{API}/exercises/block-gelu", headers=auth(token)).get_json()
    assert set(body["params"]) == set(spec.params) - hidden


def test_unknown_exercise_is_404_json(client: FlaskClient, token: str) -> None:
    assert_error(client.get(f"{API}/exercises/no-such", headers=auth(token)), 404, "not_found")
    response = client.post(f"{API}/exercises/no-such/attempts", headers=auth(token), json={"answers": {}})
    assert_error(response, 404, "not_found")


# --- attempts ---


def resolve(schema: dict[str, Any], doc: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    return doc["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else schema


def conforms(value: Any, schema: dict[str, Any], doc: dict[str, Any]) -> bool:
    """A small JSON Schema check, enough for the shapes the API documents."""
    schema = resolve(schema, doc)
    python: dict[str, type | tuple[type, ...]] = {
        "string": str, "integer": int, "number": (int, float), "boolean": bool, "null": type(None),
        "array": list, "object": dict}  # fmt: skip
    wanted = schema.get("type")
    allowed = [wanted] if isinstance(wanted, str) else wanted or []
    if allowed and not any(isinstance(value, python[t]) for t in allowed):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if "anyOf" in schema and not any(conforms(value, s, doc) for s in schema["anyOf"]):
        return False
    if isinstance(value, list):
        return all(conforms(v, schema.get("items", {}), doc) for v in value)
    if isinstance(value, dict) and wanted == "object":
        props, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        if not set(schema.get("required", [])) <= set(value) or (extra is False and set(value) - set(props)):
            return False
        other = extra if isinstance(extra, dict) else {}
        return all(conforms(v, props.get(k, other), doc) for k, v in value.items())
    return True


def test_openapi_document_describes_the_api(client: FlaskClient) -> None:
    response = client.get(f"{API}/openapi.json")  # no token needed
    assert response.status_code == 200
    doc = response.get_json()
    assert doc["openapi"] == "3.1.0"
    scheme = doc["components"]["securitySchemes"]["bearerToken"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    submit = doc["paths"][f"{API}/exercises/{{exercise_id}}/attempts"]["post"]
    body = submit["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/AttemptIn"}
    assert {"201", "200", "400", "401", "404", "409", "413", "422", "429"} <= set(submit["responses"])
    # The course an attempt counts in: ?course=, as for every call; ?lang= for the verdict's messages.
    [parameter, course, lang] = submit["parameters"]
    assert course["name"] == "course" and course["in"] == "query" and course["required"] is False
    assert lang["name"] == "lang" and lang["in"] == "query" and lang["required"] is False
    assert parameter["name"] == "exercise_id" and parameter["in"] == "path" and parameter["required"] is True
    # Each exercise that takes typed answers has its own path, with its own part ids; the template is for
    # any other id (a code exercise's, an unknown one).
    assert parameter["schema"]["type"] == "string" and EXERCISE in parameter["schema"]["not"]["enum"]
    own = doc["paths"][f"{API}/exercises/{EXERCISE}/attempts"]["post"]
    answers = own["requestBody"]["content"]["application/json"]["schema"]["properties"]["answers"]
    assert set(answers["properties"]) == {"mu", "sigma", "u"} and answers["additionalProperties"] is False
    assert answers["minProperties"] == 1 and [p["name"] for p in own["parameters"]] == ["course", "lang"]
    gradebook = doc["paths"][f"{API}/gradebook.csv"]["get"]
    assert [p["name"] for p in gradebook["parameters"]] == ["course", "lesson", "exercise", "learner"]
    assert "text/csv" in gradebook["responses"]["200"]["content"]
    assert "security" not in doc["paths"][f"{API}/openapi.json"]["get"]


def test_openapi_covers_every_api_route(app: Flask, client: FlaskClient) -> None:
    app.add_url_rule(f"{API}/extra/<int:n>", "extra", lambda n: "", methods=["GET", "PUT"])
    doc = client.get(f"{API}/openapi.json").get_json()
    rules = [r for r in app.url_map.iter_rules() if r.rule.startswith(API + "/")]
    assert len(rules) >= 7
    for rule in rules:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        methods = {m.lower() for m in rule.methods or ()} - {"head", "options"}
        assert methods <= set(doc["paths"][path]), rule.rule
        documented = not any(op.get("x-undocumented") for op in doc["paths"][path].values())
        assert documented == rule.endpoint.startswith("api."), rule.rule
    assert doc["paths"][f"{API}/extra/{{n}}"]["put"]["parameters"][0]["schema"] == {"type": "integer"}


def test_every_secured_operation_refuses_a_missing_token(client: FlaskClient) -> None:
    doc = client.get(f"{API}/openapi.json").get_json()
    secured = [(path, method) for path, item in doc["paths"].items()
               for method, op in item.items() if op.get("security")]  # fmt: skip
    numeric = sum(1 for path in doc["paths"] if path.endswith("/attempts") and "{" not in path)
    # 19 operations (/me, practise next, mastery and the class's among them), and per exercise with typed
    # answers: attempts, and practice (GET, POST)
    assert numeric >= 10 and len(secured) == 19 + 3 * numeric
    for path, method in secured:
        url = path.replace("{exercise_id}", EXERCISE).replace("{submission_id}", "1")
        response = client.open(url, method=method.upper(), json={})
        assert response.status_code == 401, (path, method)


def test_responses_match_their_documented_schemas(app: Flask, client: FlaskClient, token: str) -> None:
    doc = client.get(f"{API}/openapi.json").get_json()

    def check(path: str, method: str, response: Any) -> None:
        own = doc["paths"].get(path, {}).get(method)  # the exercise's own operation, where it has one
        operation = own or doc["paths"][path.replace(EXERCISE, "{exercise_id}")][method]
        reply = operation["responses"][str(response.status_code)]
        schema = reply["content"]["application/json"]["schema"]
        assert conforms(response.get_json(), schema, doc), (path, response.get_json())

    check(f"{API}/exercises", "get", client.get(f"{API}/exercises", headers=auth(token)))
    detail = f"{API}/exercises/{EXERCISE}"
    check(detail, "get", client.get(detail, headers=auth(token)))
    for answers in (typed(answers_of(app, mistake=MISTAKE)), {"mu": "?"}, typed(answers_of(app))):
        check(ATTEMPTS, "post", post(client, token, answers))
    check(f"{API}/progress", "get", client.get(f"{API}/progress", headers=auth(token)))
    check(f"{API}/progress", "get", client.get(f"{API}/progress"))  # the 401 error body
    practice = f"{API}/exercises/{EXERCISE}/practice"  # the own variant is solved by now
    numbers = client.get(practice, headers=auth(token))
    check(practice, "get", numbers)
    for answers in ({"mu": "0.000", "sigma": "1.000", "u": "[0.000; 0.000; 0.000; 0.000]"}, {"mu": "?"}):
        check(practice, "post", client.post(practice, json={"numbers": numbers.get_json()["numbers"], "answers": answers},
                                            headers=auth(token)))  # fmt: skip
    check(practice, "post", client.post(practice, json={"numbers": "forged", "answers": {}}, headers=auth(token)))
    assert not conforms({"error": "x"}, {"$ref": "#/components/schemas/ErrorBody"}, doc)  # the check can fail
