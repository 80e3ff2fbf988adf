"""Authoring exercises on the web: validation, the catalogue self-check, preview, saving a new
version, and reading uploaded files. The form itself lives in exercise_form."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from sqlalchemy.exc import IntegrityError
from werkzeug.datastructures import MultiDict

from grader.catalog.loader import EXERCISE_SUFFIXES, MAX_EXERCISE_BYTES, WHOLE_FILE, SpecError
from grader.catalog.spec import ExerciseSpec
from grader.catalog.variants import Variant, make_variant
from grader.codecheck.prepare import cases_for
from grader.codecheck.tasks import Case
from grader.codecheck.spec import CodeExerciseSpec
from grader.extensions import db
from grader.models import Exercise, ExerciseVersion
from grader.texts import Refusal, Text, say
from grader.services import exercise_form, exercise_yaml
from grader.services.dialect import lock_rows
from grader.services.exercises import (AnySpec, SpecInvalid, code_spec_of, kind_change, latest_version,
                                       parse_any_source, parse_source, save_source, spec_of)
from grader.services.save_check import self_check


class UploadError(Refusal):
    """An uploaded exercise file that cannot be read; the message is for the instructor."""


@dataclass(frozen=True)
class CodeCases:
    """One seed's cases of a code exercise, as a preview lists them."""

    seed: int
    cases: list[Case]


Sample = Variant | CodeCases  # what a preview shows of an exercise: its numbers, or its cases


@dataclass
class Checked:
    """A source after validation and self-check: errors and failures refuse it, notes are warnings."""

    spec: AnySpec | None
    errors: list[SpecError] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    notes: tuple[Text, ...] = ()

    @property
    def ok(self) -> bool:
        """True when the source may be saved."""
        return self.spec is not None and not self.errors and not self.failures


def check(source: str, problems: list[SpecError] | None = None) -> Checked:
    """Validate a source (numeric or code) and run the self-check on it."""
    try:
        spec = parse_any_source(source, "exercise")
    except SpecInvalid as error:
        return Checked(None, [*(problems or []), *error.errors])
    if problems:
        return Checked(spec, list(problems))
    found = self_check(source)
    return Checked(spec, [], found.failures, found.notes)


def _id_error(spec: AnySpec, editing: str | None, new: bool, course_id: int | None,
              catalogue: bool) -> SpecError | None:  # fmt: skip
    existing = db.session.get(Exercise, spec.id, populate_existing=True)  # as stored now, not as first read
    # Another course's own exercise, or (for an instructor who is not site staff) the shared catalogue's.
    theirs = existing is not None and (existing.course_id not in (None, course_id)
                                       or (existing.course_id is None and not catalogue))  # fmt: skip
    if (new or theirs) and existing is not None:
        return _taken(spec.id)
    if editing is not None and spec.id != editing:
        return _at_id(say("must stay %(id)s (use New exercise to make a copy)", id=repr(editing)))
    changed_kind = kind_change(spec, existing)
    return None if changed_kind is None else SpecError("exercise", "kind", str(changed_kind), changed_kind)


def _taken(exercise_id: str) -> SpecError:
    return _at_id(say("%(id)s is already taken; pick another id", id=repr(exercise_id)))


def _at_id(text: Text) -> SpecError:
    return SpecError("exercise", "id", str(text), text)


def _changed_meanwhile(base: int, current: int) -> SpecError:
    text = say("Someone saved version %(current)d of this exercise after you opened version %(base)d. Nothing was "
               "saved, so their changes are not undone: open the editor again to start from version %(current)d.",
               current=current, base=base)
    return SpecError("exercise", WHOLE_FILE, str(text), text)


def _same(stored: ExerciseVersion, spec: AnySpec, from_form: bool) -> bool:
    """Whether `spec` is the stored version, or (from the form) what the form makes of it, unedited."""
    try:
        if isinstance(spec, CodeExerciseSpec):  # of the same kind as the stored one: _id_error saw to it
            return code_spec_of(stored) == spec
        return spec_of(stored) == spec or (from_form and _as_the_form_saves(stored.source) == spec)
    except SpecInvalid:  # a stored version the catalogue no longer accepts: any valid edit is a change
        return False


