"""Exercises in the database: synced from files (services.sync) or authored on the web, versioned, cached
by content."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.orm import InstrumentedAttribute, contains_eager

from grader.catalog.lessons import exercise_order
from grader.catalog.loader import SpecError, spec_from_text
from grader.catalog.spec import CODE_KIND, NUMERIC_KIND, ExerciseSpec
from grader.codecheck.spec import CodeExerciseSpec, any_spec_from_text, code_spec_from_text
from grader.catalog.variants import Variant, make_variant
from grader.extensions import db
from grader.models import DRAFT, PUBLISHED, Exercise, ExerciseVersion, utcnow
from grader.services import audit
from grader.texts import Text, say


AnySpec = ExerciseSpec | CodeExerciseSpec
Spec = TypeVar("Spec", bound=AnySpec)



class SpecInvalid(ValueError):
    """An exercise source that does not validate; `errors` says where."""

    def __init__(self, errors: list[SpecError]) -> None:
        super().__init__("; ".join(map(str, errors)))
        self.errors = errors


def source_hash(source: str) -> str:
    """SHA-256 of an exercise source."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def _valid(parsed: tuple[Spec | None, list[SpecError]]) -> Spec:
    """The spec of a (spec, errors) reading; raises SpecInvalid with the errors when there is none."""
    spec, errors = parsed
    if spec is None:
        raise SpecInvalid(errors)
    return spec


@lru_cache(maxsize=1024)
def _spec_by_hash(digest: str, source: str) -> ExerciseSpec:
    return _valid(spec_from_text(source, "stored"))


@lru_cache(maxsize=16384)
def _variant_by_hash(digest: str, source: str, seed: int) -> Variant:
    return make_variant(_spec_by_hash(digest, source), seed)


@lru_cache(maxsize=256)
def _code_spec_by_hash(digest: str, source: str) -> CodeExerciseSpec:
    return _valid(code_spec_from_text(source, "stored"))


def code_spec_of(version: Sourced) -> CodeExerciseSpec:
    """The validated code-exercise spec of a stored version (cached by content)."""
    return _code_spec_by_hash(version.source_hash, version.source)


class Sourced(Protocol):
    """A stored exercise version, or anything else that carries its source and the source's hash."""

    @property
    def source_hash(self) -> str: ...  # noqa: D102

    @property
    def source(self) -> str: ...  # noqa: D102


def spec_of(version: Sourced) -> ExerciseSpec:
    """The validated spec of a stored version (cached by content)."""
    return _spec_by_hash(version.source_hash, version.source)


def variant_of(version: Sourced, seed: int) -> Variant:
    """A variant of a stored version (cached by content and seed, so the reference runs once)."""
    return _variant_by_hash(version.source_hash, version.source, seed)


def parse_source(source: str, name: str = "exercise") -> ExerciseSpec:
    """Validate a numeric exercise's YAML; raises SpecInvalid with per-field errors."""
    return _valid(spec_from_text(source, name))


def parse_any_source(source: str, name: str = "exercise") -> AnySpec:
    """Validate exercise YAML as the kind it declares (code or numeric); raises SpecInvalid."""
    return _valid(any_spec_from_text(source, name))


def kind_change(spec: AnySpec, exercise: Exercise | None) -> Text | None:
    """Why `spec` cannot be a new version of `exercise`, whose attempts are of its kind (and, for
    code, of its task's function); else None."""
    if exercise is None:
        return None
    if exercise.kind != spec.kind:
        if exercise.kind == CODE_KIND:
            return say("%(id)s is a code exercise, so a new version must be one too (or give it a new id)",
                       id=repr(spec.id))  # fmt: skip
        return say("%(id)s takes typed answers, so a new version must too (or give it a new id)", id=repr(spec.id))
    stored = latest_version(spec.id)
    if not isinstance(spec, CodeExerciseSpec) or stored is None:
        return None
    try:
        task = code_spec_of(stored).task
    except SpecInvalid:  # a version the catalogue no longer accepts: nothing to compare with
        return None
    if task == spec.task:
        return None
    return say("%(id)s asks for task %(task)s, so a new version must too (or give it a new id)", id=repr(spec.id),
               task=task)  # fmt: skip


class UnknownExercise(LookupError):
    """No exercise with that id (the web answers 404 wherever it is raised)."""


def existing(exercise_id: str) -> Exercise:
    """The exercise with that id; raises UnknownExercise if there is none."""
    found = db.session.get(Exercise, exercise_id)
    if found is None:
        raise UnknownExercise(exercise_id)
    return found


def existing_version(exercise_id: str) -> ExerciseVersion:
    """The exercise's current version; raises UnknownExercise if there is no such exercise."""
    stored = current_version(exercise_id)
    if stored is None:
        raise UnknownExercise(exercise_id)
    return stored


def current_version(exercise_id: str) -> ExerciseVersion | None:
    """The current version of an exercise (the one learners get once it is published), or None if there
    is no such exercise."""
    return _version_at(exercise_id, Exercise.current_version)


def latest_version(exercise_id: str) -> ExerciseVersion | None:
    """The newest version of an exercise, a draft when it is ahead of the current one (the editor's)."""
    return _version_at(exercise_id, Exercise.latest_version)


