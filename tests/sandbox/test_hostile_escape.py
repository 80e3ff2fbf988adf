"""Hostile submissions that try to escape or spy: signals, files, secrets, network, syscalls.

Submissions that steal something send it out on every channel a learner has (stdout, a
visible case's error text, the returned value as bytes; see EXFILTRATE); each test checks
that what they wanted never reached the learner, the host or the log, and the verdict.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.register_assert_rewrite("tests.sandbox.hostile_support")  # see test_hostile_resources

from grader.codecheck.prepare import prepare  # noqa: E402
from tests.sandbox.hostile_support import (  # noqa: E402
    EXFILTRATE, PROJECT, SECRET_ENV, SECRET_VALUE, SPEC, Hostile, assert_absent,
    assert_not_passed, slot_pids, submission, uid_processes,
)

pytest_plugins = ["tests.sandbox.hostile_support"]
WRONG_VALUES = "The output's values are wrong."
WRONG_SHAPE = "The output has the wrong shape."
WRONG_TYPE = "The output has the wrong type."

STEAL_FILES = EXFILTRATE + """
def _steal(paths):
    found = []
    for path in paths:
        try:
            with open(path, 'rb') as handle:
                found.append(path + ' => ' + handle.read().decode('latin-1'))
        except OSError as exc:
            found.append(path + ' => ' + type(exc).__name__)
    return _exfiltrate('\\n'.join(found))
"""


def _steal(hostile: Hostile, paths: list[str]) -> Any:
    return hostile.grade(submission(f"return _steal({paths!r})", prelude=STEAL_FILES))


# --- signals ----------------------------------------------------------------------------

def test_killing_the_parent_does_not_touch_the_zygote(hostile: Hostile) -> None:
    body = """
    import signal
    for sig in (signal.SIGKILL, signal.SIGTERM, signal.SIGSTOP, signal.SIGSEGV):
        try:
            os.kill(os.getppid(), sig)
        except OSError:
            pass
    return np.full_like(x, os.getppid())  # who is our parent now?
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", hidden=WRONG_VALUES)
    # Still the zygote (PID 1 of the slot): it ignores signals sent from inside the slot.
    assert all(np.all(value == 1.0) for value in graded.values())
    assert slot_pids(hostile.uids) == hostile.before  # same bwrap and zygote, not restarted
    for procs in uid_processes(hostile.uids).values():
        assert all(proc.state not in "TtZ" for proc in procs), procs


def test_kill_minus_one_reaches_only_the_slot(hostile: Hostile) -> None:
    body = """
    import signal, time
    child = os.fork()
    if child == 0:
        time.sleep(30)
        os._exit(0)
    os.kill(-1, signal.SIGKILL)  # everything we may signal, except ourselves and init
    _, status = os.waitpid(child, 0)
    return np.full_like(x, os.getppid() * 100 + os.WTERMSIG(status))
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", hidden=WRONG_VALUES)
    # It killed its own child (SIGKILL = 9), and its parent, the zygote (1), lived on.
    assert all(np.all(value == 109.0) for value in graded.values())
    # bwrap runs as the slot uid too, outside the slot's PID namespace: out of reach.
    assert slot_pids(hostile.uids) == hostile.before


# --- files and secrets ------------------------------------------------------------------

def test_host_passwd_is_not_readable(hostile: Hostile) -> None:
    with open("/etc/passwd", encoding="utf-8") as handle:
        root = next(line.strip() for line in handle if line.startswith("root:"))
    paths = ["/etc/passwd", "/etc/shadow", "/proc/1/root/etc/passwd",
             "/proc/self/root/etc/passwd", "/runtime/../etc/passwd", "/../../../etc/passwd"]
    graded = _steal(hostile, paths)
    assert_not_passed(graded, "failed", "0 of", visible="/etc/passwd => FileNotFoundError")
    assert_absent(root, graded, "the host's /etc/passwd")


@pytest.fixture
def canary_database() -> Iterator[tuple[Path, str]]:
    """A world-readable database and key file under the project's instance directory."""
    parent = PROJECT / "instance" if (PROJECT / "instance").is_dir() else PROJECT
    directory = Path(tempfile.mkdtemp(prefix="hostile-canary-", dir=parent))
    secret = f"canary-db-{uuid.uuid4().hex}"
    try:
        directory.chmod(0o755)  # readable by any uid: only the sandbox's mounts protect it
        with contextlib.closing(sqlite3.connect(directory / "grader.db")) as db:
            db.execute("CREATE TABLE secrets (value TEXT)")
            db.execute("INSERT INTO secrets VALUES (?)", (secret,))
            db.commit()
        (directory / "secret_key").write_text(secret)
        for name in ("grader.db", "secret_key"):
            (directory / name).chmod(0o644)
        yield directory, secret
    finally:
        shutil.rmtree(directory)


