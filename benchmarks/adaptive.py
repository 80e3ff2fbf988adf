"""Does adaptive practice help? Simulated learners under three tutors, through the JSON API of a real gunicorn.

Each simulated learner has hidden knowledge per skill (BKT's parameters drawn per learner and skill, learning
at each attempt that practises a skill, forgetting over simulated days, a chance per named mistake: the
model is in adaptive_model.py and docs/development/adaptive-benchmark.md). The same learners (same seed)
work under three tutors, on one fresh database, each tutor with a course and accounts of its own:

- adaptive: whatever GET /api/v1/practice/next chooses;
- fixed: the course's exercises in order, each on the learner's own numbers until finished, then practice
  numbers for each in the same order, round after round;
- random: a random exercise each time, its own numbers first while unfinished, else practice numbers.

Every answer is graded and stored by the service; the tutors see only what it stores. Only numeric
exercises whose parameters the API shows in full are simulated (the learner's answers are worked out from
them); code exercises would need the sandbox queue. A run stops when the learner masters every skill (each
skill's hidden knowledge probability above 0.95) or after --max-attempts attempts; each tutor's line gives
the attempts to mastery and the fraction of learners at mastery within 200 attempts.

    .venv/bin/python benchmarks/adaptive.py [--learners 6] [--seed 33] [--max-attempts 1000] [--postgres ADMIN_URL]

The last line is `adaptive/fixed attempts to mastery: R`, the ratio of the mean attempts to mastery.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# Run as a script, so benchmarks/ is on sys.path.
import adaptive_model as model  # noqa: E402
from adaptive_tutors import STOP, TUTORS, Api, Refused, Run  # noqa: E402
from load_stack import PYTHON, ROOT, Processes, create_database, flask, free_port, listening, wait_until  # noqa: E402

from grader.catalog.lessons import exercise_order  # noqa: E402
from grader.catalog.loader import load_specs  # noqa: E402
from grader.catalog.spec import ExerciseSpec  # noqa: E402
from grader.catalog.variants import make_variant  # noqa: E402

PASSWORD = "adaptive benchmark password"
WITHIN = 200  # the horizon: the fraction of learners at mastery within this many attempts
PARALLEL = 4  # learners simulated at once (each one request at a time)


@dataclass(frozen=True)
class Outcome:
    """One learner under one tutor: attempts when mastery was reached (None: never), attempts and requests made."""

    reached: int | None
    attempts: int
    requests: int
    weakest: float  # the hidden knowledge probability of the learner's weakest skill at the end


def simulated(specs: list[ExerciseSpec]) -> tuple[list[ExerciseSpec], dict[str, str]]:
    """The exercises a simulated learner can answer, in lesson order, and why each other one is left out."""
    chosen, left_out = [], {}
    for spec in sorted(specs, key=lambda s: exercise_order(s.lesson, s.position, s.id)):
        hidden = [name for name, p in spec.params.items() if not p.show]
        if hidden:
            left_out[spec.id] = f"the API does not show {', '.join(hidden)}, so its numbers cannot be read back"
        elif not all(model.part_skills(spec).values()):
            left_out[spec.id] = "a part has no skill"
        else:
            chosen.append(spec)
    return chosen, left_out


def prepare(env: dict[str, str], exercises: list[str], learners: int) -> dict[str, list[str]]:
    """Migrate, sync the exercises, and make per tutor a course and its learners; returns their API tokens."""
    flask(env, "db", "upgrade")
    flask(env, "exercises", "sync")
    script = (
        "from grader import create_app\nfrom grader.services import accounts, api_tokens, courses\n"
        "from grader.services.course_content import use_exercises\napp = create_app()\n"
        "with app.app_context():\n"
        f"    for tutor in {list(TUTORS)!r}:\n"
        "        course = courses.create(f'sim-{tutor}', f'Simulated learners, {tutor} tutor')\n"
        f"        use_exercises(course.id, {exercises!r})\n"
        f"        for i in range({learners}):\n"
        f"            user = accounts.create_user(f'sim-{{tutor}}-{{i}}@example.com', {PASSWORD!r}, 'learner')\n"
        "            courses.add_member(course, user, 'learner')\n"
        "            print(tutor, api_tokens.create_token(user, 'adaptive benchmark'))\n"
    )
    done = subprocess.run([PYTHON, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"making the learners failed:\n{done.stderr}")
    tokens: dict[str, list[str]] = {tutor: [] for tutor in TUTORS}
    for line in done.stdout.splitlines():
        tutor, token = line.split()
        tokens[tutor].append(token)
    return tokens


@contextmanager
def service(postgres: str | None, exercises: list[str], learners: int) -> Iterator[tuple[int, dict[str, list[str]]]]:
    """A fresh database with the courses and learners, served by gunicorn; yields its port and the tokens."""
    with tempfile.TemporaryDirectory(prefix="grader-adaptive-") as directory:
        work = Path(directory)
        url, drop = create_database(postgres) if postgres else (f"sqlite:///{work / 'grader.db'}", lambda: None)
        port, processes = free_port(), Processes(work)
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "s" * 64,
               "GRADER_RATELIMIT_ENABLED": "false", "GRADER_RATELIMIT_STORAGE": "memory://",
               "GRADER_BIND": f"127.0.0.1:{port}", "GRADER_LOG_LEVEL": "warning",
               "GRADER_ACCESS_LOG": str(work / "access.log")}  # fmt: skip
        try:
            tokens = prepare(env, exercises, learners)
            processes.start("gunicorn", [PYTHON, "-m", "gunicorn", "-c", str(ROOT / "gunicorn.conf.py"), "--pythonpath",
                                         str(ROOT / "benchmarks"), "sim_clock:app"],
                            env)  # fmt: skip
            wait_until(lambda: listening(port), 60, "gunicorn")
            yield port, tokens
        finally:
            processes.stop_all()
            drop()


def one_learner(tutor: str, api: Api, index: int, args: argparse.Namespace, specs: dict[str, ExerciseSpec],
                order: list[str], traits: model.Traits) -> Outcome:  # fmt: skip
    """Learner `index` under one tutor, from no attempts to mastery or the attempt limit."""
    run = Run(api, model.Learner.start(traits, args.seed, index), specs, args.max_attempts)
    api.days = run.learner.day  # the service's clock follows the learner's days
    TUTORS[tutor](run, order, random.Random(f"{args.seed}/tutor/{tutor}/{index}"))
    return Outcome(run.reached, run.learner.attempts, run.api.requests, min(run.learner.known.values()))


def run_tutor(tutor: str, port: int, tokens: list[str], args: argparse.Namespace, specs: dict[str, ExerciseSpec],
              order: list[str], traits: list[model.Traits]) -> list[Outcome] | str:  # fmt: skip
    """Every learner under one tutor, in the tutor's own course; or why the tutor is not available."""
    apis = [Api(port, token, f"sim-{tutor}") for token in tokens]
    if tutor == "adaptive":
        status, body = Api(port, tokens[0], f"sim-{tutor}").call("GET", "/practice/next")
        if status != 200:
            return f"GET /api/v1/practice/next answered {status} {body}"
    job: Callable[[int], Outcome] = lambda i: one_learner(tutor, apis[i], i, args, specs, order, traits[i])
    with ThreadPoolExecutor(PARALLEL) as pool:
        return list(pool.map(job, range(args.learners)))


