"""Practise next on the pages: the button on each lesson and exercise, the reason shown where it leads, and the
course's instructors switching it off or pinning the order on the settings page."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.web.conftest import csrf_from

SETTINGS = "/teach/course"


def test_each_lesson_and_exercise_offers_it_and_it_leads_to_the_first_exercise_with_the_reason(
        learner: FlaskClient) -> None:  # fmt: skip
    dashboard = learner.get("/").get_data(as_text=True)
    assert 'href="/practise-next?lesson=gpt2-block"' in dashboard and 'href="/practise-next?lesson=microgpt"' in dashboard
    assert "/practise-next?lesson=code" not in dashboard  # code exercises have no practice numbers
    exercise = learner.get("/exercises/block-gelu").get_data(as_text=True)
    assert 'href="/practise-next?lesson=gpt2-block"' in exercise
    sent = learner.get("/practise-next?lesson=gpt2-block")
    assert sent.status_code == 303 and sent.headers["Location"].endswith("/exercises/block-residual")
    assert "Start with the lesson&#39;s first exercise." in learner.get(sent.headers["Location"]).get_data(as_text=True)


def test_instructors_switch_it_off_for_a_lesson_or_pin_the_order_on_the_settings_page(
        app: Flask, learner: FlaskClient, instructor: FlaskClient) -> None:  # fmt: skip
    page = instructor.get(SETTINGS).get_data(as_text=True)
    assert 'name="place-"' in page and 'name="place-gpt2-block"' in page
    saved = instructor.post(f"{SETTINGS}/practise-next", data={"csrf_token": csrf_from(page),
                                                               "place-gpt2-block": "off", "place-": "pinned"})
    assert saved.status_code == 303
    page = instructor.get(SETTINGS).get_data(as_text=True)
    assert '<option value="off" selected>' in page and '<option value="pinned" selected>' in page
    dashboard = learner.get("/").get_data(as_text=True)
    assert "/practise-next?lesson=gpt2-block" not in dashboard and "/practise-next?lesson=microgpt" in dashboard
    assert learner.get("/practise-next?lesson=gpt2-block").status_code == 409
    pinned = learner.get("/practise-next?lesson=microgpt")
    assert pinned.status_code == 303
    assert "Next in your course&#39;s order." in learner.get(pinned.headers["Location"]).get_data(as_text=True)
    refused = instructor.post(f"{SETTINGS}/practise-next", data={"csrf_token": csrf_from(page), "place-": "maybe"})
    assert refused.status_code == 400
    assert learner.post(f"{SETTINGS}/practise-next", data={"place-": "off"}).status_code in (400, 403)
