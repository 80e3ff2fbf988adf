"""Submitting an attempt: grade against the learner's own variant, store it and its progress together.

Order matters for concurrency. Grading reads only; then one transaction starts with the write that
locks the learner's progress row (an upsert, so SQLite takes its write lock first and PostgreSQL
locks the row), and everything that decides the attempt's number, duplicates and the attempt limit
is read under that lock. The attempt and its progress are committed together, before any response.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Mapping

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from grader import wrong_parts
from grader.adaptive import evidence
from grader.answers.results import ExerciseResult
from grader.catalog.catalog import check_answers
from grader.catalog.policy import AttemptPolicy, CourseRules, attempts_left, for_course, is_open
from grader.catalog.spec import CODE_KIND, ExerciseSpec
from grader.catalog.variants import Variant
from grader.extensions import db
from grader.course_models import Course
from grader.models import PUBLISHED, Attempt, Exercise, ExerciseVersion, Extension, Progress, Variant as VariantRow, utcnow
from grader.services import mastery, progress
from grader.services.course_content import offered
from grader.services.course_rules import LISTED, listed_in, opens_column, rules_columns, rules_from
from grader.services.courses import Seat
from grader.services.dialect import for_session, per_dialect
from grader.services.exercises import UnknownExercise, spec_of, variant_of

Outcome = Literal["graded", "invalid", "repeat", "closed"]


class CodeExercise(LookupError):
    """The exercise takes code, not typed answers."""


class UnknownParts(ValueError):
    """Answers to parts the exercise does not have (a typo in a part id, through the API)."""

    def __init__(self, unknown: list[str], known: list[str]) -> None:
        super().__init__(", ".join(unknown))
        self.unknown, self.known = unknown, known


class VersionChanged(LookupError):
    """The answers were given to a version of the exercise that is no longer current (an edit while the
    page was open): its numbers may have changed, so they are not graded against the new ones."""


class NotOpen(LookupError):
    """The exercise opens later; learners can neither see nor answer it before `opens` (naive UTC)."""

    def __init__(self, opens: datetime) -> None:
        super().__init__(opens.isoformat())
        self.opens = opens


def ensure_open(opens: datetime | None, early: bool = False) -> None:
    """Raise NotOpen before the opening date, unless `early` (instructors try exercises before learners)."""
    if not early and opens is not None and not is_open(opens, utcnow()):
        raise NotOpen(opens)


_EXERCISES, _VERSIONS, _VARIANTS, _ATTEMPTS, _EXTENSIONS, _COURSES = (
    m.__table__ for m in (Exercise, ExerciseVersion, VariantRow, Attempt, Extension, Course))
_USER: sa.BindParameter[int] = sa.bindparam("user_id", type_=sa.Integer)
_COURSE: sa.BindParameter[int] = sa.bindparam("course_id", type_=sa.Integer)
_EXERCISE: sa.BindParameter[str] = sa.bindparam("exercise_id", type_=sa.String)
# Built once: these run on every attempt, and building a statement costs more than running it.
_CURRENT = (
    sa.select(_EXERCISES.c.kind, _VERSIONS.c.version, _VERSIONS.c.source_hash, _VERSIONS.c.source,
              _EXTENSIONS.c.due_at, opens_column(_EXERCISES), _VARIANTS.c.seed,
              sa.select(_COURSES.c.ends_at).where(_COURSES.c.id == _COURSE).scalar_subquery(), *rules_columns())
    .select_from(
        _EXERCISES.join(_VERSIONS, (_VERSIONS.c.exercise_id == _EXERCISES.c.id)
                        & (_VERSIONS.c.version == _EXERCISES.c.current_version))
        .outerjoin(_VARIANTS, (_VARIANTS.c.exercise_id == _EXERCISES.c.id) & (_VARIANTS.c.user_id == _USER))
        .outerjoin(_EXTENSIONS, (_EXTENSIONS.c.exercise_id == _EXERCISES.c.id) & (_EXTENSIONS.c.user_id == _USER)
                   & (_EXTENSIONS.c.course_id == _COURSE))
        .outerjoin(LISTED, listed_in(_EXERCISES, _COURSE))  # the course's own dates, limit and policy
    )
    # A draft is no exercise to learners, nor one their course does not use.
    .where(_EXERCISES.c.id == _EXERCISE, _EXERCISES.c.status == PUBLISHED, offered(_EXERCISES, _COURSE))
)  # fmt: skip
_SEED = sa.select(_VARIANTS.c.seed).where(_VARIANTS.c.user_id == _USER, _VARIANTS.c.exercise_id == _EXERCISE)
# The learner's seed in the lesson so far: its exercises share one draw (catalog.draws.story_key).
_LESSON = sa.select(_EXERCISES.c.lesson).where(_EXERCISES.c.id == _EXERCISE).scalar_subquery()
_LESSON_SEED = (
    sa.select(_VARIANTS.c.seed)
    .join(_EXERCISES, _EXERCISES.c.id == _VARIANTS.c.exercise_id)
    .where(_VARIANTS.c.user_id == _USER, _EXERCISES.c.lesson == _LESSON)
    .order_by(_VARIANTS.c.id)
    .limit(1)
)
_NEW_SEED = sa.insert(_VARIANTS)
_ANSWERS_KEY = [_ATTEMPTS.c.user_id, _ATTEMPTS.c.exercise_id, _ATTEMPTS.c.course_id, _ATTEMPTS.c.version,
                _ATTEMPTS.c.answers_hash]
_PREVIOUS = sa.select(_ATTEMPTS.c.id, _ATTEMPTS.c.score, _ATTEMPTS.c.late).where(
    _ATTEMPTS.c.user_id == _USER, _ATTEMPTS.c.exercise_id == _EXERCISE, _ATTEMPTS.c.course_id == _COURSE,
    _ATTEMPTS.c.version == sa.bindparam("version"), _ATTEMPTS.c.answers_hash == sa.bindparam("digest"),
)  # fmt: skip
_NEW_ATTEMPT = per_dialect(  # no row back when the same answers to this version are stored already
    lambda d: d.insert(_ATTEMPTS).on_conflict_do_nothing(index_elements=_ANSWERS_KEY).returning(_ATTEMPTS.c.id)
)


@dataclass(frozen=True)
class CurrentVersion:
    """The current version of an exercise, as grading needs it, the learner's own due date if any, and
    the exercise's opening date."""

    exercise_id: str
    version: int
    source_hash: str
    source: str
    own_due: datetime | None = None
    opens_at: datetime | None = None
    course_ends: datetime | None = None  # after it, the course is read-only for its learners
    course: CourseRules | None = None  # the course's own settings over the file's

    def policy(self) -> ExerciseSpec:
        """The exercise as it applies to this learner: the course's settings over the file's, and their own
        due date in place of the exercise's."""
        return for_course(spec_of(self), self.course).with_due(self.own_due)


