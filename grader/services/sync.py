"""`flask exercises sync`: the files under exercises/ loaded into the database, each one only when it
is valid, has an id of its own, keeps its exercise's kind and passes the self-check."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from grader.catalog.loader import SpecError, read_sources, shared_ids
from grader.codecheck.spec import any_spec_from_text
from grader.extensions import db
from grader.models import Exercise
from grader.services.exercises import AnySpec, kind_change, latest_version, source_hash, store
from grader.services.save_check import self_check
from grader.texts import Text


@dataclass
class SyncReport:
    """What a sync from exercises/ did."""

    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # edited on the web since: the file does not win
    errors: list[SpecError] = field(default_factory=list)
    notes: list[Text] = field(default_factory=list)  # the self-check's, on the files stored: warnings only



def _refused_by_self_check(name: str, source: str, spec: AnySpec, notes: list[Text]) -> SpecError | None:
    """The error for a file that would be a new version but fails the self-check, else None (and the
    self-check's notes on it are added to `notes`)."""
    digest = source_hash(source)
    stored = latest_version(spec.id)
    if stored is not None and stored.source_hash == digest:
        return None  # an unchanged file was checked, and its notes printed, when it was stored
    checked = self_check(source)
    failures = checked.failures
    if not failures:
        notes.extend(checked.notes)
        return None
    more = f" (and {len(failures) - 1} more; see python -m grader selfcheck --exercise {spec.id})"
    return SpecError(name, "(self-check)", f"fails the self-check, so it is not stored: {failures[0]}"
                                           f"{more if len(failures) > 1 else ''}")  # fmt: skip


def sync_directory(root: Path) -> SyncReport:
    """Load every exercise file under root into the database, published unless a file says `draft: true`;
    commits.

    A file that is invalid, fails the self-check or shares its id with another file is reported as an
    error and not stored: what the database holds for that id (if anything) stays as it was. Neither of
    two files with one id is loaded, since which one was meant cannot be told (a copy sorts first).
    """
    sources, read_errors = read_sources(root)
    report = SyncReport(errors=read_errors)
    read: list[tuple[str, str, AnySpec]] = []
    for name, source in sources:
        spec, errors = any_spec_from_text(source, name)
        report.errors.extend(errors)
        if spec is not None:
            read.append((name, source, spec))
    shared = shared_ids([(name, spec.id) for name, _, spec in read])
    report.errors.extend(shared)
    refused = {error.file for error in shared}
    for name, source, spec in read:
        if name in refused:
            continue
        existing = db.session.get(Exercise, spec.id)
        if existing is not None and existing.origin == "web":
            report.kept.append(spec.id)
            continue
        changed_kind = kind_change(spec, existing)
        if changed_kind is not None:
            report.errors.append(SpecError(name, "kind", str(changed_kind), changed_kind))
            continue
        failed = _refused_by_self_check(name, source, spec, report.notes)
        if failed is not None:
            report.errors.append(failed)
            continue
        # A file is published unless it says `draft: true`; then its new version waits for an instructor.
        getattr(report, store(spec, source, None, "file", publish=not spec.draft)).append(spec.id)
    db.session.commit()
    return report
