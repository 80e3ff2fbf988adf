"""Code exercise specs (`kind: code`): strict pydantic models and their loader."""

from __future__ import annotations

import ast
import functools
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import AfterValidator, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from grader.catalog.loader import SpecError, collect, is_code_source, read_source, read_sources, validated
from grader.catalog.policy import AttemptPolicy
from grader.catalog.fields import MAX_MAGNITUDE, MAX_POSITION, Place, Slug, Title
from grader.catalog.spec import CODE_KIND, ExerciseSpec
from grader.catalog.translations import CodeTranslation, Locale, Localised
from grader.catalog.skills import SkillId
from grader.catalog.strict import Strict
from grader.codecheck.formula_task import FormulaReference, formula_task
from grader.codecheck.tasks import TASKS, Task, get_task, visible_edge_count
from grader.formulas.program import ProgramError
from grader.markup import math_problems
from grader.texts import Refusal

MAX_RANDOM_CASES = 100
FORMULA_TASK = "formula"


def _located_in_reference(error: ProgramError) -> ValidationError:
    """A refused formula of a code exercise's reference, placed as reference.compute.NAME."""
    details = InitErrorDetails(type=PydanticCustomError("value_error", "{problem}", {"problem": str(error)}),
                               loc=("reference", *error.where), input="")  # fmt: skip
    return ValidationError.from_exception_data("CodeExerciseSpec", [details])
MIN_HINTS = 2  # one hint alone would be the answer's first step or the answer


class CasesSpec(Strict):
    """How many random (hidden) cases follow the task's edge cases, and a seed offset."""

    random: int = Field(ge=0, le=MAX_RANDOM_CASES)
    seed_offset: int = Field(default=0, ge=0, le=2**31 - 1)


class CodeToleranceSpec(Strict):
    """np.allclose tolerances: |got − expected| <= atol + rtol·|expected|."""

    rtol: float = Field(ge=0, le=1, allow_inf_nan=False)
    atol: float = Field(ge=0, le=MAX_MAGNITUDE, allow_inf_nan=False)


def _renders_all(steps: list[str] | None) -> list[str] | None:
    """Each hint or step shows: not blank, and its math converts."""
    for step in steps or []:
        if not step.strip():
            raise Refusal("a hint or solution step cannot be blank")
        for problem in math_problems(step):
            raise ValueError(problem)
    return steps


Hints = Annotated[list[str], Field(min_length=MIN_HINTS), AfterValidator(_renders_all)]
Steps = Annotated[list[str], Field(min_length=1), AfterValidator(_renders_all)]


