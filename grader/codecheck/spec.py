"""Code exercise specs (`kind: code`): strict pydantic models and their loader."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationInfo, field_validator

from grader.catalog.loader import (SpecError, collect, is_code_source, read_source, read_sources, spec_from_text,
                                   validated)
from grader.catalog.policy import AttemptPolicy
from grader.catalog.spec import MAX_MAGNITUDE, MAX_POSITION, ExerciseSpec, Place, Slug, Title
from grader.catalog.translations import CodeTranslation, Locale, Localised
from grader.catalog.strict import Strict
from grader.codecheck.tasks import TASKS, visible_edge_count
from grader.markup import math_problems
from grader.texts import Refusal

MAX_RANDOM_CASES = 100


class CasesSpec(Strict):
    """How many random (hidden) cases follow the task's edge cases, and a seed offset."""

    random: int = Field(ge=0, le=MAX_RANDOM_CASES)
    seed_offset: int = Field(default=0, ge=0, le=2**31 - 1)


class CodeToleranceSpec(Strict):
    """np.allclose tolerances: |got − expected| <= atol + rtol·|expected|."""

    rtol: float = Field(ge=0, le=1, allow_inf_nan=False)
    atol: float = Field(ge=0, le=MAX_MAGNITUDE, allow_inf_nan=False)


class CodeExerciseSpec(Localised, AttemptPolicy):
    """A code exercise: the learner writes one function, graded on generated cases."""

    id: Slug
    title: Title
    lesson: Slug
    position: int = Field(default=100, ge=0, le=MAX_POSITION)
    kind: Literal["code"]
    task: str
    prompt: str = Field(min_length=1)
    stub: str = Field(min_length=1)
    cases: CasesSpec
    tolerance: CodeToleranceSpec
    scoring: Literal["fraction", "all"] = "fraction"
    visible_cases: int = Field(default=0, ge=0)
    mutants: list[str] = []
    translations: dict[Locale, CodeTranslation] = {}

    # Fields are validated in order, so these validators see `task` only when it was valid.

    @field_validator("task")
    @classmethod
    def _known_task(cls, value: str) -> str:
        if value not in TASKS:
            raise Refusal("task must be one of %(tasks)s", tasks=", ".join(TASKS))
        return value

    @field_validator("prompt")
    @classmethod
    def _renders(cls, value: str) -> str:
        for problem in math_problems(value):
            raise ValueError(problem)
        return value

    @field_validator("stub")
    @classmethod
    def _stub_signature(cls, value: str, info: ValidationInfo) -> str:
        task = TASKS.get(info.data.get("task", ""))
        if task is not None:
            _check_stub(value, task.function, task.params)
        return value

    @field_validator("visible_cases")
    @classmethod
    def _enough_edges(cls, value: int, info: ValidationInfo) -> int:
        name = info.data.get("task", "")
        if name in TASKS and value > visible_edge_count(name):
            raise Refusal("task %(task)s has only %(num)d visible edge cases", task=name, num=visible_edge_count(name))
        return value

    @field_validator("mutants")
    @classmethod
    def _known_mutants(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if len(set(value)) != len(value):
            raise Refusal("mutant names must be unique")
        task = TASKS.get(info.data.get("task", ""))
        unknown = [name for name in value if task is not None and name not in task.mutants]
        if unknown and task is not None:
            raise Refusal("task %(task)s has no mutant %(mutant)s; it has %(known)s", task=task.name,
                          mutant=repr(unknown[0]), known=", ".join(task.mutants))  # fmt: skip
        return value

    def texts(self) -> list[tuple[Place, str]]:
        """The prompt and each translated one, with its place in the file."""
        found: list[tuple[Place, str]] = [(("prompt",), self.prompt)]
        found.extend((("translations", locale, "prompt"), t.prompt) for locale, t in self.translations.items()
                     if t.prompt is not None)  # fmt: skip
        return found


def _check_stub(stub: str, function: str, params: tuple[str, ...]) -> None:
    """The stub must parse and define `function` with exactly `params`, in order."""
    try:
        tree = ast.parse(stub)  # parsed only, never run
    except SyntaxError as error:
        raise Refusal("stub is not valid Python: line %(line)s: %(error)s", line=error.lineno, error=error.msg) from None
    except (MemoryError, RecursionError, ValueError):  # nested too deeply for the parser, or a NUL
        raise Refusal("stub cannot be read as Python (nested too deeply, or a NUL character)") from None
    wanted = f"{function}({', '.join(params)})"
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            args = node.args
            names = tuple(a.arg for a in (*args.posonlyargs, *args.args))
            if names != params or args.vararg or args.kwarg or args.kwonlyargs:
                given = f"{function}({', '.join(names)})"
                raise Refusal("stub must define %(wanted)s; it defines %(given)s", wanted=wanted, given=given)
            return
    raise Refusal("stub must define %(wanted)s at the top level", wanted=wanted)


def code_spec_from_data(data: Any, source: str) -> tuple[CodeExerciseSpec | None, list[SpecError]]:
    """Validate parsed YAML as a code exercise; returns the spec or the errors."""
    return validated(CodeExerciseSpec, data, source)


def code_spec_from_text(text: str, source: str) -> tuple[CodeExerciseSpec | None, list[SpecError]]:
    """Validate one code exercise's YAML text; returns the spec or the errors."""
    data, unread = read_source(text, source)
    return (None, unread) if unread else code_spec_from_data(data, source)


def load_code_specs(root: Path) -> tuple[list[CodeExerciseSpec], list[SpecError]]:
    """Load every `kind: code` file under `root` (a directory or one file), with its errors."""
    # Other files, and those that cannot be read or parsed, are the numeric loader's to report.
    sources, _ = read_sources(root)
    return collect([(n, t) for n, t in sources if is_code_source(t)], code_spec_from_text)


def any_spec_from_text(text: str, name: str) -> tuple[ExerciseSpec | CodeExerciseSpec | None, list[SpecError]]:
    """Validate a file as the kind it declares: code for `kind: code`, numeric otherwise."""
    read = code_spec_from_text if is_code_source(text) else spec_from_text
    return read(text, name)
