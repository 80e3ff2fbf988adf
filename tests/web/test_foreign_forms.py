"""Forms another site makes a learner's browser send: refused without touching the learner's cookie."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.web.api_support import API, auth, token_for
from tests.web.conftest import PASSWORD, csrf_from

CROSS_SITE = {"Sec-Fetch-Site": "cross-site"}
PLANTED = {"part-h": "[9.999; 9.999; 9.999; 9.999]"}


@pytest.mark.parametrize("path", ["/exercises/block-residual", "/login", "/logout", "/language"])
@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_another_sites_form_is_refused_and_sets_no_cookie(app: Flask, path: str, site: str) -> None:
    # A browser leaves the SameSite=Lax cookie out of another site's POST: the server sees no session.
    answer = app.test_client().post(path, data={"email": "ada@example.com", **PLANTED},
                                    headers={"Sec-Fetch-Site": site})  # fmt: skip
    assert answer.status_code == 403
    assert "This form came from another site, so nothing was done." in answer.get_data(as_text=True)
    assert "Set-Cookie" not in answer.headers  # a new cookie would replace, and so sign out, the learner's


def test_the_learner_stays_signed_in_and_no_answers_wait_for_them(app: Flask, learner: FlaskClient) -> None:
    assert learner.post("/exercises/block-residual", data=PLANTED, headers=CROSS_SITE).status_code == 403
    assert learner.post("/logout", headers=CROSS_SITE).status_code == 403
    page = learner.get("/exercises/block-residual")
    assert page.status_code == 200 and "9.999" not in page.get_data(as_text=True)


def test_forms_of_this_site_and_browsers_without_fetch_metadata_work_as_before(app: Flask, client: FlaskClient) -> None:
    from tests.web.conftest import make_user

    make_user(app, "ada@example.com")
    for headers in ({"Sec-Fetch-Site": "same-origin"}, {}):
        fresh = app.test_client()
        token = csrf_from(fresh.get("/login").get_data(as_text=True))
        signed_in = fresh.post("/login", data={"email": "ada@example.com", "password": PASSWORD, "csrf_token": token},
                               headers=headers)  # fmt: skip
        assert signed_in.status_code == 302 and "Set-Cookie" in signed_in.headers


def test_the_api_takes_tokens_from_anywhere(app: Flask, client: FlaskClient) -> None:
    answer = client.post(f"{API}/exercises/block-residual/attempts", json={"answers": {"h": "[1.000; 2.000; 3.000; 4.000]"}},
                         headers={**auth(token_for(app)), **CROSS_SITE})  # fmt: skip
    assert answer.status_code == 201
