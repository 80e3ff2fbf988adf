"""The command lines that start a slot's zygote: inside bubblewrap, or (unsafe) without it."""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

from .results import SandboxUnavailable
from .runtime import Runtime

RUNTIME_MOUNT = "/runtime"
WORKROOT = "/tmp"
# One BLAS thread: the CPU limit is per process, and jobs on other slots need the cores.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
# Set on some hosts because older OpenBLAS kernels misbehave on their CPUs; not secrets.
PASSTHROUGH_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def find_bwrap() -> str:
    """Path of the bwrap binary, or SandboxUnavailable telling the operator to install it."""
    path = os.environ.get("GRADER_BWRAP") or shutil.which("bwrap") or "/usr/bin/bwrap"
    if not os.access(path, os.X_OK):
        raise SandboxUnavailable(
            "bubblewrap is not installed (no bwrap on PATH): apt-get install bubblewrap. "
            "Set GRADER_SANDBOX=unsafe-local only on a development machine."
        )
    return path


def sandbox_env(runtime_lib: str | None, home: str) -> dict[str, str]:
    """The whole environment the zygote and jobs see: nothing inherited from the host."""
    env = {
        "PATH": f"{RUNTIME_MOUNT}/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONNOUSERSITE": "1",
        "PYTHONSAFEPATH": "1",
    }
    if runtime_lib:
        env["LD_LIBRARY_PATH"] = runtime_lib  # libpython; the binary's RUNPATH points into /root
    env.update({name: "1" for name in THREAD_VARS})
    env.update({n: os.environ[n] for n in PASSTHROUGH_VARS if n in os.environ})
    return env


def _library_binds() -> list[str]:
    """Read-only binds for libc, libm, libstdc++ and friends, and the dynamic loader."""
    args: list[str] = []
    multiarch = str(sysconfig.get_config_var("MULTIARCH") or "")
    for top in ("/usr/lib", "/usr/lib64"):
        target = f"{top}/{multiarch}" if top == "/usr/lib" and multiarch else top
        if os.path.isdir(target):
            args += ["--ro-bind", target, target]
    for top in ("/lib", "/lib64"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def bwrap_command(bwrap: str, runtime: Runtime, ctrl_fd: int, seccomp_fd: int,
                  tmpfs_bytes: int, job_filter: bytes = b"") -> list[str]:
    """argv for one slot: every namespace private, only the runtime and libraries visible; each job
    adds `job_filter` (seccomp.build_job_filter) once the runner has set it up."""
    args = [
        bwrap,
        "--unshare-all", "--unshare-user", "--disable-userns",
        "--die-with-parent", "--new-session", "--as-pid-1",
        "--cap-drop", "ALL",
        "--hostname", "sandbox",
        "--clearenv",
    ]
    for name, value in sandbox_env(f"{RUNTIME_MOUNT}/lib", WORKROOT).items():
        args += ["--setenv", name, value]
    args += ["--ro-bind", str(runtime.path), RUNTIME_MOUNT]
    args += _library_binds()
    args += [
        "--proc", "/proc",
        "--dev", "/dev",
        # bwrap's /dev is an uncapped tmpfs: read-only, it cannot be used to fill memory.
        "--remount-ro", "/dev",
        "--size", str(tmpfs_bytes), "--tmpfs", WORKROOT,
        "--remount-ro", "/",
        "--chdir", WORKROOT,
        "--seccomp", str(seccomp_fd),
        "--",
        f"{RUNTIME_MOUNT}/bin/{runtime.python_name}", "-S", "-s", "-B", "-P",
        f"{RUNTIME_MOUNT}/sandbox/zygote.py",
        "--ctrl", str(ctrl_fd), "--site", f"{RUNTIME_MOUNT}/site",
        "--workroot", WORKROOT, "--pidns", "1", "--jobfilter", job_filter.hex(),
    ]
    return args


def local_command(ctrl_fd: int, workroot: str) -> tuple[list[str], dict[str, str]]:
    """argv and env for GRADER_SANDBOX=unsafe-local: the same zygote, but no isolation."""
    import numpy

    site = str(Path(numpy.__file__).resolve().parent.parent)
    zygote = str(Path(__file__).resolve().parent / "zygote.py")
    argv = [sys.executable, "-S", "-s", "-B", "-P", zygote, "--ctrl", str(ctrl_fd),
            "--site", site, "--workroot", workroot, "--pidns", "0"]
    return argv, sandbox_env(None, workroot)
