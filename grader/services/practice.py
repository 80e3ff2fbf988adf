"""Practice with new numbers: a fresh variant of an exercise, checked but never stored.

It opens once the learner is done with their own variant (solved, out of attempts, or past a due
date that leaves nothing to earn), the same moment its worked solution appears, so it can neither
earn a score nor reveal the learner's own answers early. Instructors can practise any exercise.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

from itsdangerous import BadData, URLSafeSerializer

from grader.answers.results import ExerciseResult
from grader.catalog.catalog import check_answers
from grader.catalog.variants import Variant, make_variant
from grader.models import utcnow
from grader.services import attempts
from grader.services.attempts import CurrentVersion
from grader.services.exercises import spec_of


_SALT = "practice-variant"


class NotFinished(PermissionError):
    """The learner has not finished their own variant yet."""


@dataclass(frozen=True)
class Practice:
    """A practice variant of the current version of an exercise."""

    current: CurrentVersion
    variant: Variant


def new_seed() -> int:
    """A random seed for a practice variant (never 0, like the learners' own seeds)."""
    return secrets.randbelow(2**31 - 1) + 1


def numbers_token(exercise_id: str, seed: int, secret: str) -> str:
    """A token naming a practice variant: the exercise and the seed, signed so nobody can choose the seed."""
    return URLSafeSerializer(secret, salt=_SALT).dumps([exercise_id, seed])


def _seed_from_token(token: str, exercise_id: str, secret: str) -> int | None:
    """The seed a token made here for this exercise carries; None for any other token."""
    try:
        bound, seed = URLSafeSerializer(secret, salt=_SALT).loads(token[:200])
    except (BadData, TypeError, ValueError):
        return None
    return seed if bound == exercise_id and type(seed) is int else None


def allowed(user_id: int, exercise_id: str, early: bool = False) -> CurrentVersion:
    """The exercise's current version, once the learner has finished their own variant (any time when `early`).

    Raises exercises.UnknownExercise, attempts.NotOpen, attempts.CodeExercise or NotFinished, in that order.
    """
    current = attempts.open_version(user_id, exercise_id, early)
    mine = attempts.progress_of(user_id, exercise_id)
    if not early and not attempts.finished(mine, current.policy(), utcnow()):
        raise NotFinished(exercise_id)
    return current


def from_token(current: CurrentVersion, token: str, secret: str) -> Practice | None:
    """The practice variant a token names, of a version `allowed` returned; None for a token not made
    here for this exercise."""
    seed = _seed_from_token(token, current.exercise_id, secret)
    return None if seed is None else Practice(current, _practice_variant(current, seed))


# A cache of its own: practice numbers are shown, checked and reloaded a few times, then dropped,
# and in the shared variant cache they would push the learners' own variants out.
@lru_cache(maxsize=512)
def _practice_variant(current: CurrentVersion, seed: int) -> Variant:
    return make_variant(spec_of(current), seed)


def check(practice: Practice, answers: Mapping[str, object]) -> ExerciseResult:
    """Check answers against a practice variant; nothing is stored.

    Unlike a counted attempt, a malformed field does not hide the other verdicts: there is no score
    to protect here.
    """
    return check_answers(practice.variant, attempts.known_answers(practice.variant, answers))
