"""A world-readable copy of the interpreter, its stdlib and numpy for the sandbox to bind.

The real interpreter lives under /root (mode 0700) and the sandbox runs as an unprivileged
uid, so it cannot read it there. Rather than loosening /root, the few things Python + numpy
need are copied once into a root-owned, content-addressed directory:

    /var/cache/grader-sandbox/<fingerprint>/
        bin/python3.X   lib/libpython3.X.so.1.0   lib/python3.X/ (stdlib, no test suites)
        site/numpy/   site/numpy.libs/   sandbox/{zygote,cputime,runner,outgoing,reasons,codec}.py

The fingerprint covers the interpreter, stdlib, numpy and the in-sandbox modules, so any
change yields a fresh directory. Old directories are left for the operator to delete,
because another process may still have one bound into a running sandbox.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .results import SandboxUnavailable

DEFAULT_CACHE = "/var/cache/grader-sandbox"
SANDBOX_MODULES = ("zygote.py", "cputime.py", "runner.py", "outgoing.py", "reasons.py", "codec.py")
# Test suites, GUI toolkits and installers: large, and nothing a numpy function needs.
SKIP_DIRS = frozenset({
    "test", "tests", "idle_test", "idlelib", "tkinter", "turtledemo", "ensurepip",
    "lib2to3", "site-packages", "__phello__",
})
SKIP_FILE_PREFIXES = ("_test", "_xx", "xxlimited", "_ctypes_test", "_tkinter")
COMPLETE_MARKER = ".complete"


@dataclass(frozen=True)
class Sources:
    """Where the pieces of the runtime come from on the host."""

    python: Path
    libpython: Path | None
    stdlib: Path
    numpy: Path
    numpy_libs: Path | None
    modules: tuple[Path, ...]

    @property
    def version(self) -> str:
        """The interpreter's major.minor version, as in python3.11."""
        return f"{sys.version_info.major}.{sys.version_info.minor}"


@dataclass(frozen=True)
class Runtime:
    """A built runtime directory and the paths the sandbox uses inside /runtime."""

    path: Path
    python_name: str
    build_seconds: float
    size_bytes: int


def cache_root() -> Path:
    """The cache directory: $GRADER_SANDBOX_CACHE or /var/cache/grader-sandbox."""
    return Path(os.environ.get("GRADER_SANDBOX_CACHE", DEFAULT_CACHE))


