"""Screenshots that tests keep as artifacts for people to look at.

A screenshot is evidence for a reader, not an assertion: what a test checks it checks on the page
itself. Chromium on a loaded box now and then answers a capture with "Unable to capture screenshot"
while the page is fine, so a capture is tried a few times before the test is failed for it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from playwright.sync_api import Error

CAPTURE_TRIES = 4
PAUSE_SECONDS = 0.5


class Capturable(Protocol):
    """A page or a locator: both take a screenshot the same way."""

    def screenshot(self, *, path: str, full_page: bool = ...) -> bytes: ...


def snap(target: Capturable, path: Path, full_page: bool = False) -> None:
    """Save a screenshot of a page or locator to path, retrying Chromium's passing capture errors."""
    options = {"full_page": True} if full_page else {}  # a locator's screenshot takes no full_page
    for attempt in range(1, CAPTURE_TRIES + 1):
        try:
            target.screenshot(path=str(path), **options)
            return
        except Error as error:
            if "Unable to capture screenshot" not in str(error) or attempt == CAPTURE_TRIES:
                raise
            time.sleep(PAUSE_SECONDS * attempt)
