"""What reading P(known) from a learner's own learning curve costs (grader/adaptive/curve.py), per skill and update.

An attempt's transaction reads the curve once per skill it touches, and a replay (a regrade, an override, a fit)
once per moment. This prints the processor time of one reading and of a whole replay for histories of growing
length, beside the baseline of BKT's own update folded over the same answers (what the model did before), all
measured in this run.

    .venv/bin/python benchmarks/learning_curve.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.adaptive import bkt, curve  # noqa: E402
from grader.adaptive.model import Observation, fresh, step  # noqa: E402

MOMENT = datetime(2026, 1, 1)

LENGTHS = (1, 10, 50, 200, 1000, 5000)  # opportunities, each with 1 to 3 answers


def history(length: int, draw: random.Random) -> list[list[bool]]:
    """A learner's answers at `length` opportunities, right about two times in three."""
    return [[draw.random() < 0.67 for _ in range(draw.randint(1, 3))] for _ in range(length)]


def replay(answers: list[list[bool]]) -> float:
    """A replay's cost: one reading per opportunity, as grader.adaptive.model.replay folds them."""
    state = fresh("s", bkt.DEFAULT)
    for k, opportunity in enumerate(answers):
        state = step(state, [Observation("s", right, MOMENT) for right in opportunity], bkt.DEFAULT, answers[:k])
    return state.p_known


def bkt_fold(answers: list[list[bool]]) -> float:
    """The baseline: BKT's update over every answer, from the course's start."""
    p = bkt.DEFAULT.prior
    for opportunity in answers:
        for right in opportunity:
            p = bkt.update(p, right, bkt.DEFAULT)
    return p


def cost_ms(read: Callable[[list[list[bool]]], float], answers: list[list[bool]], repeat: int) -> float:
    """Median processor time of one reading, in milliseconds."""
    times = []
    for _ in range(repeat):
        started = time.thread_time()
        read(answers)
        times.append(time.thread_time() - started)
    return sorted(times)[len(times) // 2] * 1000


def main() -> None:
    """Print one row per history length."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    draw = random.Random(30)
    print(f"{'opportunities':>13} {'answers':>8} {'curve ms':>9} {'BKT fold ms':>12} {'ratio':>7} {'replay ms':>10}")
    for length in LENGTHS:
        answers = history(length, draw)
        mine = cost_ms(lambda a: curve.p_known(a, bkt.DEFAULT), answers, args.repeat)
        base = cost_ms(bkt_fold, answers, args.repeat)
        whole = cost_ms(replay, answers, 1) if length <= 1000 else float("nan")
        print(f"{length:>13} {sum(map(len, answers)):>8} {mine:>9.2f} {base:>12.3f} {mine / max(base, 1e-6):>7.1f} "
              f"{whole:>10.0f}")
    print(f"(the curve reads at most the latest {curve.MAX_OPPORTUNITIES} opportunities; processor time, median of "
          f"{args.repeat})")


if __name__ == "__main__":
    main()
