"""Rate limits kept in Redis are shared by separate app processes (two gunicorns, as two hosts).

The two servers must be separate processes: inside one process every app shares the module-level
Limiter and so its storage, and the test would pass even with per-process memory:// storage.
"""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from flask import Flask

from tests.queue.support import Gunicorn, Redis, env_for

LOGIN_LIMIT = 10  # grader.web.auth: "10 per minute" failed logins per address


class Browser:
    """A cookie-keeping client for one server."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

    def failed_login(self) -> int:
        page = self.opener.open(f"{self.base}/login", timeout=10).read().decode()
        match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', page)
        assert match, "no CSRF token on the login page"
        form = urllib.parse.urlencode({"email": "ada@example.com", "password": "not the password",
                                       "csrf_token": match.group(1)}).encode()  # fmt: skip
        try:
            return self.opener.open(f"{self.base}/login", data=form, timeout=10).status
        except urllib.error.HTTPError as error:
            return error.code


def test_two_app_processes_share_the_failed_login_limit_through_redis(
        app: Flask, database: str, redis: Redis, tmp_path: Path) -> None:  # fmt: skip
    env = env_for(database, GRADER_RATELIMIT_STORAGE=f"redis://127.0.0.1:{redis.port}/1")
    servers = [Gunicorn(env, tmp_path, workers=1, name=f"host{i}") for i in (1, 2)]
    try:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(Gunicorn.wait_ready, servers))
        one, two = (Browser(server.base) for server in servers)
        statuses = [(one if i % 2 == 0 else two).failed_login() for i in range(LOGIN_LIMIT + 1)]
    finally:
        for server in servers:
            server.stop()
    assert statuses == [401] * LOGIN_LIMIT + [429], statuses
    assert redis.command("DBSIZE", db=1) != ":0", "the limiter's counters are in Redis"