@dataclass(frozen=True)
class StoredAttempt:
    """A counted attempt as stored; late when it came after the due date."""

    id: int
    score: float
    late: bool = False


@dataclass(frozen=True)
class Submitted:
    """What happened to a submitted answer."""

    outcome: Outcome
    result: ExerciseResult
    attempt: StoredAttempt | None
    attempts_left: int | None


def _new_seed(user_id: int, exercise_id: str) -> int:
    key = {"user_id": user_id, "exercise_id": exercise_id}
    seed = db.session.execute(_LESSON_SEED, key).scalar() or secrets.randbelow(2**31 - 1) + 1
    try:
        db.session.execute(_NEW_SEED, {**key, "seed": seed})
        db.session.commit()
    except IntegrityError:  # another request made it first
        db.session.rollback()
    made = seed_of(user_id, exercise_id)
    assert made is not None  # stored just now, by this request or another
    return made


def seed_of(user_id: int, exercise_id: str) -> int | None:
    """The learner's stable seed for the exercise, once they have opened it."""
    return db.session.execute(_SEED, {"user_id": user_id, "exercise_id": exercise_id}).scalar_one_or_none()


def _current(seat: Seat, exercise_id: str, early: bool) -> tuple[CurrentVersion, int | None]:
    key = {"user_id": seat.user_id, "course_id": seat.course_id, "exercise_id": exercise_id}
    row = db.session.connection().execute(_CURRENT, key).first()
    if row is None:
        raise UnknownExercise(exercise_id)
    kind, number, digest, source, own_due, opens_at, seed, course_ends, *own = row
    ensure_open(opens_at, early)  # before the kind: an exercise not open yet says nothing about itself
    if kind == CODE_KIND:
        raise CodeExercise(exercise_id)
    course = rules_from(tuple(own))
    return CurrentVersion(exercise_id, number, digest, source, own_due, opens_at, course_ends, course), seed


def open_version(seat: Seat, exercise_id: str, early: bool = False) -> CurrentVersion:
    """The current version of an open numeric exercise of the seat's course (any time when `early`), making no
    seed. Raises UnknownExercise, NotOpen or CodeExercise, in that order."""
    return _current(seat, exercise_id, early)[0]


def _variant(seat: Seat, current: CurrentVersion, seed: int | None) -> Variant:
    return variant_of(current, seed if seed is not None else _new_seed(seat.user_id, current.exercise_id))


def learner_variant(seat: Seat, exercise_id: str, early: bool = False) -> tuple[CurrentVersion, Variant]:
    """The current version of an open exercise of the seat's course (any time when `early`) and the learner's
    variant of it (a stable seed, made on first use, the same in each of their courses)."""
    current, seed = _current(seat, exercise_id, early)
    return current, _variant(seat, current, seed)


def _spacing_aside(text: str) -> str:
    """The text with each line's spaces and tabs at its ends dropped and runs of them made one (the
    parsers read them alike); lines (a matrix's rows) are kept."""
    return "\n".join(re.sub(r"[ \t]+", " ", line).strip(" \t") for line in text.strip().splitlines())


