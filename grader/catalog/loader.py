"""Load exercise files from disk and report every problem as `file: field: message`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, NoReturn, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import AliasEvent, Event
from yaml.nodes import MappingNode, Node, SequenceNode

from grader.catalog.booleans import Words, boolean_words, read_as_boolean
from grader.catalog.problems import problem_text
from grader.catalog.spec import CODE_KIND, ExerciseSpec
from grader.texts import Text, say

EXERCISE_SUFFIXES = (".yaml", ".yml")
MAX_EXERCISE_BYTES = 256 * 1024
# The field of a problem with the whole exercise rather than one of its fields.
WHOLE_FILE = "(file)"
Model = TypeVar("Model", bound=BaseModel)
# Limits on what one document may stand for, so hostile YAML is an error and never a crash or a hang:
# exercises nest about 5 levels deep, and a 256 KB file holds far fewer than MAX_VALUES values unless
# aliases repeat the same values over and over ("billion laughs").
MAX_DEPTH = 32
MAX_VALUES = 200_000
MAX_INTEGER_CHARS = 40  # Python refuses to read integers of 4300 digits and more


class UnreadableYaml(yaml.YAMLError):
    """YAML that parses, but into something too deep, too large or out of range to be read."""


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads 1e-4 as a float (YAML 1.1 alone wants "1.0e-4") and refuses documents
    nested too deeply, expanding to too many values, or with an alias inside the value it names."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._open: set[str] = set()  # anchors whose value is still being read
        self._sizes: dict[int, int] = {}  # id(node) -> the values it stands for, aliases expanded

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        """The next node, after checking its depth and aliases; counts the values it stands for."""
        event = self.peek_event()
        anchor = None if isinstance(event, AliasEvent) else event.anchor
        if isinstance(event, AliasEvent) and event.anchor in self._open:
            _refuse(f"the alias *{event.anchor} is inside the value it names", event)
        if self._depth >= MAX_DEPTH:
            _refuse(f"values are nested more than {MAX_DEPTH} levels deep", event)
        self._depth += 1
        if anchor is not None:
            self._open.add(anchor)
        try:
            node: Node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)
        if id(node) not in self._sizes:  # an alias's node was counted where its anchor is
            self._sizes[id(node)] = 1 + sum(self._sizes[id(child)] for child in _children(node))
        if self._sizes[id(node)] > MAX_VALUES:
            _refuse(f"the document stands for more than {MAX_VALUES} values (aliases count each time)", event)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        """The value of a node; one Python cannot hold (a 30 February, a year 0) is a YAML error at its line."""
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as error:
            raise ConstructorError(None, None, f"cannot read this value: {error}", node.start_mark) from None

    def construct_bounded_int(self, node: Node) -> Any:
        """An integer, refused when it is too long to be one an exercise could mean."""
        if len(str(node.value)) > MAX_INTEGER_CHARS:
            raise ConstructorError(None, None, f"a number longer than {MAX_INTEGER_CHARS} characters",
                                   node.start_mark)  # fmt: skip
        return self.construct_yaml_int(node)


def _refuse(problem: str, event: Event) -> NoReturn:
    raise ComposerError(None, None, problem, event.start_mark)


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_bounded_int)

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
    text: Text | None = None  # the message to show in the reader's language, where it has one

    @property
    def whole_file(self) -> bool:
        """Whether the problem is with the exercise as a whole, so there is no field to name."""
        return self.field == WHOLE_FILE

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.message}"


def size_error(name: str, size: int) -> SpecError | None:
    """The error for an exercise source of `size` bytes when that is over the limit, else None."""
    if size <= MAX_EXERCISE_BYTES:
        return None
    text = say("larger than %(size)d bytes", size=MAX_EXERCISE_BYTES)
    return SpecError(name, WHOLE_FILE, str(text), text)


def parse_yaml(text: str) -> Any:
    """Parse YAML text with the float-friendly safe loader; raises yaml.YAMLError for any text it cannot read."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except RecursionError:  # PyYAML composes recursively; MAX_DEPTH should stop it first, this never crashes
        raise UnreadableYaml("cannot read this YAML: it is nested too deeply") from None
    except (ValueError, OverflowError) as error:
        raise UnreadableYaml(f"cannot read this YAML: {error}") from None


def is_code_source(text: str) -> bool:
    """True for a `kind: code` exercise, which grader.codecheck loads instead of this loader."""
    try:
        data = parse_yaml(text)
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and data.get("kind") == CODE_KIND


def _field_name(location: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in location) or WHOLE_FILE


