"""Static files under content-hashed names, kept by browsers for a year; plain names for a few minutes.

`url_for('static', filename='style.css')` gives /static/style.3f2a9c1b2e.css, the ten hex digits
being the start of the file's SHA-256. That URL is served `public, max-age=31536000, immutable`:
a browser asks for it once, and a changed file has a new name, so the change reaches it at once.
The plain name (/static/style.css) still works, for anything outside the templates, kept 5 minutes.
A name whose digits are not the file's current ones (a page from before a deploy) gets today's
file, kept 5 minutes too, rather than a 404 that would leave that page without its styles.

The digests are computed once per app from the files on disk; in debug mode each URL looks at the
file again (its size and modification time), so an edited file gets its new name at the next page.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, Response, current_app, send_from_directory

DIGEST_LENGTH = 10
LONG_MAX_AGE = 365 * 24 * 3600  # a hashed name's content never changes
SHORT_MAX_AGE = 300  # a plain name's may, with the next deploy
# "codemirror.0123456789.js" -> "codemirror", "0123456789", ".js"
_HASHED = re.compile(rf"^(?P<stem>.+)\.(?P<digest>[0-9a-f]{{{DIGEST_LENGTH}}})(?P<suffix>\.[A-Za-z0-9]+)$")


@dataclass(frozen=True)
class _Seen:
    """A file's digest, and the size and time it was computed at."""

    digest: str
    size: int
    mtime_ns: int


class StaticNames:
    """The hashed name of each file under a static folder."""

    def __init__(self, folder: Path, follow_changes: bool = False) -> None:
        self.folder = folder.resolve()
        self.follow_changes = follow_changes
        self._seen: dict[str, _Seen] = {}
        for path in sorted(self.folder.rglob("*")):
            if path.is_file():
                self._seen[path.relative_to(self.folder).as_posix()] = _digest(path)

    def digest(self, filename: str) -> str | None:
        """The digest of `filename` (relative, with /), or None when there is no such file."""
        seen = self._seen.get(filename)
        if seen is not None and not self.follow_changes:
            return seen.digest
        path = (self.folder / filename).resolve()
        if not path.is_relative_to(self.folder) or not path.is_file():
            return None
        stat = path.stat()
        if seen is None or (seen.size, seen.mtime_ns) != (stat.st_size, stat.st_mtime_ns):
            seen = self._seen[filename] = _digest(path)
        return seen.digest

    def hashed(self, filename: str) -> str:
        """`filename` with its digest before the suffix; a name with no file or no suffix stays as it is."""
        stem, dot, suffix = filename.rpartition(".")
        digest = self.digest(filename)
        if digest is None or not dot or "/" in suffix:
            return filename
        return f"{stem}.{digest}.{suffix}"

    def resolve(self, requested: str) -> tuple[str, bool]:
        """The file a requested name stands for, and whether the name carries that file's current digest."""
        match = _HASHED.match(requested)
        if match is None:
            return requested, False
        plain = match["stem"] + match["suffix"]
        digest = self.digest(plain)
        if digest is None:  # no such plain file: the requested name is a file's own name, or nothing
            return requested, False
        return plain, digest == match["digest"]


def _digest(path: Path) -> _Seen:
    stat = path.stat()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:DIGEST_LENGTH]
    return _Seen(digest, stat.st_size, stat.st_mtime_ns)


def names() -> StaticNames:
    """The current app's static names."""
    found: StaticNames = current_app.extensions["static_names"]
    return found


def _hash_static_urls(endpoint: str, values: dict[str, Any]) -> None:
    if endpoint == "static" and isinstance(values.get("filename"), str):
        values["filename"] = names().hashed(values["filename"])


def _serve(filename: str) -> Response:
    """The static view: a current hashed name for a year, any other name for a few minutes."""
    real, current = names().resolve(filename)
    folder = current_app.static_folder
    assert folder is not None
    response = send_from_directory(folder, real, max_age=LONG_MAX_AGE if current else SHORT_MAX_AGE)
    response.cache_control.public = True
    if current:
        response.cache_control.immutable = True
    return response


def init_app(app: Flask) -> None:
    """Hash the static URLs `url_for` builds, and serve them (STATIC_HASHED_NAMES=False: Flask's own way)."""
    if not app.config.get("STATIC_HASHED_NAMES", True) or app.static_folder is None:
        return
    app.extensions["static_names"] = StaticNames(Path(app.static_folder), follow_changes=app.debug)
    app.url_defaults(_hash_static_urls)
    app.view_functions["static"] = _serve
