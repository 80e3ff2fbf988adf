"""Turn the sandbox's run of a submission into a verdict. Pure: nothing here runs learner code."""

from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from grader.codecheck.base import Case, Task
from grader.codecheck.compare import HIDDEN_MESSAGES, compare, worst_index
from grader.codecheck.prepare import Prepared, prepare, sandbox_cases
from grader.codecheck.results import CaseStatus, CaseVerdict, CodeResult, CodeStatus
from grader.codecheck.spec import CodeExerciseSpec, CodeToleranceSpec
from grader.sandbox import reasons
from grader.texts import N_, Text, joined, say, say_from, say_n

__all__ = ["CaseVerdict", "CodeResult", "Prepared", "grade", "prepare", "sandbox_cases"]

MAX_ERROR_CHARS = 500
# Run-level failures: the result status and what to say when the sandbox gives no message.
RUN_FAILURES: dict[str, tuple[CodeStatus, Text]] = {
    # Only compiled, never run, so it tells nothing about the cases: it costs no attempt (as a
    # malformed typed answer does not).
    "syntax_error": ("error", say("Your code has a syntax error. This try was not counted.")),
    "load_error": ("error", say("Your code raised an exception while loading, before any case ran.")),
    "missing_function": ("error", say("Your code does not define the function asked for.")),
    "bad_signature": ("error", say("Your function's parameters are not the ones asked for.")),
    "crashed": ("error", say("Your code crashed the process running it.")),
    "timeout": ("timeout", say("Your code took too long.")),
    "memory_limit": ("memory_limit", say("Your code used too much memory.")),
}
# What the host saw when a run stopped early (grader/sandbox/results.py Facts): the sentence and
# the facts it needs; a cause without them falls back to the status's default.
CAUSES: dict[str, tuple[str, tuple[str, ...]]] = {
    "cpu": (N_("Your code took too long: it used more than %(seconds)s s of CPU time."), ("seconds",)),
    "wall": (N_("Your code took too long: it ran for more than %(seconds)s s."), ("seconds",)),
    "memory": (N_("Your code's process died of %(signal)s: most likely it ran out of memory (the limit is "
                  "%(mib)s MiB), or native code crashed."), ("signal", "mib")),
    "exit": (N_("Your code ended the process running it (exit status %(status)s)."), ("status",)),
    "signal": (N_("The process running your code was killed by signal %(signal)s."), ("signal",)),
    "result_overflow": (N_("Your code sent back more result data than allowed."), ()),
    "malformed": (N_("Your code's results came back in a form the grader cannot read."), ()),
}
# Run-level failures whose report from the sandbox is worth showing under the sentence.
REPORTED = ("syntax_error", "load_error", "bad_signature")
ONLY_NUMPY = say("Only numpy and Python's standard library can be imported here.")
UNAVAILABLE = say("Your code could not be run just now; this attempt was not counted. Please try again.")
STOPPED_HERE = say("The process running your code stopped in this case.")
LOADING = say("(Code at the top level of your file, outside the function, runs just before the first case and "
              "counts as part of it.)")


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
        ran = _until_stopped(cases, expected_outputs, runs, run_result, spec.tolerance)
        return _run_failure(run_result, task, duration, cases, spec.stub, ran)
    if len(runs) != len(cases) or len(expected_outputs) != len(cases) or not cases:
        # A run that does not answer every case is the grader's fault: report, do not count.
        note = say("(the run returned %(got)d results for %(cases)d cases)", got=len(runs), cases=len(cases))
        return CodeResult("invalid", 0.0, text=joined([UNAVAILABLE, note], " "), duration_ms=duration)
    triples = zip(cases, expected_outputs, runs)
    verdicts = tuple(_case_verdict(c, e, r, spec.tolerance) for c, e, r in triples)
    passed = sum(v.status == "passed" for v in verdicts)
    if passed == len(verdicts):
        return CodeResult("passed", 1.0, verdicts, say_n("All %(num)d case passed.", "All %(num)d cases passed.",
                                                          passed), None, duration)  # fmt: skip
    score = round(passed / len(verdicts), 6) if spec.scoring == "fraction" else 0.0
    mistake = _misconception(spec, runs, mutant_outputs)
    said = [say_n("%(passed)d of %(num)d case passed.", "%(passed)d of %(num)d cases passed.", len(verdicts),
                  passed=passed)]  # fmt: skip
    if spec.scoring == "all":
        said.append(say("Credit needs every case to pass."))
    if mistake is not None:
        said.append(say("Every output matches what you get with %(mistake)s.", mistake=Text(task.mutants[mistake].title)))
    return CodeResult("failed", score, verdicts, joined(said, " "), mistake, duration)