def answers_digest(answers: Mapping[str, str]) -> str:
    """A hash of the answers as typed (spacing aside), for spotting repeats."""
    canonical = json.dumps({k: _spacing_aside(v) for k, v in sorted(answers.items())}, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def finished(mine: Progress | None, spec: AttemptPolicy, now: datetime) -> bool:
    """Whether the learner is done with their own variant: solved, gave up, out of attempts, or past a due date
    that leaves nothing to earn. Then the worked solution shows, and practice with new numbers opens."""
    used = mine.attempts_used if mine else 0
    done = bool(mine and (mine.solved_at or mine.gave_up_at))
    return done or attempts_left(spec.max_attempts, used) == 0 or spec.solution_open(now)


def known_answers(variant: Variant, answers: Mapping[str, object]) -> dict[str, str]:
    """The answers given as text, by part id; raises UnknownParts for an id the variant does not have."""
    known = [p.spec.id for p in variant.parts]
    unknown = sorted(k for k in answers if k not in known)
    if unknown:
        raise UnknownParts(unknown, known)
    return {k: v for k, v in answers.items() if isinstance(v, str)}


def _previous(seat: Seat, current: CurrentVersion, digest: str) -> StoredAttempt | None:
    key = {"user_id": seat.user_id, "course_id": seat.course_id, "exercise_id": current.exercise_id,
           "version": current.version, "digest": digest}
    row = db.session.execute(_PREVIOUS, key).first()
    return None if row is None else StoredAttempt(*row)


def _record(seat: Seat, current: CurrentVersion, variant: Variant, answers: Mapping[str, str],
            result: ExerciseResult) -> Submitted:  # fmt: skip
    spec = current.policy()
    digest = answers_digest(answers)
    verdicts = {k: r.to_record() for k, r in result.parts.items()}
    # Made before the lock: other learners' attempts wait for SQLite's write lock while this holds it.
    stored = {"user_id": seat.user_id, "course_id": seat.course_id, "exercise_id": current.exercise_id,
              "version": current.version, "seed": variant.seed,
              "answers": dict(answers), "parsed": {k: r.value for k, r in result.parts.items()},
              "results": verdicts, "raw_score": result.score,
              "answers_hash": digest}  # fmt: skip
    now = utcnow()
    mine = progress.lock_counting(seat, current.exercise_id, now)  # rolled back below if it does not count
    used_up = spec.max_attempts is not None and mine.attempts_used >= spec.max_attempts
    ended = current.course_ends is not None and now >= current.course_ends
    if mine.gave_up_at is not None or used_up or ended:
        db.session.rollback()
        previous = _previous(seat, current, digest)  # a repeat still shows its verdict
        return Submitted("closed" if previous is None else "repeat", result, previous, 0)
    late = spec.is_late(now)
    number, score = progress.credit(mine, result.score, spec, now, counted=True)
    attempt_id = db.session.connection().execute(for_session(_NEW_ATTEMPT), {
        **stored, "number": number, "score": score, "created_at": now, "late": late, "hints_used": mine.hints_used,
    }).scalar()  # fmt: skip
    if attempt_id is None:  # a repeat: undo the count and the credit, point at the attempt that counted
        db.session.rollback()
        previous = _previous(seat, current, digest)
        return Submitted("repeat", result, previous, attempts_left(spec.max_attempts, mine.attempts_used))
    wrong_parts.record(db.session.connection(), [{**stored, "id": attempt_id}])
    mastery.record(seat, current.exercise_id, evidence.of_results(spec, verdicts, now), attempt_id)
    db.session.commit()
    return Submitted("graded", result, StoredAttempt(attempt_id, score, late), attempts_left(spec.max_attempts, number))


def submit(seat: Seat, exercise_id: str, answers: Mapping[str, str], early: bool = False,
           seen: int | None = None) -> Submitted:  # fmt: skip
    """Grade answers against the learner's variant; store counted attempts durably before returning.

    Raises NotOpen before the exercise's opening date unless `early`, and VersionChanged when `seen`
    (the version the learner's page showed) is not the current one.
    """
    current, seed = _current(seat, exercise_id, early)  # refused before a seed is made: nothing left behind
    if seen is not None and seen != current.version:
        raise VersionChanged(exercise_id)
    variant = _variant(seat, current, seed)
    answers = known_answers(variant, answers)
    result = check_answers(variant, answers)
    if not result.counted:
        mine = progress_of(seat, exercise_id)
        left = attempts_left(current.policy().max_attempts, mine.attempts_used if mine else 0)
        return Submitted("invalid", result.format_errors_only(), None, left)
    return _record(seat, current, variant, answers, result)


def progress_of(seat: Seat, exercise_id: str) -> Progress | None:
    """The learner's progress on an exercise in the seat's course, if any."""
    return db.session.get(Progress, (seat.course_id, seat.user_id, exercise_id))


def history(seat: Seat, exercise_id: str) -> list[Attempt]:
    """The learner's counted attempts on an exercise in the seat's course, newest first."""
    return list(db.session.scalars(
        sa.select(Attempt).where(Attempt.user_id == seat.user_id, Attempt.course_id == seat.course_id,
                                 Attempt.exercise_id == exercise_id)
        .order_by(Attempt.id.desc())
    ))  # fmt: skip
