"""`flask repair` (grader.wrong_parts.repair) on a class built by benchmarks/class_build.py.

Three runs on one database: with nothing to repair (every attempt's rows right, as after a proper
upgrade), after deleting every wrong_parts row (an older release served all of it), and the first
again, as a ratio. The migration that first filled the table (ddbbbb078bd7) did the second job at
416,000 attempts in 40 s on SQLite; this prints attempts per second to compare.

    .venv/bin/python benchmarks/repair.py [--learners 200] [--attempts 8] [--postgres URL]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from class_build import prepare  # noqa: E402

from grader.wrong_parts import repair  # noqa: E402


def _timed(engine: sa.Engine) -> tuple[float, int]:
    start = time.perf_counter()
    changed = repair(engine)
    return time.perf_counter() - start, changed


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--attempts", type=int, default=8)
    parser.add_argument("--postgres", help="an empty PostgreSQL database to use instead of a SQLite file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.postgres or f"sqlite:///{Path(folder) / 'class.db'}"
        counts = prepare(url, args.learners, args.attempts)
        engine = sa.create_engine(url)
        attempts = counts["attempts"]
        clean, none = _timed(engine)
        with engine.begin() as connection:
            connection.execute(sa.text("DELETE FROM wrong_parts"))
        lost, changed = _timed(engine)
        print(f"{attempts:,} attempts by {counts['learners']} learners on {url.split(':')[0]}")
        print(f"nothing to repair:   {clean:6.2f} s, {none} changed, {attempts / clean:,.0f} attempts/s")
        print(f"every row missing:   {lost:6.2f} s, {changed:,} changed, {attempts / lost:,.0f} attempts/s "
              f"({lost / clean:.2f}x nothing to repair; the migration: 416,000 in 40 s, 10,400/s)")  # fmt: skip
        engine.dispose()


if __name__ == "__main__":
    main()