class CodeHelpTranslation(CodeTranslation):
    """A code exercise's title, prompt, hints and worked solution in another language."""

    hints: Hints | None = None
    solution: Steps | None = None


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
    # Help for a stuck learner, in order: hints that each go one step further, then the worked
    # solution's steps (prose and formulas, maybe a short code snippet). Both optional.
    hints: Hints | None = None
    solution: Steps | None = None
    translations: dict[Locale, CodeHelpTranslation] = {}
    # task: formula brings its reference, mistakes and inputs as formulas (grader.codecheck.formula_task).
    reference: FormulaReference | None = None
    skills: list[SkillId] = Field(default=[], max_length=12)  # grader.catalog.skills: what the function practises

    @property
    def task_object(self) -> Task:
        """The task learners' code is graded on: a built-in one, or the one this exercise's formulas describe."""
        if self.task != FORMULA_TASK:
            return get_task(self.task)
        assert self.reference is not None  # the model validator requires it
        return formula_task(json.dumps(self.reference.model_dump(mode="json"), default=str))

    # Fields are validated in order, so these validators see `task` only when it was valid. A formula
    # task is checked once its reference is read (_formula_task, below).

    @field_validator("task")
    @classmethod
    def _known_task(cls, value: str) -> str:
        if value not in TASKS and value != FORMULA_TASK:
            raise Refusal("task must be one of %(tasks)s", tasks=", ".join([*TASKS, FORMULA_TASK]))
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

    @model_validator(mode="after")
    def _formula_task(self) -> CodeExerciseSpec:
        if (self.task == FORMULA_TASK) != (self.reference is not None):
            raise Refusal("reference: give one exactly when task is formula")
        if self.reference is None:
            return self
        try:
            self.reference.program()
            task = self.task_object
        except ProgramError as error:
            raise _located_in_reference(error) from None
        _check_stub(self.stub, task.function, task.params)
        edges = sum(case.visible for case in task.cases(np.random.default_rng(0), 0))
        if self.visible_cases > edges:
            raise Refusal("reference has only %(num)d edge cases to show", num=edges)
        unknown = [name for name in self.mutants if name not in task.mutants]
        if unknown:
            raise Refusal("reference.mistakes has no %(mutant)s", mutant=repr(unknown[0]))
        for name in task.mutants:
            if name not in self.mutants:  # never graded, so never named: the file says what it does not do
                raise _located_in_reference(ProgramError(("mistakes", name), f"{name!r} is not listed in mutants, so "
                                                         "no submission is ever named by it: list it, or remove it"))
        return self

    @model_validator(mode="after")
    def _help_matches(self) -> CodeExerciseSpec:
        # A translation says the same steps: as many hints and solution steps as the English, and none
        # where the English has none.
        for locale, found in self.translations.items():
            for field, english in (("hints", self.hints), ("solution", self.solution)):
                given = getattr(found, field)
                if given is not None and len(given) != len(english or []):
                    raise Refusal("translations.%(locale)s.%(field)s: give %(num)d, as in English", locale=locale,
                                  field=field, num=len(english or []))  # fmt: skip
        return self

    def hints_in(self, locale: str) -> list[str]:
        """The hints in `locale` if the exercise gives them there, else as written (empty without hints)."""
        found = self.translations.get(locale)
        return list(found.hints if found is not None and found.hints else self.hints or [])

    def solution_in(self, locale: str) -> list[str]:
        """The worked solution's steps in `locale` if the exercise gives them there, else as written."""
        found = self.translations.get(locale)
        return list(found.solution if found is not None and found.solution else self.solution or [])

    def texts(self) -> list[tuple[Place, str]]:
        """The prompt, hints and solution steps, and each translated one, with its place in the file."""
        sets: list[tuple[Place, str | None, list[str] | None, list[str] | None]] = [
            ((), self.prompt, self.hints, self.solution),
            *((("translations", locale), t.prompt, t.hints, t.solution) for locale, t in self.translations.items())]
        found: list[tuple[Place, str]] = []
        for where, prompt, hints, solution in sets:
            if prompt is not None:
                found.append(((*where, "prompt"), prompt))
            found.extend(((*where, "hints", i), hint) for i, hint in enumerate(hints or []))
            found.extend(((*where, "solution", i), step) for i, step in enumerate(solution or []))
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


def code_spec_from_data(data: Any, source: str, text: str | None = None) -> tuple[CodeExerciseSpec | None, list[SpecError]]:
    """Validate parsed YAML (read from `text`) as a code exercise; returns the spec or the errors."""
    return validated(CodeExerciseSpec, data, source, text)


def code_spec_from_text(text: str, source: str) -> tuple[CodeExerciseSpec | None, list[SpecError]]:
    """Validate one code exercise's YAML text; returns the spec or the errors."""
    data, unread = read_source(text, source)
    return (None, unread) if unread else code_spec_from_data(data, source, text)


def load_code_specs(root: Path) -> tuple[list[CodeExerciseSpec], list[SpecError]]:
    """Load every `kind: code` file under `root` (a directory or one file), with its errors."""
    # Other files, and those that cannot be read or parsed, are the numeric loader's to report.
    sources, _ = read_sources(root)
    return collect([(n, t) for n, t in sources if is_code_source(t)], code_spec_from_text)


def any_spec_from_text(text: str, name: str) -> tuple[ExerciseSpec | CodeExerciseSpec | None, list[SpecError]]:
    """Validate a file as the kind it declares: code for `kind: code`, numeric otherwise."""
    spec, errors = _read_any_spec(text, name)
    return spec, list(errors)


# Specs are frozen, so one parse serves every sync, check and page that reads the same text: a sync
# re-reads every unchanged file, and parsing (YAML, then each text's Markdown and LaTeX) is its cost.
@functools.lru_cache(maxsize=256)
def _read_any_spec(text: str, name: str) -> tuple[ExerciseSpec | CodeExerciseSpec | None, tuple[SpecError, ...]]:
    data, unread = read_source(text, name)
    if unread:
        return None, tuple(unread)
    if isinstance(data, dict) and data.get("kind") == CODE_KIND:
        code, errors = code_spec_from_data(data, name, text)
        return code, tuple(errors)
    numeric, errors = validated(ExerciseSpec, data, name, text)
    return numeric, tuple(errors)
