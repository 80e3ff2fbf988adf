"""Regrading an exercise, against grading the same attempts with no database, in the same run.

Builds the app on a fresh SQLite file, stores a copy of block-residual with a tight tolerance,
and has LEARNERS learners each make ATTEMPTS near-miss attempts (graded incorrect). Then a new
version loosens the tolerance and `regrade` grades them all again. The baseline is the grading
alone: the same attempts' variants built and answers checked in memory, with nothing stored. The
regrade commits one learner at a time, so SQLite's write lock is held for one learner's attempts
at once; the mean per learner is printed too.

    .venv/bin/python benchmarks/regrade.py [--learners 200] [--attempts 25]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402
from flask import Flask  # noqa: E402

from grader import create_app  # noqa: E402
from grader.catalog.catalog import check_answers  # noqa: E402
from grader.catalog.variants import make_variant  # noqa: E402
from grader.extensions import db  # noqa: E402
from grader.models import Attempt, User  # noqa: E402
from grader.services.courses import default_seat  # noqa: E402
from grader.services import attempts  # noqa: E402
from grader.services.exercises import parse_source, save_source  # noqa: E402
from grader.services.regrade import regrade  # noqa: E402

RESIDUAL = (ROOT / "exercises" / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")


def version(tolerance: str) -> str:
    """block-residual as `quiz` with the given tolerance."""
    return RESIDUAL.replace("id: block-residual", "id: quiz").replace("tolerance: {abs: 0.0005}", f"tolerance: {tolerance}")


def fill(app: Flask, learners: int, per_learner: int) -> float:
    """Store the attempts (each a near miss under the tight tolerance); returns seconds taken."""
    rng = random.Random(7)
    started = time.perf_counter()
    with app.app_context():
        save_source(version("{abs: 0.0005}"), None, "web")
        users = [User(email=f"l{i}@example.com", password_hash="-") for i in range(learners)]
        db.session.add_all(users)
        db.session.commit()
        for user in users:
            target = attempts.learner_variant(default_seat(user.id), "quiz")[1].part("h").target.exact
            for _ in range(per_learner):
                typed = "[" + "; ".join(f"{v + rng.choice((-1, 1)) * rng.uniform(0.001, 0.004):.3f}" for v in target) + "]"
                attempts.submit(default_seat(user.id), "quiz", {"h": typed})
    return time.perf_counter() - started


def grading_only(app: Flask) -> tuple[int, float]:
    """Grade every stored attempt against the loosened spec in memory; returns the count and seconds."""
    spec = parse_source(version("{abs: 0.005}"))
    with app.app_context():
        rows = db.session.execute(sa.select(Attempt.seed, Attempt.answers)).all()
    started = time.perf_counter()
    variants: dict[int, object] = {}
    for seed, answers in rows:
        variant = variants[seed] if seed in variants else variants.setdefault(seed, make_variant(spec, seed))
        check_answers(variant, answers)  # type: ignore[arg-type]
    return len(rows), time.perf_counter() - started


def main() -> int:
    """Fill, regrade, and print both rates and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=200)
    parser.add_argument("--attempts", type=int, default=25)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="grader-regrade-"))
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{work / 'regrade.db'}", "SECRET_KEY": "r" * 64,
                      "RATELIMIT_ENABLED": False, "INSTANCE_PATH": str(work)})  # fmt: skip
    with app.app_context():
        db.create_all()
    filled = fill(app, args.learners, args.attempts)
    count, graded = grading_only(app)
    with app.app_context():
        save_source(version("{abs: 0.005}"), None, "web")
        started = time.perf_counter()
        done = regrade("quiz")
        took = time.perf_counter() - started
    print(f"attempts: {count} by {len(done.learners)} learners (stored one by one in {filled:.1f} s, "
          f"{count / filled:.0f}/s)")  # fmt: skip
    print(f"grading only, no database:  {count / graded:8.0f} attempts/s  ({graded:.2f} s)")
    print(f"regrade:                    {count / took:8.0f} attempts/s  ({took:.2f} s; "
          f"{1000 * took / len(done.learners):.1f} ms per learner's transaction)")  # fmt: skip
    print(f"regrade / grading only: {graded / took:.2f}; scores changed: {done.changed}; kept: {len(done.kept)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
