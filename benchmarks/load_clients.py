"""The simulated learners of benchmarks/load.py: what each one sends, and the threads that send it."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

# Run from load.py as a script, so benchmarks/ is on sys.path.
from load_stack import request

KINDS = ("api", "page", "attempt", "code", "poll")
DEFAULT_WEIGHTS = "api=25,page=20,attempt=35,code=10,poll=10"
CODE = "code-layer-norm"
NUMERIC = {  # exercise -> answer parts and their shapes (None: a scalar)
    "block-residual": {"h": 4},
    "block-gelu": {"neg": None, "pos": None},
    "block-mlp": {"m": 4},
    "block-layernorm": {"mu": None, "sigma": None, "u": 4},
}
GOOD = """import numpy as np

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta
"""
WRONG = GOOD.replace("np.sqrt(var + eps)", "np.sqrt(var)")


@dataclass(frozen=True)
class Sample:
    """One request as the client saw it (times from time.monotonic())."""

    kind: str
    sent: float
    answered: float
    status: int | None

    @property
    def ms(self) -> float:
        return (self.answered - self.sent) * 1000.0


@dataclass
class Stats:
    samples: list[Sample] = field(default_factory=list)
    code_answered: Counter[str] = field(default_factory=Counter)  # status in the 201 body: graded / pending
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sample: Sample) -> None:
        with self.lock:
            self.samples.append(sample)

    def created(self, kind: str) -> int:
        return sum(1 for s in self.samples if s.kind == kind and s.status == 201)


@dataclass
class Learner:
    email: str
    token: str
    session: str = ""
    submissions: list[int] = field(default_factory=list)
    sent: int = 0


def random_answers(rng: random.Random, exercise: str) -> dict[str, str]:
    def value(size: int | None) -> str:
        one = lambda: f"{rng.uniform(-3, 3):.3f}"  # noqa: E731
        return one() if size is None else "[" + "; ".join(one() for _ in range(size)) + "]"

    return {part: value(size) for part, size in NUMERIC[exercise].items()}


def act(kind: str, learner: Learner, port: int, rng: random.Random, stats: Stats) -> None:
    """Send one request of this kind for the learner and record it."""
    api = {"Authorization": f"Bearer {learner.token}"}
    if kind == "poll" and not learner.submissions:
        kind = "api"
    started = time.monotonic()
    if kind == "api":
        reply = request(port, "GET", f"/api/v1/exercises/{rng.choice([*NUMERIC, CODE])}", api)
    elif kind == "page":
        page = f"/exercises/{rng.choice([*NUMERIC, CODE])}"
        reply = request(port, "GET", page, {"Cookie": f"session={learner.session}"})
    elif kind == "attempt":
        exercise = rng.choice(list(NUMERIC))
        body = json.dumps({"answers": random_answers(rng, exercise)}).encode()
        reply = request(port, "POST", f"/api/v1/exercises/{exercise}/attempts",
                        {**api, "Content-Type": "application/json"}, body)  # fmt: skip
    elif kind == "code":
        learner.sent += 1
        source = (GOOD if rng.random() < 0.5 else WRONG) + f"# {learner.email} try {learner.sent}\n"
        body = json.dumps({"source": source}).encode()
        reply = request(port, "POST", f"/api/v1/exercises/{CODE}/submissions",
                        {**api, "Content-Type": "application/json"}, body)  # fmt: skip
    else:
        reply = request(port, "GET", f"/api/v1/submissions/{learner.submissions[-1]}", api)
    stats.add(Sample(kind, started, time.monotonic(), reply.status))
    if kind == "code" and reply.status == 201:
        answer = json.loads(reply.body)
        learner.submissions.append(answer["submission_id"])
        with stats.lock:
            stats.code_answered[answer["status"]] += 1


def run_learners(learners: list[Learner], port: int, seconds: float, think: float,
                 pick: Callable[[random.Random], str], stats: Stats) -> float:  # fmt: skip
    """One thread per learner until the time is up; returns when they started (time.monotonic())."""
    stop = threading.Event()

    def learner_loop(index: int) -> None:
        rng = random.Random(index * 7919 + 1)
        time.sleep(rng.uniform(0, 0.5))  # do not all start in the same millisecond
        while not stop.is_set():
            act(pick(rng), learners[index], port, rng, stats)
            if think > 0:
                stop.wait(rng.expovariate(1.0 / think))

    return run_threads([lambda i=i: learner_loop(i) for i in range(len(learners))], stop, seconds, 180)


def run_threads(targets: list[Callable[[], None]], stop: threading.Event, seconds: float, join: float) -> float:
    """Start one thread per target, let them run for `seconds`, stop and join; returns the start time."""
    threads = [threading.Thread(target=target, daemon=True) for target in targets]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    stop.wait(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=join)
    return started


def weights_from(text: str) -> dict[str, float]:
    weights = {k: 0.0 for k in KINDS}
    for item in text.split(","):
        name, _, value = item.partition("=")
        if name.strip() not in weights:
            raise SystemExit(f"--weights: unknown kind {name!r}; kinds are {', '.join(KINDS)}")
        weights[name.strip()] = float(value)
    return weights
