"""The runtime copy's fingerprint: one copy per install, however often the host writes bytecode."""

from __future__ import annotations

import os
from pathlib import Path

from grader.sandbox.runtime import Sources, fingerprint


def fake_install(root: Path) -> Sources:
    for name in ("bin/python3.11", "stdlib/os.py", "numpy/__init__.py", "module.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    return Sources(python=root / "bin/python3.11", libpython=None, stdlib=root / "stdlib", numpy=root / "numpy",
                   numpy_libs=None, modules=(root / "module.py",))  # fmt: skip


def test_bytecode_written_after_the_copy_does_not_change_the_fingerprint(tmp_path: Path) -> None:
    install = fake_install(tmp_path)
    before = fingerprint(install)
    (tmp_path / "numpy/__pycache__").mkdir()
    (tmp_path / "numpy/__pycache__/__init__.cpython-311.pyc").write_bytes(b"\x00" * 64)
    assert fingerprint(install) == before


def test_a_changed_source_file_does_change_it(tmp_path: Path) -> None:
    install = fake_install(tmp_path)
    before = fingerprint(install)
    (tmp_path / "numpy/linalg.py").write_text("added")
    assert fingerprint(install) != before
    after_add = fingerprint(install)
    os.utime(tmp_path / "stdlib/os.py", ns=(1, 1))
    assert fingerprint(install) != after_add
    (tmp_path / "module.py").write_text("our sandbox module, edited")
    assert fingerprint(install) not in (before, after_add)
