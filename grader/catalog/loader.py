"""Load exercise files from disk and report every problem as `file: field: message`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml
from pydantic import ValidationError

from grader.catalog.spec import ExerciseSpec

EXERCISE_SUFFIXES = (".yaml", ".yml")
MAX_EXERCISE_BYTES = 256 * 1024


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads 1e-4 as a float: YAML 1.1 alone wants a dot ("1.0e-4")."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


@dataclass(frozen=True)
class SpecError:
    """One problem in one exercise file."""

    file: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.message}"


def parse_yaml(text: str) -> Any:
    """Parse YAML text with the float-friendly safe loader."""
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader


def is_code_source(text: str) -> bool:
    """True for a `kind: code` exercise, which grader.codecheck loads instead of this loader."""
    try:
        data = parse_yaml(text)
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and data.get("kind") == "code"


def _field_name(location: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in location) or "(file)"


def spec_from_text(text: str, source: str) -> tuple[ExerciseSpec | None, list[SpecError]]:
    """Validate one exercise's YAML text; returns the spec or the errors."""
    try:
        data = parse_yaml(text)
    except yaml.YAMLError as error:
        return None, [SpecError(source, "(yaml)", str(error).replace("\n", " "))]
    if not isinstance(data, dict):
        return None, [SpecError(source, "(file)", "an exercise file must be a mapping")]
    try:
        return ExerciseSpec.model_validate(data), []
    except ValidationError as error:
        return None, [SpecError(source, _field_name(e["loc"]), e["msg"]) for e in error.errors()]


def exercise_files(root: Path) -> list[Path]:
    """Every exercise file under `root` (or `root` itself when it is a file), sorted."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.suffix in EXERCISE_SUFFIXES and p.is_file())


def read_sources(root: Path) -> tuple[list[tuple[str, str]], list[SpecError]]:
    """(file name, text) of every exercise file under `root`, and the files that cannot be read."""
    sources: list[tuple[str, str]] = []
    errors: list[SpecError] = []
    for path in exercise_files(root):
        if path.stat().st_size > MAX_EXERCISE_BYTES:
            errors.append(SpecError(str(path), "(file)", f"larger than {MAX_EXERCISE_BYTES} bytes"))
            continue
        try:
            sources.append((str(path), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            errors.append(SpecError(str(path), "(file)", "not valid UTF-8"))
    return sources, errors


Reader = Callable[[str, str], tuple[Any, list[SpecError]]]


def collect(sources: list[tuple[str, str]], read: Reader) -> tuple[list[Any], list[SpecError]]:
    """Validate each (file name, text) with `read`; ids must be unique across the files."""
    specs: list[Any] = []
    errors: list[SpecError] = []
    seen: dict[str, str] = {}
    for name, text in sources:
        spec, problems = read(text, name)
        errors.extend(problems)
        if spec is None:
            continue
        if spec.id in seen:
            errors.append(SpecError(name, "id", f"{spec.id!r} is already used by {seen[spec.id]}"))
            continue
        seen[spec.id] = name
        specs.append(spec)
    return specs, errors


def load_specs(root: Path) -> tuple[list[ExerciseSpec], list[SpecError]]:
    """Load and validate every numeric exercise under `root` (code exercises are codecheck's)."""
    sources, errors = read_sources(root)
    specs, problems = collect([(n, t) for n, t in sources if not is_code_source(t)], spec_from_text)
    return specs, errors + problems
