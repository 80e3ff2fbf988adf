"""Practice with new numbers: a fresh variant of an exercise, checked but never stored as an attempt (what it
shows of the learner's skills is kept, for the learner model).

It opens once the learner is done with their own variant (solved, gave up, out of attempts, or past a
due date that leaves nothing to earn), the same moment its worked solution appears, so it can neither
earn a score nor reveal the learner's own answers early. Instructors can practise any exercise.

New numbers are a new token for the whole lesson: the signed seed is bound to the lesson, so the
lesson's other exercises (once open to practice) follow the same token. Seed 0 is the lesson page's
own example, offered as a worked warm-up.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from functools import lru_cache
from typing import Mapping

import sqlalchemy as sa
from itsdangerous import BadData, URLSafeSerializer

from grader.adaptive import evidence
from grader.adaptive.model import PRACTICE
from grader.answers.results import ExerciseResult
from grader.catalog.catalog import check_answers
from grader.catalog.spec import NUMERIC_KIND
from grader.catalog.variants import Variant, make_variant
from grader.extensions import db
from grader.models import PUBLISHED, Exercise, utcnow
from grader.services import attempts, mastery
from grader.services.attempts import CurrentVersion
from grader.services.courses import Seat
from grader.services.exercises import spec_of


_SALT = "practice-variant"
# A token's form, as the API document declares it: itsdangerous's URL-safe payload (with a leading dot when
# compressed), a dot and the signature. The longest lesson id with the largest seed stays well under TOKEN_MAX.
TOKEN_PATTERN = r"^\.?[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"
TOKEN_MAX = 200


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


def numbers_token(lesson: str, seed: int, secret: str) -> str:
    """A token naming practice numbers: the lesson and the seed, signed so nobody can choose the seed."""
    return URLSafeSerializer(secret, salt=_SALT).dumps(["lesson:" + lesson, seed])


def lesson_of(current: CurrentVersion) -> str:
    """The lesson a version belongs to (what practice tokens are bound to)."""
    return spec_of(current).lesson


def _seed_from_token(token: str, lesson: str, secret: str) -> int | None:
    """The seed a token made here for this lesson carries; None for any other token."""
    if len(token) > TOKEN_MAX or not re.fullmatch(TOKEN_PATTERN, token):
        return None  # not of the documented form: refused before any decoding
    try:
        bound, seed = URLSafeSerializer(secret, salt=_SALT).loads(token)
    except (BadData, TypeError, ValueError):
        return None
    return seed if bound == "lesson:" + lesson and type(seed) is int and seed >= 0 else None


def allowed(seat: Seat, exercise_id: str, early: bool = False) -> CurrentVersion:
    """The exercise's current version, once the learner has finished their own variant (any time when `early`).

    Raises exercises.UnknownExercise, attempts.NotOpen, attempts.CodeExercise or NotFinished, in that order.
    """
    current = attempts.open_version(seat, exercise_id, early)
    mine = attempts.progress_of(seat, exercise_id)
    if not early and not attempts.finished(mine, current.policy(), utcnow()):
        raise NotFinished(exercise_id)
    return current


def from_token(current: CurrentVersion, token: str, secret: str) -> Practice | None:
    """The practice variant a token names, of a version `allowed` returned; None for a token not made
    here for this exercise's lesson."""
    seed = _seed_from_token(token, lesson_of(current), secret)
    return None if seed is None else Practice(current, _practice_variant(current, seed))


# A cache of its own: practice numbers are shown, checked and reloaded a few times, then dropped,
# and in the shared variant cache they would push the learners' own variants out.
@lru_cache(maxsize=512)
def _practice_variant(current: CurrentVersion, seed: int) -> Variant:
    return make_variant(spec_of(current), seed)


@dataclass(frozen=True)
class Following:
    """The lesson's next exercise to practise, and the ones before it skipped as not finished yet."""

    exercise_id: str
    skipped: tuple[Exercise, ...]  # in lesson order; their titles say what the link passes over


def next_in_lesson(seat: Seat, current: CurrentVersion, early: bool = False) -> Following | None:
    """The lesson's next exercise after this one that the learner may practise now, if any, with those
    passed over because the learner has not finished them (not the ones not open yet: they are not shown)."""
    lesson = lesson_of(current)
    later = db.session.scalars(
        sa.select(Exercise).where(Exercise.lesson == lesson, Exercise.kind == NUMERIC_KIND, Exercise.status == PUBLISHED)
    ).all()
    here = next((e.position for e in later if e.id == current.exercise_id), None)
    skipped: list[Exercise] = []
    for exercise in sorted((e for e in later if here is None or (e.position, e.id) > (here, current.exercise_id)),
                           key=lambda e: (e.position, e.id)):  # fmt: skip
        try:
            allowed(seat, exercise.id, early)
        except NotFinished:
            skipped.append(exercise)
            continue
        except attempts.NotOpen:
            continue
        return Following(str(exercise.id), tuple(skipped))
    return None


def check(seat: Seat, practice: Practice, answers: Mapping[str, object]) -> ExerciseResult:
    """Check answers against a practice variant; no attempt is stored and no score changes, but what the answers
    show of the learner's skills is (grader.services.mastery), in one transaction: only the first check of each part
    on these numbers shows anything (a second, however the answer is spelt or changed, is no new opportunity).

    Unlike a counted attempt, a malformed field does not hide the other verdicts: there is no score
    to protect here.
    """
    typed = attempts.known_answers(practice.variant, answers)
    result = check_answers(practice.variant, typed)
    verdicts = {k: r.to_record() for k, r in result.parts.items()}
    shown = evidence.of_results(spec_of(practice.current), verdicts, utcnow(), PRACTICE)
    marks = {part: fingerprint(practice, part) for part in {o.part for o in shown} if part in typed}
    mastery.record_check(seat, practice.current.exercise_id, shown, marks)
    db.session.commit()
    return result


def fingerprint(practice: Practice, part: str) -> str:
    """What names one part of these practice numbers (exercise, version, seed), so that only its first check adds
    evidence: respelling an answer ("0.5", "0.50") or trying again on the same numbers is no new opportunity."""
    return hashlib.sha256(f"{practice.current.exercise_id}:{practice.current.version}:{practice.variant.seed}:{part}"
                          .encode("utf-8")).hexdigest()