def _as_the_form_saves(source: str) -> ExerciseSpec | None:
    """The exercise as the structured form writes it back (texts trimmed, a prompt ending in one newline)."""
    values = exercise_form.values_from_source(source)
    if values is None:
        return None
    fields = [(key, item) for key, value in values.items() for item in (value if isinstance(value, list) else [value])]
    return parse_source(exercise_yaml.dump(exercise_form.draft_from_form(MultiDict(fields)).data), "exercise")


def save(source: str, user_id: int, origin: str, *, editing: str | None = None, new: bool = False,
         problems: list[SpecError] | None = None, base: int | None = None,
         from_form: bool = False, course_id: int | None = None,
         catalogue: bool = True) -> tuple[Checked, str | None]:  # fmt: skip
    """Check and store a source as a draft; returns the check and created / updated / unchanged (None if refused).

    base: the version the editor started from; a save over a newer one is refused, not written over it.
    from_form: the source is the structured form's, which writes texts its own way (trimmed).
    course_id: the course it is written in: a new exercise belongs to it, and another course's is not overwritten.
    catalogue: whether the author may change the shared catalogue's exercises (site staff; every course sees it).
    """
    checked = check(source, problems)
    if not checked.ok or checked.spec is None:
        return checked, None
    # Two saves of one exercise queue here, and the second sees what the first stored: its version,
    # or (two new exercises with one id) that the id is taken and of which kind it is.
    lock_rows(Exercise.current_version, Exercise.id == checked.spec.id)
    wrong_id = _id_error(checked.spec, editing, new, course_id, catalogue)
    if wrong_id is not None:
        checked.errors.append(wrong_id)
        return checked, None
    stored = latest_version(checked.spec.id)  # the newest, a draft or not: edits build on it
    if base is not None and stored is not None and stored.version != base:
        checked.errors.append(_changed_meanwhile(base, stored.version))
        return checked, None
    # The form writes its own layout: an unchanged exercise must not become a new version.
    if stored is not None and _same(stored, checked.spec, from_form):
        return checked, "unchanged"
    try:
        # Saved as a draft: learners see it (or this version of it) once an instructor publishes it.
        outcome = save_source(source, user_id, origin, publish=False, course_id=course_id)[1]
        return checked, outcome
    except IntegrityError:  # a new exercise: another save took this id between our check and write
        db.session.rollback()
        checked.errors.append(_taken(checked.spec.id))
        return checked, None


def preview(source: str, problems: list[SpecError] | None = None) -> tuple[Checked, Sample | None]:
    """The check of a source and a random variant of it: a numeric exercise's numbers, or a code
    exercise's cases (None when none can be made)."""
    checked = check(source, problems)
    if checked.spec is None:
        return checked, None
    seed = secrets.randbelow(2**31 - 1) + 1
    try:
        if isinstance(checked.spec, CodeExerciseSpec):
            return checked, CodeCases(seed, cases_for(checked.spec, seed))  # the cases only: nothing runs
        return checked, make_variant(checked.spec, seed)
    except Exception as error:  # noqa: BLE001 - shown to the author, never a 500
        checked.failures.insert(0, f"no variant: {error}")
        return checked, None


def read_upload(name: str, raw: bytes) -> str:
    """The text of an uploaded exercise file; raises UploadError when it is not one."""
    if not name:
        raise UploadError("Choose a file to upload.")
    if not name.lower().endswith(EXERCISE_SUFFIXES):
        raise UploadError("Upload a .yaml or .yml file.")
    if len(raw) > MAX_EXERCISE_BYTES:
        raise UploadError("The file is larger than %(size)d KB.", size=MAX_EXERCISE_BYTES // 1024)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise UploadError("The file is not valid UTF-8 text.") from error
