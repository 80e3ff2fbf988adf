"""Importing a class into a course: how long the largest file allowed (5,000 rows) takes to check, to import
as new accounts, and to import again (everyone a member already), on a fresh SQLite file.

    .venv/bin/python benchmarks/course_import.py [--rows 5000] [--rounds 3]

Prints the least wall time of each step over the rounds and its ratio to checking the file alone (parsing
and the registration checks of every address: the floor of any import).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import create_app  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.services import accounts, courses, enrolment  # noqa: E402
from grader.services.enrolment_rows import read_csv  # noqa: E402


def class_file(rows: int, round_: int) -> bytes:
    """A semicolon CSV with a BOM, as Excel writes it in pt and ru: email, name, role (every tenth a TA)."""
    lines = ["email;name;role"] + [f"learner{round_}-{i}@example.edu;Learner {i};{'ta' if i % 10 == 0 else ''}"
                                   for i in range(rows)]  # fmt: skip
    return ("\ufeff" + "\n".join(lines) + "\n").encode()


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    best = {"check": float("inf"), "import": float("inf"), "again": float("inf")}
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"INSTANCE_PATH": folder, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{Path(folder) / 'b.db'}",
                          "TESTING": True, "RATELIMIT_ENABLED": False})  # fmt: skip
        with app.app_context():
            db.create_all()
            courses.ensure_default().open_enrolment = False
            for round_ in range(args.rounds):
                course = courses.create(f"bench-{round_}", "Benchmark")
                data = class_file(args.rows, round_)
                best["check"] = min(best["check"], timed(lambda: read_csv(data, accounts.new_email)))
                best["import"] = min(best["import"], timed(lambda: enrolment.import_file(course.id, data, None)))
                best["again"] = min(best["again"], timed(lambda: enrolment.import_file(course.id, data, None)))
            db.engine.dispose()
    print(f"{args.rows} rows, least of {args.rounds} rounds (SQLite)")
    for step, seconds in best.items():
        print(f"{step:>7}: {seconds:7.3f} s  ({seconds / best['check']:.2f}x checking)")


if __name__ == "__main__":
    main()
