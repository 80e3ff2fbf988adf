"""What loading the shipped catalogue into an empty database costs: the first sync in a process, which parses
every file (YAML, then each text's Markdown and LaTeX), against a later one, which finds each file's spec
already parsed (grader.codecheck.spec caches the frozen spec by its text). The suite makes a fresh database
per test and `flask exercises sync` re-reads every file, so the later figure is what they pay.

Each run syncs into a new SQLite file (tables made first, not timed). The raw baseline is creating the
same tables and inserting the same number of exercise and version rows with plain SQL, in the same run.

    .venv/bin/python benchmarks/sync.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa  # noqa: E402

from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.models import Exercise, ExerciseVersion  # noqa: E402
from grader.services.sync import sync_directory  # noqa: E402


def one_sync(directory: Path) -> tuple[float, int]:
    """Milliseconds to sync the catalogue into a fresh database, and how many exercises it stored."""
    directory.mkdir(parents=True)
    app = create_app({"INSTANCE_PATH": str(directory / "instance"), "TESTING": True,
                      "SQLALCHEMY_DATABASE_URI": f"sqlite:///{directory / 'sync.db'}"})  # fmt: skip
    with app.app_context():
        db.create_all()
        start = time.perf_counter()
        report = sync_directory(app.config["EXERCISES_DIR"])
        elapsed = (time.perf_counter() - start) * 1000
        db.engine.dispose()
    return elapsed, len(report.created)


def raw_inserts(directory: Path, count: int) -> float:
    """Milliseconds to insert `count` exercises and their first versions with plain SQL: the floor."""
    directory.mkdir(parents=True)
    engine = sa.create_engine(f"sqlite:///{directory / 'raw.db'}")
    db.metadata.create_all(engine)  # every table, as the sync's database has them (not timed)
    start = time.perf_counter()
    with engine.begin() as connection:
        for i in range(count):
            connection.execute(sa.insert(Exercise.__table__).values(
                id=f"e{i}", lesson="l", title="t", position=i, kind="numeric", current_version=1,
                latest_version=1, status="published", origin="file"))  # fmt: skip
            connection.execute(sa.insert(ExerciseVersion.__table__).values(
                exercise_id=f"e{i}", version=1, source="x" * 4000, source_hash="h"))  # fmt: skip
    engine.dispose()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    """Print the first sync, the median of the later ones, and both against the raw baseline."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        first, count = one_sync(Path(root) / "first")
        later = [one_sync(Path(root) / f"run{i}")[0] for i in range(args.repeat)]
        raw = statistics.median(raw_inserts(Path(root) / f"raw{i}", count) for i in range(args.repeat))
    median = statistics.median(later)
    print(f"exercises synced: {count}")
    print(f"first sync in a process (every file parsed): {first:8.1f} ms  ({first / raw:5.1f}× raw)")
    print(f"later syncs, median of {args.repeat} (specs cached): {median:8.1f} ms  ({median / raw:5.1f}× raw)")
    print(f"raw baseline (plain INSERTs of as many rows):  {raw:8.1f} ms")
    print(f"first / later: {first / median:.1f}×")


if __name__ == "__main__":
    main()
