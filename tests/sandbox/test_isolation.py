"""What hostile submissions cannot do: files, network, environment, syscalls, processes."""

from __future__ import annotations

import contextlib
import socket
import threading

from grader.sandbox import SandboxPool
from tests.sandbox.conftest import CANARY, only_value, probe, run_body, slot_processes

PROBE_OPEN = """
outcome = {{}}
for path in {paths!r}:
    try:
        with open(path, 'rb') as handle:
            handle.read(1)
        outcome[path] = 'read'
    except OSError as exc:
        outcome[path] = type(exc).__name__
return outcome
"""


def test_cannot_read_project_files_or_host_secrets(pool: SandboxPool) -> None:
    paths = ["/work/main/README.md", "/work/main/instance/secret_key", "/etc/shadow",
             "/etc/passwd", "/root/.bashrc", "/proc/1/environ", "/proc/1/mem"]
    outcome = probe(pool, PROBE_OPEN.format(paths=paths))
    assert all(result != "read" for result in outcome.values()), outcome


def test_only_the_runtime_libraries_and_tmp_are_visible(pool: SandboxPool) -> None:
    listing = probe(pool, "return sorted(os.listdir('/'))")
    assert set(listing) <= {"runtime", "usr", "lib", "lib64", "proc", "dev", "tmp"}
    hidden = "return os.path.exists('/work') or os.path.exists('/etc')"
    assert only_value(run_body(pool, hidden)) is False


def test_cannot_connect_to_the_host(pool: SandboxPool) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[object] = []
    server.settimeout(3)
    waiter = threading.Thread(target=lambda: _accept(server, accepted))
    waiter.start()
    body = f"""
    import socket
    try:
        socket.create_connection(('127.0.0.1', {port}), timeout=1)
        return 'connected'
    except OSError as exc:
        return type(exc).__name__ + ' ' + str(exc.errno)
    """
    try:
        result = probe(pool, body)
    finally:
        waiter.join()
        server.close()
    assert result == "PermissionError 1"
    assert accepted == []


def _accept(server: socket.socket, accepted: list[object]) -> None:
    with contextlib.suppress(OSError):  # the expected outcome: nobody connects
        accepted.append(server.accept())


def test_sees_none_of_the_host_environment(pool: SandboxPool) -> None:
    env = probe(pool, "return dict(os.environ)")
    assert CANARY not in env
    assert "host-secret-canary" not in repr(env)
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["HOME"] == "/tmp"


def test_runs_unprivileged_without_capabilities(pool: SandboxPool) -> None:
    body = """
    status = open('/proc/self/status').read()
    fields = dict(line.split(':\\t', 1) for line in status.splitlines() if ':\\t' in line)
    return [os.getuid(), fields['CapEff'].strip(), fields['NoNewPrivs'].strip(),
            fields['Seccomp'].strip()]
    """
    uid, caps, no_new_privs, seccomp = probe(pool, body)
    assert uid in pool.uids
    assert caps == "0000000000000000" and no_new_privs == "1" and seccomp == "2"


def test_seccomp_refuses_ptrace_and_unshare_but_allows_fork(pool: SandboxPool) -> None:
    body = """
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    calls = {
        'ptrace': lambda: libc.ptrace(16, 1, 0, 0),          # PTRACE_ATTACH to the zygote
        'unshare_user': lambda: libc.unshare(0x10000000),    # CLONE_NEWUSER
        'unshare_mount': lambda: libc.unshare(0x00020000),   # CLONE_NEWNS
        'mount': lambda: libc.mount(b'none', b'/tmp', b'tmpfs', 0, None),
        'bpf': lambda: libc.syscall(321, 0, 0, 0),
        'io_uring_setup': lambda: libc.syscall(425, 1, 0),
        'keyctl': lambda: libc.syscall(250, 0, 0),
    }
    errors = {}
    for name, call in calls.items():
        ctypes.set_errno(0)
        errors[name] = (call(), ctypes.get_errno())
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    errors['fork'] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return errors
    """
    errors = probe(pool, body)
    fork = errors.pop("fork")
    assert fork == 7
    assert all(value == [-1, 1] for value in errors.values()), errors  # -1, EPERM


def test_fork_bomb_is_contained_and_cleaned_up(pool: SandboxPool) -> None:
    body = """
    import time
    children = 0
    for _ in range(500):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
    return children
    """
    children = only_value(run_body(pool, body))
    assert children < 32
    _assert_only_bwrap_and_zygote(pool)


def test_daemons_do_not_survive_the_job(pool: SandboxPool) -> None:
    body = """
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            import time
            while True:
                time.sleep(1)
        os._exit(0)
    return 1
    """
    assert only_value(run_body(pool, body)) == 1
    _assert_only_bwrap_and_zygote(pool)


def _assert_only_bwrap_and_zygote(pool: SandboxPool) -> None:
    for uid in pool.uids:
        commands = slot_processes(uid)
        assert len(commands) == 2, commands
        assert sum("bwrap" in c.split()[0] for c in commands) == 1
        assert sum("zygote.py" in c and c.startswith("/runtime/bin/python") for c in commands) == 1


def test_files_do_not_leak_to_the_next_job(pool: SandboxPool) -> None:
    write = """
    open('/tmp/left-behind', 'w').write('secret')
    open('here', 'w').write('x')
    os.makedirs('/tmp/locked/inner')
    open('/tmp/locked/inner/file', 'w').write('x')
    os.chmod('/tmp/locked/inner', 0)
    os.chmod('/tmp/locked', 0)
    return 1
    """
    for _ in range(len(pool.uids) * 2):  # every slot, whichever serves each job
        assert only_value(run_body(pool, write)) == 1
        seen = probe(pool, "return sorted(os.listdir('/tmp')) + os.listdir('.')")
        assert not {"left-behind", "here", "locked"} & set(seen), seen


def test_writes_are_confined_to_a_capped_tmp(pool: SandboxPool) -> None:
    body = """
    outcome = {}
    for path in ('/runtime/x', '/usr/lib/x', '/x', '/dev/x', '/dev/shm/x'):
        try:
            open(path, 'w').write('x')
            outcome[path] = 'written'
        except OSError as exc:
            outcome[path] = exc.errno
    try:
        for i in range(64):
            with open(f'/tmp/fill{i}', 'wb') as handle:
                handle.write(b'x' * (2 << 20))
        outcome['fill'] = 'unbounded'
    except OSError as exc:
        outcome['fill'] = exc.errno
    return outcome
    """
    outcome = probe(pool, body)
    assert "written" not in outcome.values() and outcome["fill"] == 28, outcome  # ENOSPC
