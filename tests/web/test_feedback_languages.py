"""Feedback in the reader's language: typed answers' verdicts and named mistakes, and code results,
including ones stored before their sentences were kept."""

from __future__ import annotations

import re
from html import unescape

import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from grader.codecheck.compare import HIDDEN_MESSAGES
from grader.codecheck.tasks import get_task
from grader.extensions import db
from grader.code_models import Submission
from grader.sandbox import reasons
from tests.layer_norm_sources import GOOD, NO_EPS
from tests.web.test_code import rows, send
from tests.web.test_i18n import TRANSLATED, choose, tr, translations
from tests.web.test_learn import expected, fmt, post_answers


def test_format_feedback_is_shown_in_the_pages_language(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "ru", "/")
    response = post_answers(learner, "block-layernorm", {"mu": "", "sigma": "1", "u": "[1; 2; 3]"})
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert escape(tr("ru", "Enter an answer.")) in html
    counted = translations("ru").ungettext("expected %(num)d number, got %(got)d",
                                           "expected %(num)d numbers, got %(got)d", 4)  # fmt: skip
    assert counted != "expected %(num)d numbers, got %(got)d" and escape(counted % {"num": 4, "got": 3}) in html
    assert "expected 4 numbers" not in html


def test_a_stored_verdict_and_its_named_mistake_are_shown_translated(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-gelu")
    response = post_answers(learner, "block-gelu", {"neg": "0.000", "pos": fmt(right["pos"])})
    choose(learner, "pt", "/")
    html = learner.get(response.headers["Location"]).get_data(as_text=True)
    frame = tr("pt", "Not quite: this is the answer you get with %(mistake)s.")
    assert escape(frame % {"mistake": tr("pt", "ReLU in place of GELU")}) in html
    hint = "GELU is not max(0, z): negative inputs give small negative outputs, and positive ones are slightly " \
           "damped. Use ½z(1 + tanh(0.798(z + 0.0447z³)))."
    assert escape(tr("pt", hint)) in html and escape(tr("pt", "Correct.")) in html
    assert "ReLU in place of GELU" not in html


def test_code_feedback_is_shown_in_the_pages_language(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "ru", "/")
    page = learner.get(send(learner, NO_EPS).headers["Location"]).get_data(as_text=True)
    [row] = rows(app)
    result = row.result or {}
    total, passed = len(result["cases"]), sum(case["status"] == "passed" for case in result["cases"])
    summary = translations("ru").ungettext("%(passed)d of %(num)d case passed.", "%(passed)d of %(num)d cases passed.",
                                           total) % {"passed": passed, "num": total}  # fmt: skip
    assert escape(summary) in page and result["message"] not in page
    assert escape(tr("ru", str(get_task("layer-norm").mutants["no-eps"].title))) in page
    assert escape(tr("ru", "Passed.")) in page or passed == 0



def test_a_syntax_error_is_led_in_the_pages_language_with_pythons_report_kept_whole(
        app: Flask, learner: FlaskClient) -> None:
    choose(learner, "pt", "/")
    page = learner.get(send(learner, "def layer_norm(x, gamma, beta, eps):\n    return (x +\n").headers["Location"])
    html = page.get_data(as_text=True)
    assert escape(tr("pt", "Your code has a syntax error. This try was not counted.")) in html
    report = re.search(r'</p>\s*<pre class="detail">([^<]*)</pre>', html)
    assert report is not None, "Python's report belongs in its own preformatted block"
    assert report.group(1).startswith("SyntaxError at line 2") and "\n" in report.group(1)

def test_code_feedback_stored_before_translation_is_still_shown(app: Flask, learner: FlaskClient) -> None:
    send(learner, GOOD)
    [row] = rows(app)
    with app.app_context():
        db.session.execute(sa.update(Submission).values(feedback=None))
        db.session.commit()
    page = learner.get(f"/exercises/code-layer-norm?submission={row.id}").get_data(as_text=True)
    assert escape((row.result or {})["message"]) in page


def test_hidden_case_messages_stay_free_of_numbers_in_every_language() -> None:
    for locale in TRANSLATED:
        for text in HIDDEN_MESSAGES.values():
            assert not re.search(r"[0-9]", tr(locale, text.template)), (locale, text.template)


def test_a_signature_that_needs_defaults_says_so_under_the_pages_language_lead(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "ru", "/")
    source = GOOD.replace("def layer_norm(x, gamma, beta, eps=1e-5):", "def layer_norm(x, gamma, beta, eps=1e-5, *, scale):")
    html = learner.get(send(learner, source).headers["Location"]).get_data(as_text=True)
    assert escape(tr("ru", "Your function's parameters are not the ones asked for.")) in html
    report = re.search(r'</p>\s*<pre class="detail">([^<]*)</pre>', html)
    found = {"expected": "layer_norm(x, gamma, beta, eps)", "found": "layer_norm(x, gamma, beta, eps=1e-05, scale)"}
    assert report is not None and unescape(report.group(1)) == tr("ru", reasons.EXTRA_WITHOUT_DEFAULTS) % found


def test_the_tolerance_in_a_verdict_takes_the_pages_decimal_mark(app: Flask, learner: FlaskClient) -> None:
    right = expected(app, "block-residual")
    response = post_answers(learner, "block-residual", {"h": fmt([v + 1 for v in right["h"]])})  # type: ignore[attr-defined]
    assert "±0.0005" in learner.get(response.headers["Location"]).get_data(as_text=True)
    choose(learner, "pt", "/")
    html = learner.get(response.headers["Location"]).get_data(as_text=True)
    assert "±0,0005" in html and "±0.0005" not in html


def test_the_sandboxs_reason_for_an_unusable_value_is_in_the_pages_language(app: Flask, learner: FlaskClient) -> None:
    choose(learner, "pt", "/")
    source = GOOD.replace("return ", "return 'text' or ", 1)  # returns a str
    html = unescape(learner.get(send(learner, source).headers["Location"]).get_data(as_text=True))
    assert tr("pt", reasons.WRONG_TYPE) % {"type": "str"} in html
    assert reasons.WRONG_TYPE % {"type": "str"} not in html