def test_database_and_instance_files_are_not_readable(
        hostile: Hostile, canary_database: tuple[Path, str]) -> None:
    directory, secret = canary_database
    targets = [str(directory / "grader.db"), str(directory / "secret_key")]
    paths = targets + [f"/proc/1/root{t}" for t in targets] + [f"/proc/self/cwd/../..{t}"
                                                               for t in targets]
    graded = _steal(hostile, paths)
    assert_not_passed(graded, "failed", "0 of", visible="grader.db => FileNotFoundError")
    assert_absent(secret, graded, "the canary database")
    with contextlib.closing(sqlite3.connect(directory / "grader.db")) as db:
        assert db.execute("SELECT value FROM secrets").fetchall() == [(secret,)]


def test_application_source_is_not_readable(hostile: Hostile) -> None:
    reference = PROJECT / "grader" / "reference" / "gpt2.py"
    text = reference.read_text(encoding="utf-8")
    needle = next(line for line in text.splitlines() if line.startswith("def row_stats("))
    paths = [str(reference), f"/proc/1/cwd{reference}", f"/proc/self/root{reference}",
             "/runtime/site/grader/reference/gpt2.py"]
    graded = _steal(hostile, paths)
    assert_not_passed(graded, "failed", "0 of", visible="gpt2.py => FileNotFoundError")
    assert_absent(needle, graded, "the reference implementation")
    assert_absent(text.splitlines()[0], graded, "the reference implementation")


def test_host_environment_secrets_do_not_reach_the_sandbox(hostile: Hostile) -> None:
    assert os.environ[SECRET_ENV] == SECRET_VALUE  # set before the slots started
    body = """
    found = []
    for pid in ['1', 'self'] + [p for p in os.listdir('/proc') if p.isdigit()]:
        try:
            with open(f'/proc/{pid}/environ', 'rb') as handle:
                found.append(pid + ' => ' + handle.read().decode('latin-1'))
        except OSError as exc:
            found.append(pid + ' => ' + type(exc).__name__)
    found.append(repr(dict(os.environ)))  # last: a long error shows its last lines
    return _exfiltrate('\\n'.join(found))
    """
    graded = hostile.grade(submission(body, prelude=EXFILTRATE))
    assert_not_passed(graded, "failed", "0 of", visible="OPENBLAS_NUM_THREADS")
    assert_absent(SECRET_VALUE, graded, "the secret environment variable")
    assert SECRET_ENV not in graded.haystack()
    # On the host side too: neither bwrap nor the zygote was started with our environment.
    for procs in uid_processes(hostile.uids).values():
        for proc in procs:
            with open(f"/proc/{proc.pid}/environ", "rb") as handle:
                assert SECRET_VALUE.encode() not in handle.read(), proc


@pytest.mark.parametrize("prelude, error", [
    (f"sys.path[:0] = [{str(PROJECT)!r}, '/work/main']\nfrom grader.reference import gpt2",
     "ModuleNotFoundError: No module named 'grader'"),
    ("import importlib.util\n"
     f"spec = importlib.util.spec_from_file_location('gpt2', {str(PROJECT)!r} + "
     "'/grader/reference/gpt2.py')\n"
     "gpt2 = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(gpt2)",
     "FileNotFoundError"),
], ids=["import-statement", "import-by-path"])
def test_reference_module_cannot_be_imported(hostile: Hostile, prelude: str, error: str) -> None:
    source = submission("return gpt2.layer_norm(x, gamma, beta)", prelude=prelude)
    graded = hostile.grade(source)
    assert_not_passed(graded, "error", "Your code raised an exception while loading, before any case ran.")
    assert graded.run.status == "load_error" and error in graded.code.message


