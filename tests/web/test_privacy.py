"""A learner's own data: download everything kept about them, and delete their account with all of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.mastery_models import SkillEvent, SkillState
from grader.models import ApiToken, Attempt, Extension, Progress, User, Variant
from grader.code_models import CodeDraft, Submission
from grader.services import accounts, code_drafts
from grader.wrong_parts import WrongPart
from tests.layer_norm_sources import GOOD
from tests.web.api_support import API, auth, token_for
from tests.web.conftest import PASSWORD, csrf_from, empty_database, login, make_user, seat
from tests.web.test_app import flask_cli
from tests.web.test_code import send
from tests.web.test_code_drafts import TYPED as DRAFT
from tests.web.test_due_dates import with_due
from tests.web.test_extensions import set_due, user_id
from tests.web.test_learn import expected, fmt, post_answers

OWN_TABLES = (ApiToken, Attempt, CodeDraft, Extension, Progress, Submission, Variant, WrongPart, SkillEvent,
              SkillState)


def rows_of(app: Flask, uid: int) -> dict[str, int]:
    """How many rows of each table belong to the user."""
    with app.app_context():
        return {m.__tablename__: db.session.scalar(sa.select(sa.func.count()).select_from(m).where(m.user_id == uid))
                for m in OWN_TABLES}  # fmt: skip


def some_work(app: Flask, learner: FlaskClient, instructor: FlaskClient) -> int:
    """Ada answers block-residual twice, sends code, keeps a draft of other code, has a token and an extension;
    returns her id."""
    right = fmt(expected(app, "block-residual")["h"])
    post_answers(learner, "block-residual", {"h": "[1,000; 2,000; 3,000; 4,000]"})
    post_answers(learner, "block-residual", {"h": right})
    send(learner, GOOD)
    ada = user_id(app, "ada@example.com")
    with app.app_context():  # as a hint would keep it, without the hint's evidence about her skills
        code_drafts.keep(seat(ada), "code-gelu", DRAFT)
    token_for(app)
    granted = set_due(instructor, ada, with_due(app, "2000-01-01T00:00:00Z"))
    assert granted.status_code == 303
    instructor.get(granted.headers["Location"])  # shows (and so clears) the flashed confirmation
    return ada


def close(client: FlaskClient, password: str, with_csrf: bool = True):  # type: ignore[no-untyped-def]
    page = client.get("/profile").get_data(as_text=True)
    data = {"close-password": password, **({"close-csrf_token": csrf_from(page)} if with_csrf else {})}
    return client.post("/profile/close", data=data)


def test_the_download_holds_the_learners_work_and_no_secrets(app: Flask, learner: FlaskClient,
                                                             instructor: FlaskClient) -> None:  # fmt: skip
    some_work(app, learner, instructor)
    make_user(app, "bob@example.com")
    response = learner.get("/profile/data")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"] == "attachment; filename=grader-my-data.json"
    assert response.headers["Cache-Control"] == "no-store"
    data = json.loads(response.get_data(as_text=True))
    assert data["format"] == "grader-personal-data/1"
    assert data["account"]["email"] == "ada@example.com" and data["account"]["role"] == "learner"
    typed = [(a["exercise"], a["number"], a["answers"]["h"], a["score"]) for a in data["attempts"]]
    assert typed[0] == ("block-residual", 1, "[1,000; 2,000; 3,000; 4,000]", 0.0)
    assert typed[1][:2] == ("block-residual", 2) and typed[1][3] == 1.0
    assert data["attempts"][1]["results"]["h"]["status"] == "correct"
    [progress] = [p for p in data["progress"] if p["exercise"] == "block-residual"]
    assert progress["attempts_used"] == 2 and progress["best_score"] == 1.0 and progress["solved_at"].endswith("Z")
    [code] = data["submissions"]
    assert code["exercise"] == "code-layer-norm" and code["source"] == GOOD and code["status"] == "graded"
    [draft] = data["code_drafts"]
    assert draft["exercise"] == "code-gelu" and draft["source"] == DRAFT and draft["updated_at"].endswith("Z")
    assert [t["prefix"][:3] for t in data["api_tokens"]] == ["gr_"]
    assert [e["due_at"] for e in data["extensions"]] == ["2999-06-01T10:00:00Z"]
    # The learner model's view of her, and the answers it rests on: her typed answers and her graded code.
    layernorm, residual = sorted(data["mastery"], key=lambda m: m["skill"])
    assert residual["skill"] == "residual-stream" and residual["evidence"] == 2 and residual["due_at"].endswith("Z")
    assert layernorm["skill"] == "layernorm-stats" and layernorm["evidence"] == 1
    assert [(e["exercise"], e["source"], e["part"], e["correct"]) for e in data["skill_evidence"]] == [
        ("block-residual", "attempt", "h", False), ("block-residual", "attempt", "h", True),
        ("code-layer-norm", "code", None, True)]
    with app.app_context():
        ada = db.session.scalar(sa.select(User).where(User.email == "ada@example.com"))
        secrets = [ada.password_hash, *db.session.scalars(sa.select(ApiToken.token_hash))]
        seeds = [str(s) for s in db.session.scalars(sa.select(Variant.seed).where(Variant.user_id == ada.id))]
    text = response.get_data(as_text=True)
    assert not [s for s in secrets if s in text] and "bob@example.com" not in text and "seed" not in text
    assert seeds and not [s for s in seeds if f": {s}," in text]


def test_the_download_is_for_the_signed_in_user_only(client: FlaskClient) -> None:
    response = client.get("/profile/data")
    assert response.status_code == 302 and "/login?next=" in response.headers["Location"]


def test_a_wrong_password_deletes_nothing_and_says_so_at_its_field(app: Flask, learner: FlaskClient,
                                                                  instructor: FlaskClient) -> None:  # fmt: skip
    ada = some_work(app, learner, instructor)
    before = rows_of(app, ada)
    response = close(learner, "not my password")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    field = html[html.index('name="close-password"'):]
    assert "Your current password is not right." in field[:400]
    assert rows_of(app, ada) == before and all(before.values())
    assert learner.get("/").status_code == 200  # still signed in


def test_a_missing_csrf_token_deletes_nothing(app: Flask, learner: FlaskClient) -> None:
    ada = user_id(app, "ada@example.com")
    assert close(learner, PASSWORD, with_csrf=False).status_code in (400, 422)
    with app.app_context():
        assert db.session.get(User, ada) is not None


def test_deleting_erases_the_account_and_everything_of_it_and_nothing_else(app: Flask, learner: FlaskClient,
                                                                           instructor: FlaskClient) -> None:  # fmt: skip
    ada = some_work(app, learner, instructor)
    make_user(app, "bob@example.com")
    bob = app.test_client()
    login(bob, "bob@example.com")
    post_answers(bob, "block-residual", {"h": "[1,000; 2,000; 3,000; 4,000]"})
    bob_id = user_id(app, "bob@example.com")
    bob_before = rows_of(app, bob_id)
    ada_token = token_for(app)
    with app.app_context():  # her graded code is evidence too, and goes with the rest
        assert db.session.scalar(sa.select(sa.func.count()).select_from(SkillEvent).where(
            SkillEvent.user_id == ada, SkillEvent.source == "code")) == 1  # fmt: skip
    response = close(learner, PASSWORD)
    assert response.status_code == 303 and response.headers["Location"].endswith("/login")
    assert "Your account and everything kept with it were deleted." in learner.get("/login").get_data(as_text=True)
    assert rows_of(app, ada) == dict.fromkeys(rows_of(app, ada), 0)
    assert rows_of(app, bob_id) == bob_before and bob_before["attempts"] == bob_before["wrong_parts"] == 1
    assert bob_before["skill_states"] == 1 and bob_before["skill_events"] == 1  # his mastery stays, hers is gone
    with app.app_context():
        assert db.session.get(User, ada) is None
        assert accounts.authenticate("ada@example.com", PASSWORD) is None
    assert "/login" in learner.get("/").headers["Location"]  # signed out
    assert learner.get(f"{API}/progress", headers=auth(ada_token)).status_code == 401
    gradebook = instructor.get("/teach/gradebook").get_data(as_text=True)
    assert "ada@example.com" not in gradebook and "bob@example.com" in gradebook


def test_the_address_can_register_again_after_deleting(app: Flask, learner: FlaskClient) -> None:
    assert close(learner, PASSWORD).status_code == 303
    with app.app_context():
        again = accounts.create_user("ada@example.com", PASSWORD)
        mine = sa.select(sa.func.count()).select_from(Progress).where(Progress.user_id == again.id)
        assert db.session.scalar(mine) == 0


def test_instructors_cannot_delete_themselves_on_the_web(app: Flask, instructor: FlaskClient) -> None:
    page = instructor.get("/profile").get_data(as_text=True)
    assert "Instructor accounts are closed by an operator" in page and 'name="close-password"' not in page
    response = close(instructor, PASSWORD)
    assert response.status_code == 422
    with app.app_context():
        assert accounts.user_by_email("teach@example.com") is not None


def test_the_cli_exports_and_deletes_any_account(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        assert flask_cli("users", "bootstrap", "--email", "boss@example.com", env=env).returncode == 0
        printed = flask_cli("users", "export", "--email", "boss@example.com", env=env)
        assert printed.returncode == 0, printed.stderr
        assert json.loads(printed.stdout)["account"] == {**json.loads(printed.stdout)["account"],
                                                         "email": "boss@example.com", "role": "admin"}  # fmt: skip
        unconfirmed = flask_cli("users", "delete", "--email", "boss@example.com", env=env)
        assert unconfirmed.returncode != 0
        deleted = flask_cli("users", "delete", "--email", "boss@example.com", "--yes", env=env)
        assert deleted.returncode == 0 and "deleted boss@example.com" in deleted.stdout, deleted.stderr
        again = flask_cli("users", "export", "--email", "boss@example.com", env=env)
        assert again.returncode != 0 and "no user with email boss@example.com" in again.stderr