def to_mastery(outcomes: list[Outcome], limit: int) -> list[int]:
    """Attempts to mastery per learner; one who never reached it counts as `limit` (a lower bound)."""
    return [o.reached if o.reached is not None else limit for o in outcomes]


def print_parameters(args: argparse.Namespace, chosen: list[ExerciseSpec], left_out: dict[str, str],
                     skills: list[str]) -> None:  # fmt: skip
    print(f"seed {args.seed}, {args.learners} learners, at most {args.max_attempts} attempts each, "
          f"{'PostgreSQL' if args.postgres else 'SQLite'}, gunicorn")
    print(f"model: P(L0) ~ U{model.PRIOR}, P(T) ~ U{model.LEARN}, guess ~ U{model.GUESS}, slip ~ U{model.SLIP} "
          f"per learner and skill; each named mistake ~ U{model.MISTAKE} per learner; forgetting tau "
          f"{model.FORGET_DAYS} days, {model.ATTEMPTS_PER_DAY} attempts a day; mastery: every skill > {model.MASTERED}")
    print(f"{len(chosen)} exercises simulated: {', '.join(s.id for s in chosen)}")
    for exercise, why in left_out.items():
        print(f"  left out {exercise}: {why}")
    print(f"{len(skills)} skills: {', '.join(skills)}")