def _until_stopped(cases: Sequence[Case], expected_outputs: Sequence[Any], runs: Sequence[Any], run_result: Any,
                   tolerance: CodeToleranceSpec) -> tuple[CaseVerdict, ...]:  # fmt: skip
    """For a run that stopped in a case: the verdicts of the cases before it, then that case's, with what
    it printed if it is visible; nothing when where it stopped is unknown."""
    stopped = _stopped_in(run_result, cases)
    if stopped is None or len(expected_outputs) != len(cases):
        return ()
    before = (_case_verdict(c, e, r, tolerance) for c, e, r in zip(cases[:stopped], expected_outputs, runs))
    case, run = cases[stopped], runs[stopped]
    if run.status in ("timeout", "memory_limit"):
        status, text = _case_outcome(case, None, run, tolerance)
    else:  # the process crashed: no case status says more than where
        status, text = "error", STOPPED_HERE
    if not case.visible:
        return (*before, CaseVerdict(case.name, status, text))
    return (*before, CaseVerdict(case.name, status, text, True, run.printed, run.printed_dropped))


def _run_failure(run_result: Any, task: Task, duration: float, cases: Sequence[Case] = (),
                 stub: str = "", ran: tuple[CaseVerdict, ...] = ()) -> CodeResult:
    """Map a run that did not complete to an error, timeout, memory_limit or invalid result."""
    if run_result.status not in RUN_FAILURES:
        # "unavailable" and anything unforeseen are the grader's problem, not the learner's.
        return CodeResult("invalid", 0.0, text=UNAVAILABLE, duration_ms=duration)
    status, default = RUN_FAILURES[run_result.status]
    said: list[Text | None] = [_cause(getattr(run_result, "facts", None) or {}) or default]
    if run_result.status in ("missing_function", "bad_signature"):
        said.append(say("Expected: def %(function)s(%(params)s).", function=task.function, params=_parameters(task, stub)))
    told = _told(run_result)
    if run_result.status == "load_error" and "ModuleNotFoundError" in told:
        said.append(ONLY_NUMPY)
    said.append(_case_running(run_result, cases))
    text = joined([part for part in said if part is not None], " ")
    # The sandbox's own report goes below the sentence, as it came: Python's syntax report (the
    # line and a pointer), the traceback of an error while loading, or the signature found.
    report = _in_words(told) if run_result.status == "bad_signature" else Text(told)
    return CodeResult(status, 0.0, ran, text=joined([text, report], "\n") if told else text, duration_ms=duration,
                      counts=run_result.status != "syntax_error")


def _told(run_result: Any) -> str:
    """The sandbox's report on the code itself, for the statuses that have one; a traceback keeps
    its last lines."""
    told = (getattr(run_result, "message", "") or "").strip() if run_result.status in REPORTED else ""
    return _last_lines(told) if run_result.status == "load_error" else told


def _stopped_in(run_result: Any, cases: Sequence[Case]) -> int | None:
    """The index of the case a run that stopped early was in (the first it sent no result for), when the
    host says which and reports every case; the case list and the sentence both go by it."""
    done = (getattr(run_result, "facts", None) or {}).get("case")
    runs: Sequence[Any] = getattr(run_result, "cases", None) or ()
    if type(done) is not int or not 0 <= done < len(cases) or len(runs) != len(cases):
        return None
    return done


def _case_running(run_result: Any, cases: Sequence[Case]) -> Text | None:
    """Which case a run that stopped early was on: the first one it sent no result for."""
    done = _stopped_in(run_result, cases)
    if done is None:
        return None
    running = cases[done]
    if running.visible:
        said = say("It stopped in case %(name)s, after %(done)d of %(total)d cases.", name=running.name,
                   done=done, total=len(cases))  # fmt: skip
    else:
        said = say("It stopped in a hidden case, after %(done)d of %(total)d cases.", done=done, total=len(cases))
    # Nothing tells a stop in the first case from one while the file loaded, unless the case printed.
    printed = bool(getattr(run_result.cases[0], "printed", ""))
    return joined([said, LOADING], " ") if done == 0 and not printed else said


def _parameters(task: Task, stub: str) -> str:
    """The parameters as the exercise's stub writes them (`x, gamma, beta, eps=1e-5`), or as the task
    names them when the stub has no such def."""
    found = re.search(rf"def\s+{re.escape(task.function)}\s*\((.*?)\)\s*(?:->[^:]*)?:", stub, re.DOTALL)
    return " ".join(found.group(1).split()) if found else ", ".join(task.params)


