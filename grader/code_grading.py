"""Grade one code submission: cases and expected outputs here, learner code only in the sandbox.

The reference and the mutants run in this process (grader.codecheck.prepare); only the cases'
inputs travel to the sandbox; the verdict is computed here from what comes back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from grader.codecheck.prepare import prepare, sandbox_cases
from grader.codecheck.results import CodeResult
from grader.codecheck.spec import CodeExerciseSpec
from grader.codecheck.verdict import grade
from grader.texts import N_, Refusal, say

MAX_SOURCE_BYTES = 64 * 1024
# A run the sandbox reports as starved (stopped by the clock while the busy host kept it from a CPU, on
# every try) says nothing about the code: no verdict, and no attempt used.
HOST_BUSY = N_("Not graded: the server was too busy to give your code its share of the processor. It was "
               "stopped by the %(seconds)s s time limit on each of %(tries)d tries while it had used little "
               "of its own CPU time. This try was not counted; please submit it again in a few minutes.")


class Runner(Protocol):
    """What runs learner code: grader.sandbox.SandboxPool."""

    def run(self, source: str, function: str, params: list[str], cases: list[dict],
            changes: Sequence[str] = ()) -> object:
        """Run `function` from `source` on each case's keyword arguments; report `changes` after each call."""


class SourceRejected(Refusal):
    """An upload that is not acceptable Python source; the message is for the learner."""


def too_large() -> SourceRejected:
    """The refusal of code over MAX_SOURCE_BYTES (also said for a body too large to read at all)."""
    return SourceRejected("The code is larger than %(size)d KB.", size=MAX_SOURCE_BYTES // 1024)


def read_source(raw: bytes | str) -> str:
    """Check an upload: UTF-8, at most 64 KB, no NUL bytes, not empty; returns the text."""
    text = read_text(raw)
    if not text.strip():
        raise SourceRejected("The code is empty.")
    return text


def read_text(raw: bytes | str) -> str:
    """Check code that may be empty (a draft): UTF-8, at most 64 KB, no NUL bytes; returns the text."""
    try:
        data = raw.encode("utf-8") if isinstance(raw, str) else raw
    except UnicodeEncodeError:
        raise SourceRejected("The code contains characters that are not valid Unicode text.") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise too_large()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SourceRejected("The code is not UTF-8 text (byte %(at)d cannot be read).", at=error.start) from None
    if "\x00" in text:
        raise SourceRejected("The code contains a NUL byte.")
    return text


def grade_code(spec: CodeExerciseSpec, source: str, seed: int, runner: Runner) -> CodeResult:
    """Prepare fresh cases for `seed`, run the submission in the sandbox and judge its outputs."""
    task = spec.task_object
    prepared = prepare(spec, seed)
    run = runner.run(source, task.function, list(task.params), sandbox_cases(prepared), task.changes)
    if getattr(run, "status", None) == "starved":
        facts = getattr(run, "facts", None) or {}
        text = say(HOST_BUSY, seconds=facts.get("seconds", "?"), tries=facts.get("tries", 1))
        return CodeResult("invalid", 0.0, text=text, duration_ms=round(float(getattr(run, "duration_ms", 0)), 3))
    return grade(spec, task, prepared.cases, prepared.expected, prepared.mutant_outputs, run)