def spec_error(source: str, error: Mapping[str, Any], words: Words | None = None) -> SpecError:
    """One pydantic error as a SpecError, with its sentence for the reader; a boolean YAML made of a word
    (`words`, from boolean_words) is said to be one."""
    problem = problem_text(error)
    explained = read_as_boolean(error, words or {}, problem)
    if explained is not None:
        field, text = explained
        return SpecError(source, field or _field_name(error["loc"]), str(text), text)
    return SpecError(source, _field_name(error["loc"]), error["msg"], problem)


def read_source(text: str, source: str) -> tuple[Any, list[SpecError]]:
    """An exercise source's YAML data, or why it cannot be read (too large for a file, or not YAML)."""
    if too_large := size_error(source, len(text.encode("utf-8"))):  # a file, an import, or what the editor built
        return None, [too_large]
    try:
        return parse_yaml(text), []
    except yaml.YAMLError as error:
        return None, [SpecError(source, "(yaml)", str(error).replace("\n", " "))]


def spec_from_text(text: str, source: str) -> tuple[ExerciseSpec | None, list[SpecError]]:
    """Validate one exercise's YAML text; returns the spec or the errors."""
    data, unread = read_source(text, source)
    if unread:
        return None, unread
    return validated(ExerciseSpec, data, source, text)


def validated(model: type[Model], data: Any, source: str, text: str | None = None) -> tuple[Model | None, list[SpecError]]:
    """Validate parsed YAML as `model`; returns it or the errors (never raises). With the YAML `text`, an
    error about a boolean YAML read from a word (`no`, `off`) names that word."""
    if not isinstance(data, dict):
        return None, [SpecError(source, WHOLE_FILE, "an exercise file must be a mapping")]
    try:
        return model.model_validate(data), []
    except ValidationError as error:
        problems = error.errors()
        booleans = text is not None and any(isinstance(e.get("input"), bool) for e in problems)
        words = boolean_words(yaml.compose(text, Loader=_Loader)) if booleans else {}  # type: ignore[arg-type]
        return None, [spec_error(source, e, words) for e in problems]
    except (RecursionError, OverflowError, MemoryError) as error:  # pydantic passes these through
        return None, [SpecError(source, WHOLE_FILE, f"a value cannot be checked: {error!r}")]


def exercise_files(root: Path) -> list[Path]:
    """Every exercise file under `root` (or `root` itself when it is a file), sorted."""
    if root.is_file():
        return [root]
    return sorted(p for p in root.rglob("*") if p.suffix in EXERCISE_SUFFIXES and p.is_file())


def read_sources(root: Path) -> tuple[list[tuple[str, str]], list[SpecError]]:
    """(file name, text) of every exercise file under `root`, and the files that cannot be read."""
    sources: list[tuple[str, str]] = []
    errors: list[SpecError] = []
    if not root.exists():  # a mistyped GRADER_EXERCISES_DIR must not read as "nothing to load"
        errors.append(SpecError(str(root), WHOLE_FILE, "no such file or directory"))
    for path in exercise_files(root):
        if too_large := size_error(str(path), path.stat().st_size):
            errors.append(too_large)
            continue
        try:
            sources.append((str(path), path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            errors.append(SpecError(str(path), WHOLE_FILE, "not valid UTF-8"))
    return sources, errors


Reader = Callable[[str, str], tuple[Any, list[SpecError]]]


def shared_ids(named: list[tuple[str, str]]) -> list[SpecError]:
    """An error for each (file, id) whose id another file also has. None of them is loaded: which one
    was meant cannot be told (a copy may sort first)."""
    files: dict[str, list[str]] = {}
    for name, spec_id in named:
        files.setdefault(spec_id, []).append(name)
    return [SpecError(name, "id", f"{spec_id!r} is also the id of {', '.join(n for n in names if n != name)}; "
                                  "neither file is loaded until one is renamed")
            for spec_id, names in files.items() if len(names) > 1 for name in names]  # fmt: skip


def collect(sources: list[tuple[str, str]], read: Reader) -> tuple[list[Any], list[SpecError]]:
    """Validate each (file name, text) with `read`; files sharing an id are reported and left out."""
    read_specs: list[tuple[str, Any]] = []
    errors: list[SpecError] = []
    for name, text in sources:
        spec, problems = read(text, name)
        errors.extend(problems)
        if spec is not None:
            read_specs.append((name, spec))
    shared = shared_ids([(name, spec.id) for name, spec in read_specs])
    refused = {error.file for error in shared}
    return [spec for name, spec in read_specs if name not in refused], errors + shared


def load_specs(root: Path) -> tuple[list[ExerciseSpec], list[SpecError]]:
    """Load and validate every numeric exercise under `root` (code exercises are codecheck's)."""
    sources, errors = read_sources(root)
    specs, problems = collect([(n, t) for n, t in sources if not is_code_source(t)], spec_from_text)
    return specs, errors + problems