# --- looking for the expected outputs ---------------------------------------------------

GATHER = """
def _gather(roots):
    codec = sys.modules.get('codec')
    found, seen, alive = {}, set(), []

    def keep(item, depth=0):
        if len(found) >= 64 or id(item) in seen or depth > 4:
            return
        seen.add(id(item))
        alive.append(item)  # so that no id in `seen` is reused by a later object
        if type(item) is np.ndarray and item.dtype.kind == 'f':
            found[f'a{len(found)}'] = np.array(item)
        elif isinstance(item, (memoryview, bytes)) and codec is not None:
            try:
                keep(codec.decode(item), depth + 1)  # the encoded inputs of every case
            except Exception:
                pass
        elif isinstance(item, dict) and item is not found:
            for value in list(item.values()):
                keep(value, depth + 1)
        elif isinstance(item, (list, tuple)):
            for value in list(item)[:64]:
                keep(value, depth + 1)

    for root in roots:
        keep(root)
    return found
"""


def _assert_found_no_expected_output(graded: Any) -> None:
    expected = prepare(SPEC, graded.seed).expected
    looked = 0
    for index, (value, sent) in enumerate(zip(graded.values(), graded.sent, strict=True)):
        assert isinstance(value, dict), value
        arrays = list(value.values())
        # The search worked: it found at least this case's own inputs...
        assert any(a.shape == sent["x"].shape and np.array_equal(a, sent["x"]) for a in arrays)
        looked += len(arrays)
        # ...and no output of the reference, for this case or any other.
        for array in arrays:
            for out in expected:
                assert not (array.shape == out.shape and np.allclose(array, out)), index
    assert looked > len(expected)


def test_gc_objects_hold_no_expected_outputs(hostile: Hostile) -> None:
    body = "import gc\nreturn _gather(gc.get_objects())"
    graded = hostile.grade(submission(body, prelude=GATHER))
    assert_not_passed(graded, "failed", "0 of", hidden=WRONG_TYPE)
    _assert_found_no_expected_output(graded)


def test_caller_frames_hold_no_expected_outputs(hostile: Hostile) -> None:
    body = """
    roots, frame = [], sys._getframe(1)
    while frame is not None:
        roots += [frame.f_locals, frame.f_globals]
        frame = frame.f_back
    return _gather(roots)
    """
    graded = hostile.grade(submission(body, prelude=GATHER))
    assert_not_passed(graded, "failed", "0 of", hidden=WRONG_TYPE)
    _assert_found_no_expected_output(graded)


# --- network ----------------------------------------------------------------------------

def test_loopback_server_on_the_host_gets_no_connection(hostile: Hostile) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    port = server.getsockname()[1]
    accepted: list[Any] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                accepted.append(server.accept())

    listener = threading.Thread(target=accept)
    listener.start()
    body = f"""
    import socket
    found = []
    for host in ('127.0.0.1', 'localhost', '::1'):
        try:
            socket.create_connection((host, {port}), timeout=0.5).sendall(b'stolen')
            found.append(host + ' connected')
        except OSError as exc:
            found.append(host + ' ' + type(exc).__name__)
    return _exfiltrate(', '.join(found))
    """
    try:
        graded = hostile.grade(submission(body, prelude=EXFILTRATE))
    finally:
        stop.set()
        listener.join()
        server.close()
    assert accepted == []
    assert_not_passed(graded, "failed", "0 of", visible="127.0.0.1 PermissionError")
    assert "connected" not in graded.haystack()


