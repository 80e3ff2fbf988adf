"""Submitting an attempt: grade against the learner's own variant, store it and its progress together.

Order matters for concurrency. Grading reads only; then one transaction starts with the write that
locks the learner's progress row (an UPDATE, so SQLite takes its write lock first and PostgreSQL
locks the row), and everything that decides the attempt's number, duplicates and the attempt limit
is read under that lock. The attempt and its progress are committed together, before any response.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Literal, Mapping

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from grader.answers.results import ExerciseResult
from grader.catalog.catalog import check_answers
from grader.catalog.variants import Variant
from grader.extensions import db
from grader.models import Attempt, ExerciseVersion, Progress, Variant as VariantRow
from grader.services import progress
from grader.services.exercises import current_version, spec_of, variant_of

Outcome = Literal["graded", "invalid", "repeat", "closed"]


class UnknownExercise(LookupError):
    """No exercise with that id."""


class CodeExercise(LookupError):
    """The exercise takes code, not typed answers."""


@dataclass(frozen=True)
class Submitted:
    """What happened to a submitted answer."""

    outcome: Outcome
    result: ExerciseResult
    attempt: Attempt | None
    attempts_left: int | None


def seed_for(user_id: int, exercise_id: str) -> int:
    """The learner's stable seed for an exercise, made on first use."""
    row = db.session.scalar(sa.select(VariantRow).where(VariantRow.user_id == user_id, VariantRow.exercise_id == exercise_id))
    if row is not None:
        return row.seed
    db.session.add(VariantRow(user_id=user_id, exercise_id=exercise_id, seed=secrets.randbelow(2**31 - 1) + 1))
    try:
        db.session.commit()
    except IntegrityError:  # another request made it first
        db.session.rollback()
    return db.session.scalar(
        sa.select(VariantRow.seed).where(VariantRow.user_id == user_id, VariantRow.exercise_id == exercise_id)
    )


def learner_variant(user_id: int, exercise_id: str) -> tuple[ExerciseVersion, Variant]:
    """The current version of an exercise and the learner's variant of it."""
    stored = current_version(exercise_id)
    if stored is None:
        raise UnknownExercise(exercise_id)
    if stored.exercise.kind == "code":
        raise CodeExercise(exercise_id)
    return stored, variant_of(stored, seed_for(user_id, exercise_id))


def answers_digest(answers: Mapping[str, str]) -> str:
    """A hash of the answers as typed (whitespace at the ends ignored), for spotting repeats."""
    canonical = json.dumps({k: v.strip() for k, v in sorted(answers.items())}, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def attempts_left(max_attempts: int | None, used: int) -> int | None:
    """Attempts remaining under the exercise's limit (None when unlimited)."""
    return None if max_attempts is None else max(0, max_attempts - used)


def _previous(user_id: int, exercise_id: str, version: int, digest: str) -> Attempt | None:
    return db.session.scalar(
        sa.select(Attempt).where(Attempt.user_id == user_id, Attempt.exercise_id == exercise_id,
                                 Attempt.version == version, Attempt.answers_hash == digest)
    )  # fmt: skip


def _record(user_id: int, stored: ExerciseVersion, variant: Variant, answers: Mapping[str, str],
            result: ExerciseResult) -> Submitted:  # fmt: skip
    spec = spec_of(stored)
    mine = progress.lock(user_id, stored.exercise_id)
    digest = answers_digest(answers)
    previous = _previous(user_id, stored.exercise_id, stored.version, digest)
    if previous is not None:
        db.session.rollback()
        return Submitted("repeat", result, previous, attempts_left(spec.max_attempts, mine.attempts_used))
    if spec.max_attempts is not None and mine.attempts_used >= spec.max_attempts:
        db.session.rollback()
        return Submitted("closed", result, None, 0)
    number, score = progress.credit(mine, result.score, spec.penalty)
    attempt = Attempt(
        user_id=user_id, exercise_id=stored.exercise_id, version=stored.version, seed=variant.seed,
        number=number, answers=dict(answers), parsed={k: r.value for k, r in result.parts.items()},
        results={k: r.to_json() for k, r in result.parts.items()}, raw_score=result.score, score=score,
        answers_hash=digest,
    )  # fmt: skip
    db.session.add(attempt)
    db.session.commit()
    return Submitted("graded", result, attempt, attempts_left(spec.max_attempts, number))


def submit(user_id: int, exercise_id: str, answers: Mapping[str, str]) -> Submitted:
    """Grade answers against the learner's variant; store counted attempts durably before returning."""
    stored, variant = learner_variant(user_id, exercise_id)
    known = {p.spec.id for p in variant.parts}
    answers = {k: v for k, v in answers.items() if k in known and isinstance(v, str)}
    result = check_answers(variant, answers)
    if not result.counted:
        mine = progress_of(user_id, exercise_id)
        left = attempts_left(spec_of(stored).max_attempts, mine.attempts_used if mine else 0)
        return Submitted("invalid", result.format_errors_only(), None, left)
    return _record(user_id, stored, variant, answers, result)


def progress_of(user_id: int, exercise_id: str) -> Progress | None:
    """The learner's progress on an exercise, if any."""
    return db.session.get(Progress, (user_id, exercise_id))


def history(user_id: int, exercise_id: str) -> list[Attempt]:
    """The learner's counted attempts on an exercise, newest first."""
    return list(db.session.scalars(
        sa.select(Attempt).where(Attempt.user_id == user_id, Attempt.exercise_id == exercise_id)
        .order_by(Attempt.id.desc())
    ))  # fmt: skip
