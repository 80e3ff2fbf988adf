"""scripts/debian-packages: installs only what is missing, only as root, else prints the one command.

dpkg-query, apt-get and id are replaced by small scripts on PATH, so the real system is never touched:
they answer from FAKE_INSTALLED and FAKE_UID, and apt-get writes its arguments to a log.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "debian-packages"
FAKES = {
    "dpkg-query": '#!/bin/sh\nfor last; do :; done\n'  # the package is the last argument
                  'for p in $FAKE_INSTALLED; do [ "$p" = "$last" ] && printf installed && exit 0; done\n'
                  'echo "dpkg-query: no packages found matching $last" >&2; exit 1\n',
    "apt-get": '#!/bin/sh\necho "$@" >> "$APT_LOG"\n',
    "id": '#!/bin/sh\necho "$FAKE_UID"\n',
}


def run(tmp_path: Path, mode: str, installed: str, uid: int) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    fakes = tmp_path / "bin"
    fakes.mkdir(exist_ok=True)
    for name, body in FAKES.items():
        (fakes / name).write_text(body)
        (fakes / name).chmod(0o755)
    log = tmp_path / "apt.log"
    env = {**os.environ, "PATH": f"{fakes}:/usr/bin:/bin", "FAKE_INSTALLED": installed,
           "FAKE_UID": str(uid), "APT_LOG": str(log)}  # fmt: skip
    done = subprocess.run([str(SCRIPT), mode], env=env, capture_output=True, text=True, timeout=60)
    return done, log.read_text().splitlines() if log.exists() else []


def listed(mode: str) -> list[str]:
    out = subprocess.run([str(SCRIPT), "--list", mode], capture_output=True, text=True, check=True).stdout
    return out.split()


def test_each_mode_adds_to_the_one_before() -> None:
    run_, test, ci = listed("run"), listed("test"), listed("ci")
    assert "bubblewrap" in run_ and {"chromium", "redis-server"} <= set(test) and "postgresql" in ci
    assert set(run_) < set(test) < set(ci) and "postgresql" not in test


def test_a_machine_that_has_everything_does_no_apt_work(tmp_path: Path) -> None:
    done, apt = run(tmp_path, "ci", " ".join(listed("ci")), uid=0)
    assert done.returncode == 0 and apt == [] and done.stdout == ""


def test_as_root_only_the_missing_packages_are_installed(tmp_path: Path) -> None:
    have = [p for p in listed("test") if p not in ("chromium", "redis-server")]
    done, apt = run(tmp_path, "test", " ".join(have), uid=0)
    assert done.returncode == 0, done.stderr
    assert apt == ["update -qq", "install -y -qq --no-install-recommends chromium redis-server"]


def test_without_root_it_stops_with_the_one_command_to_run(tmp_path: Path) -> None:
    done, apt = run(tmp_path, "run", "", uid=1000)
    assert done.returncode == 1 and apt == []
    wanted = " ".join(listed("run"))
    assert f"    sudo apt-get install -y --no-install-recommends {wanted}\n" in done.stderr


@pytest.mark.parametrize("mode", ["", "everything"])
def test_an_unknown_mode_is_refused(tmp_path: Path, mode: str) -> None:
    done, apt = run(tmp_path, mode, "", uid=0)
    assert done.returncode == 2 and "usage" in done.stderr and apt == []