def find_sources() -> Sources:
    """Locate the running interpreter's binary, libpython, stdlib and numpy."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    python = Path(sys.base_prefix) / "bin" / f"python{version}"
    if not python.is_file():
        python = Path(os.path.realpath(sys.executable))
    libpython = None
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir = Path(str(sysconfig.get_config_var("LIBDIR")))
        libpython = libdir / str(sysconfig.get_config_var("INSTSONAME"))
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    spec = importlib.util.find_spec("numpy")
    if spec is None or spec.origin is None:
        raise SandboxUnavailable("numpy is not installed in the grader's environment")
    numpy_dir = Path(spec.origin).parent
    numpy_libs = numpy_dir.parent / "numpy.libs"
    here = Path(__file__).resolve().parent
    return Sources(
        python=python,
        libpython=libpython if libpython and libpython.is_file() else None,
        stdlib=stdlib,
        numpy=numpy_dir,
        numpy_libs=numpy_libs if numpy_libs.is_dir() else None,
        modules=tuple(here / name for name in SANDBOX_MODULES),
    )


def _skip(name: str, is_dir: bool) -> bool:
    if is_dir:
        return name in SKIP_DIRS or name.startswith("config-")
    return name.startswith(SKIP_FILE_PREFIXES)


def _walk(root: Path) -> list[tuple[str, os.stat_result]]:
    """Every file under `root` that the runtime keeps, with its stat, in a stable order."""
    found: list[tuple[str, os.stat_result]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not _skip(d, True))
        for name in sorted(filenames):
            if not _skip(name, False):
                full = os.path.join(dirpath, name)
                found.append((os.path.relpath(full, root), os.stat(full)))
    return found


def fingerprint(src: Sources) -> str:
    """A hash of everything copied (file names, sizes and mtimes, bytecode caches aside) and our module sources."""
    digest = hashlib.sha256(f"v1 {sys.version} {src.version}".encode())
    for path in (src.python, src.libpython):
        if path is not None:
            info = path.stat()
            digest.update(f"{path}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    for tree in (src.stdlib, src.numpy, src.numpy_libs):
        if tree is not None:
            digest.update(f"[{tree}]\n".encode())
            for rel, info in _walk(tree):
                # Bytecode the host writes on first import must not make a second copy of the same install.
                if "__pycache__" not in Path(rel).parts:
                    digest.update(f"{rel}:{info.st_size}:{info.st_mtime_ns}\n".encode())
    for module in src.modules:
        digest.update(module.read_bytes())
    return digest.hexdigest()[:20]


def _check_root(root: Path) -> None:
    """Create the cache root, refusing one that someone else could write to."""
    root.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = os.lstat(root)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise SandboxUnavailable(f"{root} must be a directory owned by uid {os.geteuid()}")
    if info.st_mode & 0o022:
        raise SandboxUnavailable(f"{root} is group- or world-writable; chmod 755 it")
    os.chmod(root, 0o755)


def _copy_tree(src: Path, dest: Path) -> None:
    def ignore(directory: str, names: list[str]) -> set[str]:
        base = Path(directory)
        return {n for n in names if _skip(n, (base / n).is_dir())}

    # copy2 keeps mtimes, so the copied __pycache__ files stay valid and imports stay fast.
    shutil.copytree(src, dest, ignore=ignore, symlinks=False)


def _publish_modes(top: Path) -> int:
    """Make the copy root-owned and read-only for everyone else; return its size in bytes."""
    total = 0
    for dirpath, _dirnames, filenames in os.walk(top):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            full = os.path.join(dirpath, name)
            info = os.lstat(full)
            executable = info.st_mode & 0o111
            os.chmod(full, 0o755 if executable else 0o644)
            total += info.st_size
    return total


def _build(src: Sources, dest: Path) -> None:
    (dest / "bin").mkdir(parents=True)
    shutil.copy2(src.python, dest / "bin" / f"python{src.version}")
    (dest / "lib").mkdir()
    if src.libpython is not None:
        shutil.copy2(src.libpython, dest / "lib" / src.libpython.name)
    _copy_tree(src.stdlib, dest / "lib" / f"python{src.version}")
    # numpy's extension modules find numpy.libs through RPATH $ORIGIN/../../numpy.libs,
    # so the two must stay siblings.
    _copy_tree(src.numpy, dest / "site" / "numpy")
    if src.numpy_libs is not None:
        _copy_tree(src.numpy_libs, dest / "site" / "numpy.libs")
    (dest / "sandbox").mkdir()
    for module in src.modules:
        shutil.copy2(module, dest / "sandbox" / module.name)


def _recorded_size(top: Path) -> int:
    fields = (top / COMPLETE_MARKER).read_text().split()
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


_built: dict[Path, Runtime] = {}
_built_lock = threading.Lock()


def ensure_runtime(root: Path | None = None) -> Runtime:
    """Return the runtime for this interpreter and numpy, building it first if needed."""
    root = root or cache_root()
    with _built_lock:
        # Fingerprinting stats a few thousand files; once per process is enough.
        known = _built.get(root)
        if known is None or not (known.path / COMPLETE_MARKER).is_file():
            _built[root] = known = _ensure(root)
        return known


def _ensure(root: Path) -> Runtime:
    src = find_sources()
    _check_root(root)
    final = root / fingerprint(src)
    python_name = f"python{src.version}"
    if (final / COMPLETE_MARKER).is_file():
        return Runtime(final, python_name, 0.0, _recorded_size(final))
    with open(root / ".lock", "a") as lock:
        # Several gunicorn workers may start at once; only one of them copies.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (final / COMPLETE_MARKER).is_file():
            return Runtime(final, python_name, 0.0, _recorded_size(final))
        started = time.perf_counter()
        staging = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
        try:
            _build(src, staging)
            size = _publish_modes(staging)
            (staging / COMPLETE_MARKER).write_text(f"{final.name} {size}\n")
            os.chmod(staging / COMPLETE_MARKER, 0o644)
            os.rename(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return Runtime(final, python_name, time.perf_counter() - started, size)
