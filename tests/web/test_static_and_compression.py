"""Compressed text replies, and static files under content-hashed names that browsers keep for a year."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import brotli
import pytest
from backports import zstd
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Variant
from grader.services import attempts
from grader.web.app import SECURITY_HEADERS
from grader.web.static_files import StaticNames
from tests.web.conftest import build_app, make_user, seat

STATIC = Path(__file__).resolve().parents[2] / "grader" / "web" / "static"
BROWSER = "gzip, deflate, br, zstd"  # what Chromium offers
DECODE = {"gzip": gzip.decompress, "br": brotli.decompress, "zstd": zstd.decompress}
YEAR = "max-age=31536000"


def static_urls(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def without_csrf(html: str) -> str:
    return re.sub(r'name="csrf_token" (type="hidden" )?value="[^"]+"', "", html)  # signed anew every second


@pytest.mark.parametrize("encoding", ["gzip", "br", "zstd"])
def test_a_page_comes_compressed_in_the_encoding_the_browser_offers(client: FlaskClient, encoding: str) -> None:
    plain = client.get("/login")
    packed = client.get("/login", headers={"Accept-Encoding": encoding})
    assert plain.headers.get("Content-Encoding") is None
    assert packed.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in packed.headers["Vary"] and "Accept-Encoding" in plain.headers["Vary"]
    body = DECODE[encoding](packed.data)
    assert len(packed.data) < len(body) / 2
    assert without_csrf(body.decode()) == without_csrf(plain.get_data(as_text=True))
    assert int(packed.headers["Content-Length"]) == len(packed.data)


def test_small_replies_errors_and_compressed_types_are_sent_as_they_are(app: Flask, client: FlaskClient) -> None:
    app.add_url_rule("/test-png", "test_png", lambda: (b"\x89PNG" + bytes(4000), 200, {"Content-Type": "image/png"}))
    small = client.get("/healthz", headers={"Accept-Encoding": BROWSER})
    assert small.status_code == 200 and len(small.data) < 500
    assert small.headers.get("Content-Encoding") is None
    assert client.get("/test-png", headers={"Accept-Encoding": BROWSER}).headers.get("Content-Encoding") is None
    missing = client.get("/exercises/no-such-exercise-" + "x" * 600, headers={"Accept-Encoding": BROWSER})
    assert missing.status_code in (302, 404) and missing.headers.get("Content-Encoding") is None


def test_the_api_json_decompresses_to_the_same_document(client: FlaskClient, token: str) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    plain = client.get("/api/v1/exercises", headers=auth)
    packed = client.get("/api/v1/exercises", headers={**auth, "Accept-Encoding": "br"})
    assert packed.headers["Content-Encoding"] == "br" and packed.mimetype == "application/json"
    assert json.loads(brotli.decompress(packed.data)) == plain.json


def test_a_csv_download_is_compressed_as_it_streams(app: Flask, instructor: FlaskClient) -> None:
    ada = make_user(app, "ada@example.com")
    with app.app_context():
        db.session.add(Variant(user_id=ada, exercise_id="block-gelu", seed=0))
        db.session.commit()
        for typed in ("0.100", "0.200", "0.300"):
            assert attempts.submit(seat(ada), "block-gelu", {"neg": typed, "pos": "0.952"}).outcome == "graded"
    url = "/teach/exercises/block-gelu/attempts.csv"
    plain = instructor.get(url)
    packed = instructor.get(url, headers={"Accept-Encoding": "br"})
    assert packed.is_streamed and packed.headers["Content-Encoding"] == "br"
    assert "Content-Length" not in packed.headers
    assert brotli.decompress(packed.data) == plain.data and plain.data.count(b"\n") == 4


def test_pages_name_static_files_by_content_and_browsers_keep_them_a_year(client: FlaskClient) -> None:
    urls = static_urls(client.get("/login").get_data(as_text=True))
    assert {re.sub(r"\.[0-9a-f]{10}\.", ".", url) for url in urls} >= {"/static/style.css", "/static/app.js"}
    for url in urls:
        reply = client.get(url, headers={"Accept-Encoding": BROWSER})
        plain_name = re.sub(r"\.[0-9a-f]{10}\.", ".", url).removeprefix("/static/")
        assert reply.status_code == 200, url
        assert set(reply.headers["Cache-Control"].split(", ")) == {"public", YEAR, "immutable"}
        body = DECODE[reply.headers["Content-Encoding"]](reply.data) if "Content-Encoding" in reply.headers else reply.data
        assert body == (STATIC / plain_name).read_bytes()
        assert "Set-Cookie" not in reply.headers and "Cookie" not in reply.headers["Vary"]
        assert reply.headers["Content-Security-Policy"] == SECURITY_HEADERS["Content-Security-Policy"]


def test_a_compressed_static_file_is_revalidated_with_its_etag(client: FlaskClient) -> None:
    url = next(u for u in static_urls(client.get("/login").get_data(as_text=True)) if u.endswith(".css"))
    first = client.get(url, headers={"Accept-Encoding": "br"})
    assert first.headers["Content-Encoding"] == "br" and first.headers["ETag"].endswith(':br"')
    again = client.get(url, headers={"Accept-Encoding": "br", "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_a_byte_range_is_sent_uncompressed(client: FlaskClient) -> None:
    reply = client.get("/static/style.css", headers={"Accept-Encoding": "br", "Range": "bytes=0-1999"})
    assert reply.status_code == 206 and reply.headers.get("Content-Encoding") is None
    assert reply.data == (STATIC / "style.css").read_bytes()[:2000]


def test_the_plain_name_and_an_old_digest_still_give_the_file_kept_briefly(client: FlaskClient) -> None:
    for url in ("/static/style.css", "/static/style.0123456789.css"):
        reply = client.get(url)
        assert reply.status_code == 200 and reply.data == (STATIC / "style.css").read_bytes()
        assert reply.headers["Cache-Control"] == "public, max-age=300"
    assert client.get("/static/nothing.0123456789.css").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_the_code_editors_vendor_files_get_hashed_names(learner: FlaskClient) -> None:
    urls = static_urls(learner.get("/exercises/code-layer-norm").get_data(as_text=True))
    vendor = [u for u in urls if "/vendor/codemirror-5.65.20/" in u]
    assert len(vendor) == 4 and all(re.search(r"\.[0-9a-f]{10}\.(js|css)$", u) for u in vendor)
    assert all(YEAR in learner.get(u).headers["Cache-Control"] for u in vendor)


def test_a_changed_file_gets_a_new_name_at_once_when_names_follow_the_disk(tmp_path: Path) -> None:
    folder = tmp_path / "static"
    (folder / "deep").mkdir(parents=True)
    (folder / "deep" / "page.css").write_text("body { color: red }")
    (folder / "LICENSE").write_text("no suffix")
    kept, followed = StaticNames(folder), StaticNames(folder, follow_changes=True)
    before = followed.hashed("deep/page.css")
    assert re.fullmatch(r"deep/page\.[0-9a-f]{10}\.css", before) and kept.hashed("deep/page.css") == before
    assert followed.hashed("LICENSE") == "LICENSE" and followed.hashed("deep/none.css") == "deep/none.css"
    (folder / "deep" / "page.css").write_text("body { color: blue; }")
    after = followed.hashed("deep/page.css")
    assert after != before and followed.resolve(after) == ("deep/page.css", True)
    assert followed.resolve(before) == ("deep/page.css", False)  # an old page's name: today's file, kept briefly
    assert kept.hashed("deep/page.css") == before  # computed once: a deploy starts new processes
    assert StaticNames(folder).hashed("deep/page.css") == after
    (tmp_path / "outside.css").write_text("not served")
    assert followed.digest("../outside.css") is None and followed.hashed("../outside.css") == "../outside.css"
    assert followed.resolve("../outside.0123456789.css") == ("../outside.0123456789.css", False)


def test_a_debug_app_serves_an_edited_file_under_its_new_name(tmp_path: Path) -> None:
    app = build_app(tmp_path, DEBUG=True)
    folder = tmp_path / "static"
    folder.mkdir()
    (folder / "style.css").write_text("a { color: red }")
    app.static_folder = str(folder)
    app.extensions["static_names"] = StaticNames(folder, follow_changes=app.debug)
    client = app.test_client()
    with app.test_request_context():
        from flask import url_for

        first = url_for("static", filename="style.css")
        (folder / "style.css").write_text("a { color: green }")
        second = url_for("static", filename="style.css")
    assert first != second
    assert client.get(second).data == b"a { color: green }"
    assert YEAR in client.get(second).headers["Cache-Control"]


def test_switched_off_the_app_serves_as_before(tmp_path: Path) -> None:
    client = build_app(tmp_path, COMPRESS_RESPONSES=False, STATIC_HASHED_NAMES=False).test_client()
    page = client.get("/login", headers={"Accept-Encoding": BROWSER})
    assert page.headers.get("Content-Encoding") is None
    assert "/static/style.css" in static_urls(page.get_data(as_text=True))
    assert client.get("/static/style.css").headers["Cache-Control"] == "no-cache"


def test_the_yaml_tab_loads_the_same_editor_in_yaml_mode_over_a_working_textarea(instructor: FlaskClient) -> None:
    page = instructor.get("/teach/exercises/block-gelu/edit?mode=yaml").get_data(as_text=True)
    vendor = [u for u in static_urls(page) if "/vendor/codemirror-5.65.20/" in u]
    assert sorted(re.sub(r"\.[0-9a-f]{10}\.", ".", u).rsplit("/", 1)[1] for u in vendor) == [
        "codemirror.css", "codemirror.js", "yaml.js"]
    assert re.search(r'<textarea[^>]*data-code-editor="yaml"[^>]*>\s*id: block-gelu', page)  # the source, without JS too
    assert "code-editor" in "".join(static_urls(page))
    assert "codemirror" not in instructor.get("/teach/exercises/block-gelu/edit").get_data(as_text=True)  # the form tab