def _cause(facts: Mapping[str, Any]) -> Text | None:
    """A run-level failure in the learner's terms, from the host's facts; None for the default."""
    cause = facts.get("cause")
    return say_from(*CAUSES[cause], facts) if cause in CAUSES else None


def _case_verdict(case: Case, expected: Any, run: Any, tolerance: CodeToleranceSpec) -> CaseVerdict:
    """Pass, fail, error or timeout for one case, with what a visible case printed."""
    status, text = _case_outcome(case, expected, run, tolerance)
    if not case.visible:
        return CaseVerdict(case.name, status, text)
    return CaseVerdict(case.name, status, text, True, run.printed, run.printed_dropped)


def _case_outcome(case: Case, expected: Any, run: Any, tolerance: CodeToleranceSpec) -> tuple[CaseStatus, Text]:
    """The case's status and message; hidden cases are described without values."""
    if run.status == "ok":
        mismatch = compare(expected, run.value, tolerance.rtol, tolerance.atol)
        if mismatch is None:
            return "passed", say("Passed.")
        if not case.visible:
            return "failed", HIDDEN_MESSAGES[mismatch.kind]
        row = _edge_row(case, expected, run.value, tolerance) if mismatch.kind in ("values", "nonfinite") else None
        return "failed", mismatch.detail if row is None else joined([mismatch.detail, row], " ")
    if run.status == "exception":
        return "error", _exception_message(run.error, case.visible)
    if run.status == "timeout":
        return "timeout", say("Took too long on this case.")
    if run.status == "memory_limit":
        return "error", say("Used too much memory on this case.")
    if run.status == "bad_result":
        return "failed", _uncheckable(run.error if case.visible else None)
    return "error", say("This case could not be run.")


def _edge_row(case: Case, expected: Any, got: Any, tolerance: CodeToleranceSpec) -> Text | None:
    """For a case named for one row, which row that is, and whether the largest error is in it."""
    if case.edge_row is None:
        return None
    worst = worst_index(expected, got, tolerance.rtol, tolerance.atol)
    if worst is None or len(worst) < 2:
        return None
    edge, holds = case.edge_row.row, Text(case.edge_row.holds)
    if worst[0] == edge:
        return say("Row %(edge)d is the edge this case is named for: %(holds)s.", edge=edge, holds=holds)
    return say("The largest error is in row %(row)d, not in the edge this case is named for: row %(edge)d, where "
               "%(holds)s.", row=worst[0], edge=edge, holds=holds)  # fmt: skip


def _uncheckable(error: Any) -> Text:
    # The sandbox says what it could not carry; that names types and limits, not values.
    if not error:
        return say("Returned a value that cannot be checked: return a numpy array, a number or a dict of numbers.")
    return say("Returned a value that cannot be checked: return a numpy array, a number or a dict of numbers "
               "(%(why)s).", why=_in_words(str(error).strip()))  # fmt: skip


def _in_words(reason: str) -> Text:
    """A reason the sandbox's runner gave, as a sentence the page translates when it is one of its own."""
    reason = reason[:MAX_ERROR_CHARS]  # learner code can forge the text: keep matching it cheap
    found = reasons.recognise(reason)
    return say(found[0], **found[1]) if found else Text(reason)


def _last_lines(text: str) -> str:
    """A traceback's non-blank last lines within MAX_ERROR_CHARS, where the exception itself is, cut
    on a line boundary and saying so; a single overlong line keeps its end ("" for no text)."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    kept: list[str] = []
    size = 0
    for line in reversed(lines):
        size += len(line) + 1
        if size > MAX_ERROR_CHARS:
            break
        kept.append(line)
    if len(kept) == len(lines):
        return "\n".join(lines)
    if not kept:
        return "…" + lines[-1][-(MAX_ERROR_CHARS - 1):]
    return "\n".join(["…", *reversed(kept)])


def _exception_message(error: Any, visible: bool) -> Text:
    """The sandbox's error text for a visible case; for a hidden one, only that it raised."""
    if visible:
        shown = _last_lines(str(error or ""))
        if not shown:
            return say("Raised an exception (no message).")
        return say("Raised an exception:\n%(error)s", error=shown)
    # Nothing from the traceback, not even the exception's type: code can pick which exception to
    # raise from the hidden inputs (one of sixty built-in types is six bits a case), and the
    # message could spell them out. The visible cases show the whole error.
    return say("Raised an exception.")


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
