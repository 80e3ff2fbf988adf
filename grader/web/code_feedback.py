"""What a graded code submission tells its learner beyond its stored result, for the page and the API alike:
its messages in their language, the named mistake's title, and each failing visible case's inputs as Python."""

from __future__ import annotations

from grader.codecheck.pasteable import failing_inputs
from grader.code_models import Submission
from grader.services import exercises
from grader.texts import Text
from grader.web.i18n import translated


def said(shown: Submission | None) -> tuple[str, list[str]]:
    """The shown result's message and its cases' messages in the request's language."""
    if shown is None or shown.result is None:
        return "", []
    texts = shown.feedback or {}  # submissions graded before it was kept have English only
    if not texts:
        cases = [translated(c["message"]) for c in shown.result.get("cases", [])]
        return translated(shown.result.get("message", "")), cases
    return translated(Text.from_json(texts["message"])), [translated(Text.from_json(t)) for t in texts["cases"]]


def mistake_title(shown: Submission | None) -> str | None:
    """The title of the mistake the result names (English, a catalogue text), when the task graded still knows it."""
    name: str | None = (shown.result or {}).get("misconception") if shown else None
    stored = exercises.version(shown.exercise_id, shown.version) if name and shown else None
    if stored is None or name is None:
        return None
    try:
        known = exercises.code_spec_of(stored).task_object.mutants.get(name)
    except (KeyError, ValueError):  # a version whose task the registry no longer has: left unnamed
        return None
    return known.title if known else None


def inputs(shown: Submission | None) -> dict[str, str]:
    """Each failing visible case's inputs as pasteable Python, regenerated from the version and seed graded."""
    cases = (shown.result or {}).get("cases", []) if shown else []
    failing = [case["name"] for case in cases if case.get("status") != "passed"]
    stored = exercises.version(shown.exercise_id, shown.version) if failing and shown else None
    if stored is None or shown is None:
        return {}
    try:
        return failing_inputs(exercises.code_spec_of(stored), shown.seed, failing)
    except (KeyError, ValueError):  # a version whose task the registry no longer has: the verdict still shows
        return {}
