"""grader_client.py in a real Jupyter kernel (ipykernel, run by nbclient) against a live gunicorn: a notebook submits
a layer_norm with a helper and shows a passed verdict; another submits a wrong one and shows the named mistake
with the failing case's inputs as Python to paste. The verdicts' HTML is then drawn by Chromium at two widths."""

from __future__ import annotations

import html
import os
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from tests.client.conftest import Service
from tests.shots import snap

pytestmark = pytest.mark.database

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
SETUP = "import numpy as np\nimport grader_client as g\nconnection = g.connect()\nconnection"
HELPERS = '''EPS = 1e-5


def moments(x):
    mu = x.mean(-1, keepdims=True)
    return mu, ((x - mu) ** 2).mean(-1, keepdims=True)
'''
GOOD = '''def layer_norm(x, gamma, beta, eps=EPS):
    mu, var = moments(x)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
'''
NO_EPS = GOOD.replace("np.sqrt(var + eps)", "np.sqrt(var)")


def executed(service: Service, token: str, *cells: str, name: str) -> Any:
    """The notebook of these code cells, run top to bottom in a fresh python3 kernel beside grader_client.py."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(text) for text in cells])
    runner = NotebookClient(notebook, kernel_name="python3", timeout=300, allow_errors=True,
                            resources={"metadata": {"path": str(service.directory)}})  # fmt: skip
    runner.execute(env={**os.environ, "GRADER_URL": service.base, "GRADER_TOKEN": token})
    nbformat.write(notebook, service.directory / f"{name}.ipynb")
    return notebook


def html_of(cell: Any) -> str:
    [shown] = [out["data"]["text/html"] for out in cell.outputs if "text/html" in out.get("data", {})]
    return str(shown)


def text_of(cell: Any) -> str:
    return "".join(out.get("text", "") + out.get("data", {}).get("text/plain", "") for out in cell.outputs)


def test_a_notebook_submits_layer_norm_with_its_helper_and_shows_it_passed(service: Service) -> None:
    token = service.learner("nb-pass@example.com")
    notebook = executed(service, token, SETUP, HELPERS, GOOD, 'g.submit("code-layer-norm", layer_norm)',
                        name="passed")  # fmt: skip
    connected, verdict = notebook.cells[0], notebook.cells[3]
    assert "<grader connection to " + service.base in text_of(connected)
    shown = html_of(verdict)
    assert "code-layer-norm: passed" in shown and "score 100%" in shown and ">failed<" not in shown
    assert token not in nbformat.writes(notebook)  # never printed, in any output
    assert service.stored("nb-pass@example.com") == (0, 1)
    _draw(shown, "client-passed")


def test_a_wrong_layer_norm_shows_the_named_mistake_and_inputs_to_paste(service: Service) -> None:
    token = service.learner("nb-wrong@example.com")
    notebook = executed(service, token, SETUP, HELPERS, NO_EPS, 'g.submit("code-layer-norm", layer_norm)',
                        'g.submit("code-layer-norm", lambda x: x)', 'g.connect(token="gr_" + "x" * 43)',
                        name="failed")  # fmt: skip
    shown = html_of(notebook.cells[3])
    assert "code-layer-norm: failed" in shown and "Likely mistake: " in shown
    assert "to paste into a cell:" in shown
    pasted = html.unescape(shown[shown.index("to paste into a cell:"):])
    assert "import numpy as np" in pasted and "layer_norm(x=x, gamma=gamma, beta=beta" in pasted
    refused = notebook.cells[4]
    assert text_of(refused).strip() == ("grader: A lambda cannot be sent: define the function with def in a cell (or "
                                        "a file), or pass its source as a string.")
    assert not any(out.get("output_type") == "error" for out in refused.outputs)  # no traceback
    wrong_token = notebook.cells[5]
    assert text_of(wrong_token).strip().startswith("grader: The token was refused: This API token is not valid.")
    assert not any(out.get("output_type") == "error" for out in wrong_token.outputs)
    assert service.stored("nb-wrong@example.com") == (0, 1)
    _draw(shown, "client-failed")


def _draw(shown: str, name: str) -> None:
    """The verdict as a notebook shows it, drawn by Chromium at a desktop and a phone width; it fits both.

    In a thread of its own: the kernel client leaves an asyncio loop on this one, where Playwright's sync API
    refuses to run."""
    if not CHROMIUM.exists():
        return
    failed: list[BaseException] = []

    def draw() -> None:
        try:
            _draw_here(shown, name)
        except BaseException as error:  # noqa: BLE001 - handed back to the test's thread
            failed.append(error)

    worker = threading.Thread(target=draw)
    worker.start()
    worker.join()
    if failed:
        raise failed[0]


def _draw_here(shown: str, name: str) -> None:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page_html = f"<!doctype html><html><head><meta charset='utf-8'><meta name='viewport' " \
                f"content='width=device-width'></head><body style='margin:16px'>{shown}</body></html>"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                             args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            for width in (1280, 390):
                page = browser.new_page(viewport={"width": width, "height": 800})
                page.set_content(page_html)
                box = page.locator(".grader-result").bounding_box()
                assert box is not None and box["x"] + box["width"] <= width, (name, width)  # no sideways scroll
                snap(page, ARTIFACTS / f"{name}-{width}.png", full_page=True)
                page.close()
        finally:
            browser.close()
