"""Text replies compressed (zstd, brotli or gzip, as the browser offers) by Flask-Compress.

Flask-Compress skips types not in TEXT_TYPES, replies under 500 bytes, errors and redirects, and
adds `Vary: Accept-Encoding`; it compresses streamed replies (CSV downloads, static files) as they
stream, and keeps ETags and conditional requests working (a compressed ETag ends in ":br" and the
like). A byte range (206) is left as stored: its Content-Range counts the file's own bytes.

BREACH (reading a secret from the sizes of many compressed replies that hold it beside text the
attacker chose) needs a secret repeated in those replies. The pages repeat one, the CSRF token, and
it is signed with the time: its signature changes every second, and its constant part alone is
refused. API tokens and reset links appear once, in the reply that made them.

COMPRESS_RESPONSES=False leaves replies as they are (benchmarks measure both in one run).
"""

from __future__ import annotations

from flask import Flask, Response

from grader.extensions import compress

# What this app sends as text: pages, static files, the API's JSON, pictures, downloads. Not PNG or
# ZIP (compressed already). Flask-Compress's own list lacks CSV and YAML, and holds types never sent here.
TEXT_TYPES = ["text/html", "text/css", "text/javascript", "application/json", "image/svg+xml",
              "text/plain", "text/csv", "text/yaml"]  # fmt: skip


def _compress(response: Response) -> Response:
    if response.status_code == 206:
        return response
    return compress.after_request(response)


def init_app(app: Flask) -> None:
    """Compress this app's text replies, unless COMPRESS_RESPONSES is False."""
    app.config["COMPRESS_REGISTER"] = False  # registered below, behind the 206 check
    app.config.setdefault("COMPRESS_MIMETYPES", TEXT_TYPES)
    compress.init_app(app)
    if app.config.get("COMPRESS_RESPONSES", True):
        app.after_request(_compress)