def test_sockets_to_the_outside_cannot_even_be_created(hostile: Hostile) -> None:
    # Only socket() is tried: if it ever succeeded, nothing would be sent anywhere.
    body = """
    import socket
    kinds = [(socket.AF_INET, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_DGRAM),
             (socket.AF_INET6, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_RAW),
             (socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_NETLINK, socket.SOCK_RAW),
             (socket.AF_UNIX, socket.SOCK_STREAM)]
    codes = []
    for family, kind in kinds:
        try:
            socket.socket(family, kind).close()
            codes.append(0)
        except OSError as exc:
            codes.append(exc.errno)
    return np.array(codes)
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", hidden=WRONG_SHAPE)
    assert all(list(value) == [errno.EPERM] * 7 for value in graded.values())


# --- syscalls the seccomp filter refuses ------------------------------------------------

# struct flock for a whole-file read (or write) lock, as fcntl's third argument.
FLOCK_READ = "ctypes.create_string_buffer(bytes(32))"
FLOCK_WRITE = "ctypes.create_string_buffer(bytes([1]) + bytes(31))"

SYSCALLS = {
    "mount": "libc.mount(b'none', b'/runtime', b'tmpfs', 0, None)",
    "unshare-user": "libc.unshare(0x10000000)",
    "unshare-mount-net": "libc.unshare(0x00020000 | 0x40000000)",
    "clone-newuser": "libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)",
    "setns": "libc.setns(os.open('/proc/self/ns/net', os.O_RDONLY), 0)",
    "ptrace-attach": "libc.ptrace(16, 1, 0, 0)",
    "keyctl": "libc.syscall(250, 0, -4, 1)",
    "io_uring_setup": "libc.syscall(425, 4, 0)",
    "inotify_init1": "libc.inotify_init1(0)",  # a watch on the shared runtime would show other slots' imports
    # dnotify (F_NOTIFY, DN_ACCESS | DN_MULTISHOT) on /runtime would report other slots' reads too
    "dnotify": "libc.fcntl(os.open('/runtime', os.O_RDONLY), 1026, 0x80000001)",
    # Locks on files every slot shares are seen from the other slots: a signal between two jobs
    "flock-runtime": "libc.flock(os.open('/runtime/sandbox/codec.py', os.O_RDONLY), 2)",
    "flock-dev-null": "libc.flock(os.open('/dev/null', os.O_RDONLY), 2)",
    "posix-read-lock": f"libc.fcntl(os.open('/runtime/sandbox/codec.py', os.O_RDONLY), 6, {FLOCK_READ})",
    "ofd-read-lock": f"libc.fcntl(os.open('/runtime/sandbox/codec.py', os.O_RDONLY), 37, {FLOCK_READ})",
    "posix-lock-test": f"libc.fcntl(os.open('/dev/null', os.O_RDONLY), 5, {FLOCK_WRITE})",
    "cachestat": ("libc.syscall(451, os.open('/runtime/sandbox/codec.py', os.O_RDONLY), "
                  "ctypes.create_string_buffer(16), ctypes.create_string_buffer(40), 0)"),
    # Memory no limit counts: secret memory left after munmap, and AIO contexts from a host-wide quota
    "memfd_secret": "libc.syscall(447, 0)",
    "io_setup": "libc.syscall(206, 1, ctypes.byref(ctypes.c_ulong(0)))",
}


@pytest.mark.parametrize("name", SYSCALLS)
def test_dangerous_syscalls_are_refused(hostile: Hostile, name: str) -> None:
    body = f"""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    ctypes.set_errno(0)
    result = {SYSCALLS[name]}
    if result == 0 and {name.startswith("clone")!r}:
        os._exit(0)  # a cloned child that got through must not run on
    return np.array([result, ctypes.get_errno()])
    """
    graded = hostile.grade(submission(body))
    assert_not_passed(graded, "failed", "0 of", visible="got (2,)", hidden=WRONG_SHAPE)
    assert all(list(value) == [-1, errno.EPERM] for value in graded.values()), graded.values()


# --- inherited file descriptors ---------------------------------------------------------

def test_writing_to_every_inherited_fd_reaches_nothing_on_the_host(
        hostile: Hostile, capfd: pytest.CaptureFixture[str]) -> None:
    token = f"HOSTILE-FD-{uuid.uuid4().hex}"
    body = f"""
    for fd in range(21):
        try:
            os.write(fd, b'{token}\\n')
        except OSError:
            pass
    return x
    """
    graded = hostile.grade(submission(body))
    captured = capfd.readouterr()
    assert token not in captured.out and token not in captured.err
    assert token in graded.run.stdout  # fds 1 and 2: the captured output, as they should be
    # One of the fds is the result pipe: the host reads garbage there and says so.
    assert graded.run.status == "crashed"
    assert_not_passed(graded, "error")
    assert token not in graded.code.message
