"""A failing visible case shows its inputs as Python that reproduces them; a hidden case shows none."""

from __future__ import annotations

import html
import re
from typing import Any

import numpy as np
from flask import Flask
from flask.testing import FlaskClient

from grader.codecheck.prepare import cases_for
from grader.services import exercises
from tests.layer_norm_sources import GOOD
from tests.web.test_code import graded_page, rows

# The sample variance: every case fails, visible and hidden alike.
SAMPLE_VARIANCE = GOOD.replace("var = ((x - mu) ** 2).mean(-1, keepdims=True)",
                               "var = ((x - mu) ** 2).sum(-1, keepdims=True) / (x.shape[-1] - 1)")
SHOWN = re.compile(r'<pre class="detail inputs" id="inputs-\d+" tabindex="0" role="region" aria-label="[^"]*">(.*?)</pre>', re.DOTALL)


def called_with(text: str) -> dict[str, Any]:
    """Run the pasted text as a learner would, with layer_norm standing in to catch its arguments."""
    caught: dict[str, Any] = {}
    exec(text, {"layer_norm": lambda **kwargs: caught.update(kwargs)})  # noqa: S102 - the page's own text
    return caught


def test_failing_visible_cases_show_inputs_that_paste_back_to_the_very_same_numbers(
        app: Flask, learner: FlaskClient) -> None:
    assert SAMPLE_VARIANCE != GOOD
    page = graded_page(app, learner, SAMPLE_VARIANCE)
    [row] = rows(app)
    assert row.result["status"] == "failed" and all(c["status"] == "failed" for c in row.result["cases"])
    with app.app_context():
        spec = exercises.code_spec_of(exercises.version("code-layer-norm", row.version))
    cases = cases_for(spec, row.seed)
    visible = [case for case in cases if case.visible]
    assert visible and len(visible) < len(cases)
    shown = [html.unescape(text) for text in SHOWN.findall(page)]
    assert len(shown) == len(visible)  # one for each visible case, none for a hidden one
    for case, text in zip(visible, shown, strict=True):
        assert text.startswith("import numpy as np\n") and text.endswith("layer_norm(x=x, gamma=gamma, beta=beta)")
        caught = called_with(text)
        assert caught.keys() == case.kwargs.keys()
        for name, value in case.kwargs.items():  # bit for bit: repr() keeps every float exactly
            assert caught[name].dtype == value.dtype and np.array_equal(caught[name], value)
    # Short inputs are open; the 768-wide case is a click away.
    assert page.count('<details class="inputs" open>') == sum(len(t) <= 3000 for t in shown) >= 1
    assert "gpt2-width-768" in [c.name for c in visible] and any(len(t) > 3000 for t in shown)


def test_a_passing_submission_shows_no_inputs(app: Flask, learner: FlaskClient) -> None:
    page = graded_page(app, learner, GOOD)
    assert "All cases passed" in page and not SHOWN.search(page)
