"""Text replies compressed (zstd, brotli or gzip, as the browser offers) by Flask-Compress.

Flask-Compress skips what is not text (PNG, ZIP), replies under 500 bytes, errors and redirects, and
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


def _compress(response: Response) -> Response:
    if response.status_code == 206:
        return response
    return compress.after_request(response)


def init_app(app: Flask) -> None:
    """Compress this app's text replies, unless COMPRESS_RESPONSES is False."""
    app.config["COMPRESS_REGISTER"] = False  # registered below, behind the 206 check
    compress.init_app(app)
    if app.config.get("COMPRESS_RESPONSES", True):
        app.after_request(_compress)
