"""The pieces a code task is made of: cases, mutants and the task itself."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Literal, Mapping

import numpy as np

Output = Literal["array", "dict"]
CaseGenerator = Callable[[np.random.Generator, int], list["Case"]]


@dataclass(frozen=True)
class EdgeRow:
    """The row of the input a named edge case is about, and what that row holds."""

    row: int
    holds: str  # completes "row 1 is the edge this case is named for: …"; marked with N_


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: keyword arguments and whether its inputs may be shown."""

    name: str
    kwargs: dict[str, Any]
    visible: bool = False
    edge_row: EdgeRow | None = None  # for a case named for one row of a matrix input


@dataclass(frozen=True)
class Mutant:
    """A named mistake: a function with the task's signature that computes the mistaken output."""

    name: str
    title: str  # completes "the output you get with …"
    compute: Callable[..., Any]


@dataclass(frozen=True)
class Task:
    """A function learners write, with its reference, its inputs and the mistakes it recognises."""

    name: str
    function: str
    params: tuple[str, ...]
    reference: Callable[..., Any]
    cases: CaseGenerator
    mutants: Mapping[str, Mutant] = field(default_factory=dict)
    output: Output = "array"
    # Arguments the function must change in place (microGPT appends to its KV cache): their state
    # after each call is checked as well as what the function returns.
    changes: tuple[str, ...] = ()


def mutants(*items: Mutant) -> dict[str, Mutant]:
    """Index mutants by name, keeping their order."""
    return {m.name: m for m in items}


def edge(name: str, **kwargs: Any) -> Case:
    """A named edge case: its inputs may be shown to the learner."""
    return Case(name, kwargs, visible=True)


def about_row(row: int, holds: str, case: Case) -> Case:
    """The edge case, marked as named for one row of its matrix input, which `holds` describes."""
    return replace(case, edge_row=EdgeRow(row, holds))


def hidden(index: int, **kwargs: Any) -> Case:
    """A random case: only pass or fail is reported."""
    return Case(f"random-{index + 1}", kwargs, visible=False)


def weight(rng: np.random.Generator, n_in: int, n_out: int) -> np.ndarray:
    """A random (n_in, n_out) matrix scaled by 1/sqrt(fan_in), so activations stay near 1."""
    return rng.normal(size=(n_in, n_out)) / np.sqrt(n_in)
