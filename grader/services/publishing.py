"""Publishing exercises: a new exercise, or a new version of a published one, is a draft until an
instructor publishes it; unpublishing hides it from learners again and keeps their work.

An instructor previews a draft as a learner would: their own variant of the newest version, answers
checked, nothing stored (no attempt, no progress, not even a seed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Mapping

from grader.answers.results import ExerciseResult
from grader.catalog.catalog import check_answers
from grader.catalog.policy import is_open
from grader.catalog.spec import CODE_KIND
from grader.catalog.variants import Variant
from grader.extensions import db
from grader.models import PUBLISHED, UNPUBLISHED, Exercise, ExerciseVersion, utcnow
from grader.services import audit
from grader.services.attempts import known_answers, seed_of
from grader.services.course_rules import opens_in
from grader.services.dialect import lock_rows
from grader.services.exercises import (AnySpec, SpecInvalid, existing, latest_version, make_current,
                                       parse_any_source, variant_of)
from grader.services.save_check import self_check


class CannotPublish(ValueError):
    """The newest version no longer validates, or fails the save check (the catalogue or its checks changed
    since it was stored)."""


@dataclass(frozen=True)
class Published:
    """What publishing did: the version learners now get, and from when (None: already)."""

    changed: bool
    version: int
    opens: datetime | None


def _locked(exercise_id: str) -> Exercise:
    # Two publishes, or a publish and a save, of one exercise queue here, as two saves do.
    lock_rows(Exercise.current_version, Exercise.id == exercise_id)
    return existing(exercise_id)


def publish(exercise_id: str, actor_id: int | None, course_id: int | None = None) -> Published:
    """Make the newest version the one learners get (from its opening date, if later: the course's, given one);
    commits.

    Raises UnknownExercise, or CannotPublish for a version the catalogue no longer reads.
    """
    exercise = _locked(exercise_id)
    if exercise.published and not exercise.pending:
        db.session.rollback()
        return Published(False, exercise.current_version, _ahead(_opens(exercise, course_id)))
    newest = latest_version(exercise_id)
    assert newest is not None  # an exercise has at least one version
    try:
        spec: AnySpec = parse_any_source(newest.source, "stored")
    except SpecInvalid as error:
        db.session.rollback()
        raise CannotPublish(str(error)) from error
    failures = self_check(newest.source).failures  # a draft stored before the save check learnt of random seeds
    if failures:
        db.session.rollback()
        raise CannotPublish(failures[0])
    make_current(exercise, spec)
    exercise.status = PUBLISHED
    exercise.updated_at = utcnow()
    opens = _ahead(_opens(exercise, course_id))
    audit.note(actor_id, "exercise.published", None, exercise_id, course_id=exercise.course_id, version=newest.version,
               **({"opens": opens.isoformat() + "Z"} if opens else {}))  # fmt: skip
    db.session.commit()
    return Published(True, newest.version, opens)


def _opens(exercise: Exercise, course_id: int | None) -> datetime | None:
    return exercise.opens_at if course_id is None else opens_in(course_id, exercise)


def _ahead(opens: datetime | None) -> datetime | None:
    """The opening date when it is still ahead (learners see the exercise from then), else None."""
    return None if opens is None or is_open(opens, utcnow()) else opens


def unpublish(exercise_id: str, actor_id: int | None) -> bool:
    """Hide a published exercise from learners, keeping their attempts and scores; commits. Returns
    whether it was published."""
    exercise = _locked(exercise_id)
    if not exercise.published:
        db.session.rollback()
        return False
    exercise.status = UNPUBLISHED
    exercise.updated_at = utcnow()
    audit.note(actor_id, "exercise.unpublished", None, exercise_id, course_id=exercise.course_id,
               version=exercise.current_version)  # fmt: skip
    db.session.commit()
    return True


# ---- preview as a learner -------------------------------------------------------------------------


@dataclass(frozen=True)
class Preview:
    """The newest version of an exercise and the instructor's variant of it (None for code)."""

    exercise: Exercise
    version: ExerciseVersion
    variant: Variant | None


def preview_seed(user_id: int, exercise_id: str) -> int:
    """The instructor's own seed: the one they have if they opened the exercise as a learner, else one
    derived from who they are and the exercise (stable across reloads, stored nowhere)."""
    seed = seed_of(user_id, exercise_id)
    if seed is not None:
        return seed
    digest = hashlib.sha256(f"preview:{user_id}:{exercise_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % (2**31 - 1) + 1


def preview(user_id: int, exercise_id: str) -> Preview:
    """The newest version (a draft or not) as the instructor would get it as a learner.

    Raises UnknownExercise, or SpecInvalid for a version the catalogue no longer reads.
    """
    exercise = existing(exercise_id)
    newest = latest_version(exercise_id)
    assert newest is not None
    if exercise.kind == CODE_KIND:
        return Preview(exercise, newest, None)
    return Preview(exercise, newest, variant_of(newest, preview_seed(user_id, exercise_id)))


def check_preview(variant: Variant, answers: Mapping[str, str]) -> ExerciseResult:
    """Check answers to a previewed variant as an attempt would be checked; nothing is stored."""
    return check_answers(variant, known_answers(variant, answers))
