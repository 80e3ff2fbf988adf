"""Processes, databases and HTTP helpers for benchmarks/load.py."""

from __future__ import annotations

import http.client
import http.cookies
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
PASSWORD = "load test password"


# ---------------------------------------------------------------- processes


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


class Processes:
    """Every process this script starts, each in its own group; all killed at the end."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, argv: list[str], env: dict[str, str], cwd: Path = ROOT) -> subprocess.Popen[bytes]:
        log = open(self.directory / f"{name}.log", "ab")  # noqa: SIM115 - the child keeps it
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
        log.close()
        self.started.append(process)
        return process

    def stop(self, process: subprocess.Popen[bytes], grace: float = 10.0) -> None:
        """SIGTERM the group, then SIGKILL whatever is left of it (pool children included)."""
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=grace)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for process in reversed(self.started):
            self.stop(process)


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.1)


# ---------------------------------------------------------------- database


def create_database(admin_url: str) -> tuple[str, Callable[[], None]]:
    """A new database on the admin URL's server; returns its URL and a function that drops it."""
    import sqlalchemy as sa

    name = f"grader_load_{uuid.uuid4().hex[:10]}"

    def admin(sql: str) -> None:
        engine = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT", poolclass=sa.pool.NullPool)
        with engine.connect() as connection:
            connection.execute(sa.text(sql))
        engine.dispose()

    admin(f'CREATE DATABASE "{name}"')
    url = sa.make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    return url, lambda: admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def query(url: str, sql: str) -> list[tuple[Any, ...]]:
    import sqlalchemy as sa

    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(sa.text(sql))]
    finally:
        engine.dispose()


def flask(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([PYTHON, "-m", "flask", "--app", "wsgi", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"flask {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


# ---------------------------------------------------------------- HTTP


@dataclass
class Reply:
    status: int | None  # None: no response (connection refused, reset, timed out)
    body: bytes
    headers: dict[str, str]


def request(port: int, method: str, path: str, headers: dict[str, str] | None = None,
            body: bytes | None = None, timeout: float = 120.0) -> Reply:  # fmt: skip
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        return Reply(response.status, data, {k.lower(): v for k, v in response.getheaders()})
    except (OSError, http.client.HTTPException) as error:
        return Reply(None, str(error).encode(), {})
    finally:
        connection.close()


def session_cookie(reply: Reply) -> str | None:
    cookie = http.cookies.SimpleCookie()
    cookie.load(reply.headers.get("set-cookie", ""))
    return cookie["session"].value if "session" in cookie else None


def log_in(port: int, email: str) -> str:
    """Sign in through the login form; returns the session cookie."""
    page = request(port, "GET", "/login")
    match = re.search(rb'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', page.body)
    cookie = session_cookie(page)
    if page.status != 200 or not match or not cookie:
        raise SystemExit(f"login page: {page.status}")
    form = urllib.parse.urlencode({"email": email, "password": PASSWORD, "csrf_token": match.group(1).decode()})
    done = request(port, "POST", "/login", {"Content-Type": "application/x-www-form-urlencoded",
                                            "Cookie": f"session={cookie}"}, form.encode())  # fmt: skip
    signed_in = session_cookie(done)
    if done.status != 302 or not signed_in:
        raise SystemExit(f"login failed for {email}: {done.status}")
    return signed_in