def print_tutor(name: str, outcomes: list[Outcome] | str, limit: int, seconds: float, note: str = "") -> float | None:
    """One tutor's figures; returns its mean attempts to mastery (None when not available)."""
    if isinstance(outcomes, str):
        print(f"{name:<9} not available: {outcomes}")
        return None
    counts = to_mastery(outcomes, limit)
    reached = [o.reached for o in outcomes if o.reached is not None]
    among = f"{statistics.mean(reached):.1f}" if reached else "-"
    within = sum(1 for o in outcomes if o.reached is not None and o.reached <= WITHIN)
    print(f"{name:<9} attempts to mastery: median {statistics.median(counts):.1f}, mean {statistics.mean(counts):.1f} "
          f"(never reached counted as {limit}); reached within {WITHIN}: {within}/{len(outcomes)} "
          f"= {within / len(outcomes):.2f}; within {limit}: {len(reached)}/{len(outcomes)} (mean among them {among}); "
          f"weakest skill's p at the end: mean {statistics.mean(o.weakest for o in outcomes):.2f}; "
          + (note or f"{sum(o.requests for o in outcomes)} requests in {seconds:.0f} s"))  # fmt: skip
    return statistics.mean(counts)


def stop(*_: object) -> None:
    """On SIGTERM: end the learners' runs, then the servers, on the way out."""
    STOP.set()
    sys.exit(143)


def main() -> int:
    """Simulate, print the parameters and figures, and end with the adaptive/fixed ratio."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--learners", type=int, default=6)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--max-attempts", type=int, default=1000,
                        help="a learner stops here if not at mastery (counted as this many: a lower bound)")
    parser.add_argument("--postgres", metavar="ADMIN_URL", help="run the service on new databases on this server")
    parser.add_argument("--tutors", default="fixed,random,adaptive",
                        help="the tutors to run, comma-separated (R needs fixed and adaptive)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, stop)
    specs, problems = load_specs(ROOT / "exercises")
    if problems:
        raise SystemExit(f"the exercise files do not load: {problems[0]}")
    chosen, left_out = simulated(specs)
    skills = sorted({s for spec in chosen for ids in model.part_skills(spec).values() for s in ids})
    mistakes = sorted({m.name for spec in chosen for part in spec.parts for m in part.misconceptions})
    traits = [model.draw_traits(args.seed, i, skills, mistakes) for i in range(args.learners)]
    print_parameters(args, chosen, left_out, skills)
    started, means = time.monotonic(), {}
    exercises = [(spec, make_variant(spec, 1)) for spec in chosen]
    learners = [model.Learner.start(traits[i], args.seed, i) for i in range(args.learners)]
    oracle = [Outcome(model.oracle(one, exercises, args.max_attempts), one.attempts, 0, min(one.known.values()))
              for one in learners]  # fmt: skip
    print_tutor("oracle", oracle, args.max_attempts, 0.0, "in-process, sees the hidden state: the exercise of the "
                "weakest skill each time; a bound, not a tutor")
    by_id, order = {s.id: s for s in chosen}, [s.id for s in chosen]
    with service(args.postgres, order, args.learners) as (port, tokens):
        print(f"service ready after {time.monotonic() - started:.0f} s")
        for tutor in [t for t in ("fixed", "random", "adaptive") if t in args.tutors.split(",")]:
            began = time.monotonic()
            outcomes = run_tutor(tutor, port, tokens[tutor], args, by_id, order, traits)
            means[tutor] = print_tutor(tutor, outcomes, args.max_attempts, time.monotonic() - began)
    print(f"run time {time.monotonic() - started:.0f} s")
    adaptive, fixed = means.get("adaptive"), means.get("fixed")
    ratio = f"{adaptive / fixed:.2f}" if adaptive is not None and fixed else "n/a (adaptive not available)"
    print(f"adaptive/fixed attempts to mastery: {ratio}")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except Refused as error:
        raise SystemExit(f"the service refused a simulated learner: {error}") from None
