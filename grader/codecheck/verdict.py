"""Turn the sandbox's run of a submission into a verdict. Pure: nothing here runs learner code."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from grader.codecheck.base import Case, Task
from grader.codecheck.compare import HIDDEN_MESSAGES, compare
from grader.codecheck.prepare import Prepared, prepare, sandbox_cases
from grader.codecheck.results import CaseVerdict, CodeResult, CodeStatus
from grader.codecheck.spec import CodeExerciseSpec, CodeToleranceSpec

__all__ = ["CaseVerdict", "CodeResult", "Prepared", "grade", "prepare", "sandbox_cases"]

MAX_ERROR_CHARS = 500
# Run-level failures: the result status and what to say when the sandbox gives no message.
RUN_FAILURES: dict[str, tuple[CodeStatus, str]] = {
    "syntax_error": ("error", "Your code has a syntax error."),
    "missing_function": ("error", "Your code does not define the function asked for."),
    "bad_signature": ("error", "Your function's parameters are not the ones asked for."),
    "crashed": ("error", "Your code crashed the process running it."),
    "timeout": ("timeout", "Your code took too long."),
    "memory_limit": ("memory_limit", "Your code used too much memory."),
}
UNAVAILABLE = "Your code could not be run just now; this attempt was not counted. Please try again."
UNCHECKABLE = ("Returned a value that cannot be checked: return a numpy array, a number "
               "or a dict of numbers.")


def grade(
    spec: CodeExerciseSpec,
    task: Task,
    cases: Sequence[Case],
    expected_outputs: Sequence[Any],
    mutant_outputs: Mapping[str, Sequence[Any]],
    run_result: Any,
) -> CodeResult:
    """The verdict on a run (duck-typed sandbox RunResult) of the submission on `cases`."""
    runs = list(getattr(run_result, "cases", None) or ())
    # The run's own duration is measured by the host; per-case figures come from inside the
    # sandbox, where learner code can fake the clock.
    duration = round(float(getattr(run_result, "duration_ms", 0) or 0), 3)
    if run_result.status != "completed":
        return _run_failure(run_result, task, duration)
    if len(runs) != len(cases) or len(expected_outputs) != len(cases) or not cases:
        # A run that does not answer every case is the grader's fault: report, do not count.
        note = f" (the run returned {len(runs)} results for {len(cases)} cases)"
        return CodeResult("invalid", 0.0, message=UNAVAILABLE + note, duration_ms=duration)
    triples = zip(cases, expected_outputs, runs)
    verdicts = tuple(_case_verdict(c, e, r, spec.tolerance) for c, e, r in triples)
    passed = sum(v.status == "passed" for v in verdicts)
    if passed == len(verdicts):
        return CodeResult("passed", 1.0, verdicts, f"All {passed} cases passed.", None, duration)
    score = round(passed / len(verdicts), 6) if spec.scoring == "fraction" else 0.0
    mistake = _misconception(spec, runs, mutant_outputs)
    message = f"{passed} of {len(verdicts)} cases passed."
    if spec.scoring == "all":
        message += " Credit needs every case to pass."
    if mistake is not None:
        message += f" Every output matches what you get with {task.mutants[mistake].title}."
    return CodeResult("failed", score, verdicts, message, mistake, duration)


def _run_failure(run_result: Any, task: Task, duration: float) -> CodeResult:
    """Map a run that did not complete to an error, timeout, memory_limit or invalid result."""
    if run_result.status not in RUN_FAILURES:
        # "unavailable" and anything unforeseen are the grader's problem, not the learner's.
        return CodeResult("invalid", 0.0, message=UNAVAILABLE, duration_ms=duration)
    status, default = RUN_FAILURES[run_result.status]
    if run_result.status in ("missing_function", "bad_signature"):
        default += f" Expected: def {task.function}({', '.join(task.params)})."
    message = (getattr(run_result, "message", "") or "").strip() or default
    return CodeResult(status, 0.0, message=message, duration_ms=duration)


def _case_verdict(case: Case, expected: Any, run: Any, tolerance: CodeToleranceSpec) -> CaseVerdict:
    """Pass, fail, error or timeout for one case; hidden cases are described without values."""
    name, visible = case.name, case.visible
    if run.status == "ok":
        mismatch = compare(expected, run.value, tolerance.rtol, tolerance.atol)
        if mismatch is None:
            return CaseVerdict(name, "passed", "Passed.", visible)
        text = _sentence(mismatch.detail) if visible else HIDDEN_MESSAGES[mismatch.kind]
        return CaseVerdict(name, "failed", text, visible)
    if run.status == "exception":
        return CaseVerdict(name, "error", _exception_message(run.error, visible), visible)
    if run.status == "timeout":
        return CaseVerdict(name, "timeout", "Took too long on this case.", visible)
    if run.status == "memory_limit":
        return CaseVerdict(name, "error", "Used too much memory on this case.", visible)
    if run.status == "bad_result":
        # The sandbox says what it could not carry; that names types and limits, not values.
        why = f" ({str(run.error).strip()[:MAX_ERROR_CHARS]})" if visible and run.error else ""
        return CaseVerdict(name, "failed", UNCHECKABLE[:-1] + why + ".", visible)
    return CaseVerdict(name, "error", "This case could not be run.", visible)


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _exception_message(error: Any, visible: bool) -> str:
    """The sandbox's error text for a visible case; only the exception's type for a hidden one."""
    lines = [line.rstrip() for line in str(error or "").splitlines() if line.strip()]
    if visible:
        text = "\n".join(lines)
        return "Raised an exception:\n" + (text[-MAX_ERROR_CHARS:] if text else "(no message)")
    # Nothing from the traceback: its last line is whatever the learner's exception message says,
    # which could spell out the hidden inputs.
    return "Raised an exception."


def _misconception(
    spec: CodeExerciseSpec, runs: list[Any], mutant_outputs: Mapping[str, Sequence[Any]]
) -> str | None:
    """The first listed mutant whose output every case reproduces (within tolerance)."""
    tol = spec.tolerance
    for name in spec.mutants:
        outputs = mutant_outputs.get(name)
        if outputs is None or len(outputs) != len(runs):
            continue
        if all(r.status == "ok" and compare(out, r.value, tol.rtol, tol.atol) is None
               for r, out in zip(runs, outputs)):  # fmt: skip
            return name
    return None
