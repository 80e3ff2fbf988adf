"""CI check of the README's first command: `make run` in a fresh clone answers code with a real verdict.

It clones HEAD into a temporary directory, runs `make run` there (venv, packages, migrations,
exercises, gunicorn) on a free loopback port, registers a learner through the web form, gives
them an API token with the CLI, submits a correct `layer_norm` and waits for its verdict: it must
be graded `passed` with full score in the sandbox, not "code grading is not available". Timeouts are generous
(a first `make install` builds a venv), and nothing is timed.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EMAIL = "newcomer@example.com"
PASSWORD = "a long enough passphrase"
EXERCISE = "code-layer-norm"
SOURCE = '''import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
'''
START_TIMEOUT = 1800  # seconds: a first venv on a loaded 2-core box
VERDICT_TIMEOUT = 600


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def clone(into: Path) -> Path:
    """A fresh clone of this checkout's HEAD commit (what CI is testing), nothing uncommitted."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    target = into / "grader"
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(target)], check=True)
    subprocess.run(["git", "checkout", "--quiet", head], cwd=target, check=True)
    return target


def clean_environment(port: int) -> dict[str, str]:
    """This environment without any GRADER_ setting, the service bound to `port`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRADER_") and k != "VIRTUAL_ENV"}
    env["GRADER_BIND"] = f"127.0.0.1:{port}"
    return env


def wait_until_up(base: str, service: subprocess.Popen[bytes], log: Path) -> None:
    """Poll /healthz until the service answers; fail if `make run` ends first."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if service.poll() is not None:
            fail(f"make run ended with status {service.returncode}", log)
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=10) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(2)
    fail(f"the service did not answer within {START_TIMEOUT} s", log)


def register(base: str) -> None:
    """Register a learner with the web form, as a newcomer would."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(f"{base}/register", timeout=60).read().decode()
    found = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    assert found, "the registration page has no CSRF token"
    form = {"email": EMAIL, "password": PASSWORD, "confirm": PASSWORD, "csrf_token": found.group(1)}
    reply = opener.open(f"{base}/register", data=urllib.parse.urlencode(form).encode(), timeout=60)
    assert "/register" not in reply.geturl(), f"registration was refused: {reply.geturl()}"


def api(base: str, token: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """One JSON API call with the learner's token."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}/api/v1{path}", data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=120) as reply:
        result: dict[str, Any] = json.load(reply)
        return result


def verdict(base: str, token: str) -> dict[str, Any]:
    """Submit the correct function and poll until it is no longer pending."""
    result = api(base, token, f"/exercises/{EXERCISE}/submissions", {"source": SOURCE})
    deadline = time.monotonic() + VERDICT_TIMEOUT
    while result["status"] == "pending" and time.monotonic() < deadline:
        time.sleep(2)
        result = api(base, token, f"/submissions/{result['submission_id']}")
    return result


def fail(message: str, log: Path) -> None:
    """Stop with the message and the end of make run's output."""
    tail = log.read_text(errors="replace").splitlines()[-60:]
    sys.exit(f"fresh clone check FAILED: {message}\n--- make run (last lines) ---\n" + "\n".join(tail))


def stop(service: subprocess.Popen[bytes]) -> None:
    """End make run and everything it started (its own process group)."""
    if service.poll() is None:
        os.killpg(service.pid, signal.SIGTERM)
        try:
            service.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(service.pid, signal.SIGKILL)
            service.wait()


def main() -> None:
    """Clone, `make run`, register, submit, check the verdict."""
    with tempfile.TemporaryDirectory(prefix="grader-fresh-") as scratch:
        checkout = clone(Path(scratch))
        port = free_port()
        env = clean_environment(port)
        log = Path(scratch) / "make-run.log"
        print(f"fresh clone in {checkout}; make run on 127.0.0.1:{port}", flush=True)
        with log.open("wb") as out:
            service = subprocess.Popen(["make", "run"], cwd=checkout, env=env, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        try:
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base, service, log)
            register(base)
            token = subprocess.run([".venv/bin/flask", "--app", "wsgi", "users", "token", "--email", EMAIL],
                                   cwd=checkout, env=env, check=True, capture_output=True,
                                   text=True).stdout.strip()  # fmt: skip
            result = verdict(base, token)
        finally:
            stop(service)
        graded = result["status"] == "graded" and (result.get("result") or {}).get("status") == "passed"
        if not graded or result["score"] != 1.0 or "not available" in json.dumps(result):
            fail(f"the correct layer_norm got {json.dumps(result)[:2000]}", log)
        print(f"fresh clone check passed: {EXERCISE} graded, {result['result']['message']} score {result['score']}")


if __name__ == "__main__":
    main()