def _version_at(exercise_id: str, number: sa.ColumnElement[int] | InstrumentedAttribute[int]) -> ExerciseVersion | None:
    return db.session.scalar(
        sa.select(ExerciseVersion)
        .join(ExerciseVersion.exercise)
        .options(contains_eager(ExerciseVersion.exercise))  # callers read .exercise: no second query
        .where(Exercise.id == exercise_id, ExerciseVersion.version == number)
    )


def published(exercise_id: str) -> Exercise:
    """The exercise with that id as learners may see it; raises UnknownExercise if there is none or it
    is not published (a draft, or unpublished: absent for learners)."""
    found = existing(exercise_id)
    if not found.published:
        raise UnknownExercise(exercise_id)
    return found


def part_labels(exercise: Exercise) -> dict[str, str]:
    """Part id -> label of a numeric exercise's current version (empty for code or an invalid spec)."""
    stored = current_version(exercise.id)
    try:
        return {p.id: p.label for p in spec_of(stored).parts} if stored and exercise.kind == NUMERIC_KIND else {}
    except SpecInvalid:
        return {}


def version(exercise_id: str, number: int) -> ExerciseVersion | None:
    """A given version of an exercise."""
    return db.session.scalar(
        sa.select(ExerciseVersion).where(ExerciseVersion.exercise_id == exercise_id, ExerciseVersion.version == number)
    )


def all_exercises(published_only: bool = False) -> list[Exercise]:
    """Every exercise (only the published ones: what learners may see), in lesson order (as the dashboard
    lists them)."""
    query = sa.select(Exercise).where(Exercise.status == PUBLISHED) if published_only else sa.select(Exercise)
    return sorted(db.session.scalars(query), key=lambda e: exercise_order(e.lesson, e.position, e.id))


def _titles(spec: ExerciseSpec | CodeExerciseSpec) -> dict[str, str]:
    """The title in each language the exercise is translated into (kept for listing pages)."""
    return {locale: t.title for locale, t in spec.translations.items() if t.title}


def _list(exercise: Exercise, spec: ExerciseSpec | CodeExerciseSpec) -> None:
    """Copy what listing pages show without reading the source: lesson, titles, kind, order, dates, attempt limit."""
    exercise.lesson, exercise.title, exercise.titles, exercise.kind = spec.lesson, spec.title, _titles(spec), spec.kind
    exercise.position, exercise.due_at, exercise.opens_at = spec.position, spec.due_utc, spec.opens_utc
    exercise.max_attempts = spec.max_attempts


def make_current(exercise: Exercise, spec: AnySpec) -> None:
    """Make the exercise's newest version (of `spec`) the one learners get, its listing columns that
    version's. No commit."""
    exercise.current_version = exercise.latest_version
    _list(exercise, spec)


def store(spec: AnySpec, source: str, user_id: int | None, origin: str, publish: bool = True,
          course_id: int | None = None) -> str:  # fmt: skip
    """Add a version when the source changed; returns created, updated or unchanged. No commit.

    With `publish` the new version is what learners get; without, it is a draft: a new exercise stays
    hidden from learners, and those of a published one keep the version they had until it is published.
    """
    digest = source_hash(source)
    exercise = db.session.get(Exercise, spec.id)
    if exercise is None:
        exercise = Exercise(id=spec.id, current_version=1, latest_version=1, origin=origin,
                            status=PUBLISHED if publish else DRAFT, course_id=course_id)  # fmt: skip
        _list(exercise, spec)
        db.session.add(exercise)
        db.session.add(ExerciseVersion(exercise_id=spec.id, version=1, source=source, source_hash=digest,
                                       created_by=user_id))  # fmt: skip
        return "created"
    latest = version(spec.id, exercise.latest_version)
    if latest is not None and latest.source_hash == digest:
        return "unchanged"
    exercise.latest_version += 1
    exercise.origin = origin  # once edited on the web, syncing files leaves it alone
    exercise.updated_at = utcnow()
    db.session.add(ExerciseVersion(exercise_id=spec.id, version=exercise.latest_version, source=source,
                                   source_hash=digest, created_by=user_id))  # fmt: skip
    if publish:
        exercise.status = PUBLISHED
    if publish or not exercise.published:  # a hidden exercise's newest version is its current one
        make_current(exercise, spec)
    return "updated"


def save_source(source: str, user_id: int | None, origin: str = "web", publish: bool = True,
                course_id: int | None = None) -> tuple[AnySpec, str]:  # fmt: skip
    """Validate and store an exercise source (numeric or code) as a new version, published or (without
    `publish`) a draft; a new one belongs to `course_id` (None: the shared catalogue). Commits."""
    spec = parse_any_source(source)
    outcome = store(spec, source, user_id, origin, publish, course_id)
    if outcome != "unchanged":
        exercise = db.session.get(Exercise, spec.id)
        audit.note(user_id, "exercise.saved", None, spec.id, version=exercise.latest_version if exercise else None,
                   course_id=exercise.course_id if exercise else None, origin=origin, outcome=outcome)  # fmt: skip
    db.session.commit()
    return spec, outcome
