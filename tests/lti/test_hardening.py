"""What an attacker with a platform of their own found, fixed: look-alike emails, key-set fetches on demand,
unlimited refused launches, and service URLs on hosts that are not the platform's."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask

from grader.extensions import db
from grader.lti import key_sets
from grader.lti.models import GradeLink, LtiContext, Platform
from grader.models import User
from tests.lti.conftest import launch
from tests.lti.platform import INSTRUCTOR, FakePlatform, new_key
from tests.lti.test_roster import NRPS
from tests.web.conftest import build_app


@pytest.mark.parametrize("email", ["аlice@school.example",  # a Cyrillic а
                                   "ｌｅａｒｎｅｒ@school.example", "learner@ｓｃｈｏｏｌ.example",  # fullwidth
                                   "bob@\u202eelpmaxe.loohcs"])  # fmt: skip
def test_lms_emails_go_through_the_registration_checks(app: Flask, platform: FakePlatform, email: str) -> None:
    launch(app.test_client(), platform, email=email)
    with app.app_context():
        [stored] = db.session.scalars(sa.select(User.email))
    assert stored.endswith("@lti.invalid")


def test_the_key_set_is_kept_and_fetched_again_only_for_a_new_key_now_and_then(app: Flask,
                                                                               platform: FakePlatform) -> None:
    for sub in ("a", "b", "c"):
        assert launch(app.test_client(), platform, sub=sub).status_code == 303
    assert platform.jwks_fetches == 1
    for _ in range(3):  # forged key ids: one fetch for all of them
        forged = launch(app.test_client(), platform, token=lambda nonce: platform.sign(platform.claims(nonce), kid="x"))
        assert forged.status_code == 400
    assert platform.jwks_fetches <= 2
    platform.key, platform.kid = new_key(), "platform-key-2"  # the platform rotates its key
    with app.app_context():
        platform_id = db.session.scalars(sa.select(Platform.id)).one()
    app.extensions["lti_key_sets"][platform_id].fetched_at -= key_sets.REFETCH_AFTER  # some time later
    fetched = platform.jwks_fetches
    assert launch(app.test_client(), platform, sub="d").status_code == 303
    assert platform.jwks_fetches == fetched + 1


def test_refused_launches_are_limited_per_address(tmp_path: Path, platform: FakePlatform) -> None:
    app = build_app(tmp_path, RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI="memory://")
    assert app.test_cli_runner().invoke(args=platform.cli_args()).exit_code == 0
    client = app.test_client()
    codes = [client.post("/lti/launch", data={"id_token": "forged", "state": "x"}).status_code for _ in range(31)]
    assert codes[:30] == [400] * 30 and codes[30] == 429
    with app.app_context():
        db.engine.dispose()


def test_service_urls_on_other_hosts_are_ignored(app: Flask, platform: FakePlatform) -> None:
    ags = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
    launch(app.test_client(), platform, custom={"exercise": "block-layernorm"},
           **{ags: {"scope": [], "lineitem": "http://169.254.169.254/latest/meta-data"}})  # fmt: skip
    teacher = app.test_client()
    launch(teacher, platform, sub="teacher-1", roles=(INSTRUCTOR,),
           **{NRPS: {"context_memberships_url": "http://10.0.0.1:6379/memberships"}})  # fmt: skip
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(GradeLink)) == 0
    assert "/lti/roster" not in teacher.get("/teach/gradebook").get_data(as_text=True)
    with app.app_context():  # the LMS course's member list address was not kept
        assert db.session.scalars(sa.select(LtiContext.memberships_url)).all() == [None]
    roster = teacher.get("/lti/roster").get_data(as_text=True)
    assert "is not linked to an LMS course whose member list" in roster and "Bring in the learners" not in roster
