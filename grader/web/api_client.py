"""The one-file client for notebooks and terminals, on the API blueprint: the file itself, who a token is, and the
refusal of a client too old for this service.

The client is grader/client/grader_client.py, plain text to this service (nothing here imports it): served with
this site's address and the source size limit written into it. It sends its version in the header
X-Grader-Client; one older than MIN_CLIENT_VERSION gets a 409 naming where to download the current one.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from flask import Response, current_app, jsonify, request, url_for
from flask.typing import ResponseReturnValue

from grader.code_grading import MAX_SOURCE_BYTES
from grader.models import utc_text
from grader.web.api import bp
from grader.web.api_request import bearer, caller
from grader.web.openapi import Reply, documented

CLIENT_FILE = Path(__file__).resolve().parents[1] / "client" / "grader_client.py"
CLIENT_HEADER = "X-Grader-Client"
MIN_CLIENT_VERSION = 1  # raise it when the API changes in a way older clients would misread


@functools.cache
def _template() -> str:
    return CLIENT_FILE.read_text(encoding="utf-8")


def client_version() -> int:
    """The version of the client this service serves (its CLIENT_VERSION line)."""
    found = re.search(r"^CLIENT_VERSION = (\d+)", _template(), re.MULTILINE)
    assert found is not None, "grader_client.py lost its CLIENT_VERSION line"
    return int(found.group(1))


def service_url() -> str:
    """This site's address: the configured public one, else the one this request came to."""
    return current_app.config.get("BASE_URL") or request.host_url.rstrip("/")


def client_source(url: str) -> str:
    """The client's text with this service's address and source size limit written in."""
    text = re.sub(r'^SERVICE_URL = "".*$', lambda _: f"SERVICE_URL = {url!r}", _template(), count=1, flags=re.MULTILINE)
    return re.sub(r"^MAX_SOURCE_BYTES = \d+", f"MAX_SOURCE_BYTES = {MAX_SOURCE_BYTES}", text, count=1,
                  flags=re.MULTILINE)  # fmt: skip


@dataclass(frozen=True)
class Served:
    """The client as the profile page presents it: where to download it, its SHA-256, its version."""

    url: str
    service: str
    sha256: str
    version: int


def served() -> Served:
    """The client this request's site serves."""
    service = service_url()
    digest = hashlib.sha256(client_source(service).encode("utf-8")).hexdigest()
    return Served(service + url_for("api.client_file"), service, digest, client_version())


@bp.before_request
def refuse_old_clients() -> ResponseReturnValue | None:
    """A 409 for a client older than this service supports, saying where the current one is; nothing is read."""
    sent = request.headers.get(CLIENT_HEADER, "")
    if not sent.isdigit() or int(sent) >= MIN_CLIENT_VERSION or request.endpoint == "api.client_file":
        return None
    download = served().url
    message = (f"This grader_client.py (version {int(sent)}) is older than this service supports "
               f"(version {MIN_CLIENT_VERSION} or later); nothing was sent.")  # fmt: skip
    return jsonify(error="client_outdated", message=message, download=download), 409


@bp.get("/client.py")
@documented("The notebook and terminal client", {
    200: Reply("grader_client.py: one Python file, the standard library only, with this site's address in it.", str,
               "text/x-python"),
}, description="No token needed. Its SHA-256 is shown on the profile page.")  # fmt: skip
def client_file() -> ResponseReturnValue:
    """The client file, to download once and import in a notebook or run in a terminal."""
    response = Response(client_source(service_url()), mimetype="text/x-python")
    response.headers["Content-Disposition"] = "attachment; filename=grader_client.py"
    return response


@dataclass(frozen=True)
class MeOut:
    """Who the token acts for: the language they chose for messages, and what the token allows.

    course: the one course the token acts in, if it is bound to one. expires_at: when it stops working (ISO 8601
    UTC), null for a token that never expires. client_version: the version of grader_client.py served here.
    """

    locale: str
    course: str | None
    expires_at: str | None
    client_version: int


@bp.get("/me")
@documented("Who this token is", {200: Reply("Your chosen language and what the token allows.", MeOut)})
@bearer
def me() -> ResponseReturnValue:
    """The caller's language and their token's course and expiry."""
    owner = caller()
    expires = utc_text(owner.expires_at) if owner.expires_at else None
    return jsonify(asdict(MeOut(owner.locale, owner.course_code, expires, client_version())))
