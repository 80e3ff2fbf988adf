"""JSON API for scripts and tools: bearer tokens only; the same grading and storage as the web form."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from flask import Blueprint, abort, current_app, jsonify, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import force_locale

from grader.answers.results import ExerciseResult
from grader.answers.syntax import syntax_hint
from grader.catalog.policy import AttemptPolicy, is_open
from grader.catalog.spec import CODE_KIND, ExerciseSpec
from grader.catalog.variants import Variant
from grader.extensions import limiter
from grader.models import Exercise, utcnow
from grader.services import attempts, exercises, gradebook, progress
from grader.services.course_content import offered_ids, uses
from grader.services.course_rules import for_learner, in_order, opens_in
from grader.web import openapi
from grader.web.csv_download import csv_attachment
from grader.web.api_request import answers_from_body, bearer, caller_key, course, language
from grader.web.api_schema import (ANSWERS_PER_EXERCISE, CODE_PART, ApiIndex, AttemptIn, AttemptOut, ExerciseDetail,
                                   ExerciseItem, GradebookQuery, InCourse, InLanguage, PartDetail, PartInfo, PartVerdict,
                                   ProgressItem)  # fmt: skip
from grader.web.course_context import Here
from grader.web.filters import feedback
from grader.web.i18n import DEFAULT
from grader.web.openapi import ErrorBody, Reply, documented

bp = Blueprint("api", __name__, url_prefix="/api/v1")
STATUS_OF = {"graded": 201, "repeat": 200, "invalid": 422}
CODE_HINT = "Python source (UTF-8, at most 64 KB) defining the function in the stub"


@bp.get("/exercises")
@documented("List the exercises", {
    200: Reply("Every exercise open to you, by lesson.", list[ExerciseItem]), 400: Reply("An unknown lang.", ErrorBody),
}, query=InLanguage)  # fmt: skip
@bearer
def list_exercises() -> ResponseReturnValue:
    """Every exercise of the caller's course open to them (its staff: all), in the course's order, with its
    answer fields."""
    lang, items, now, course_id = language(), [], utcnow(), course().seat.course_id
    used = offered_ids(course_id)
    listed = [e for e in exercises.all_exercises(published_only=True) if e.id in used]
    for shown in in_order(course_id, listed):
        exercise = shown.exercise
        if not (course().staff or is_open(shown.opens_at, now)):
            continue
        stored = exercises.version(exercise.id, exercise.current_version)
        if stored is None:
            continue
        parts = [CODE_PART]
        if exercise.kind != CODE_KIND:
            spec = exercises.spec_of(stored)
            parts = [PartInfo(p.id, p.type, spec.label_in(p.id, lang)) for p in spec.parts]
        item = ExerciseItem(exercise.id, exercise.title_in(lang), exercise.lesson, exercise.kind, parts)
        items.append(asdict(item))
    return jsonify(items)


@bp.get("/exercises/<exercise_id>")
@documented("Your variant of an exercise", {
    200: Reply("The prompt, shown parameters and answer fields of your own variant.", ExerciseDetail),
    400: Reply("An unknown lang.", ErrorBody),
    403: Reply("The exercise has not opened yet; the message says when.", ErrorBody),
    404: Reply("No exercise with that id.", ErrorBody),
}, description="Without the answers or the seed: the seed would let anyone compute the answers.", query=InLanguage)
@bearer
def show_exercise(exercise_id: str) -> ResponseReturnValue:
    """The caller's own variant, without answers or seed."""
    lang = language()
    found = exercises.published(exercise_id)
    if not uses(course().seat.course_id, exercise_id):
        raise exercises.UnknownExercise(exercise_id)
    attempts.ensure_open(opens_in(course().seat.course_id, found), early=course().staff)
    if found.kind == CODE_KIND:
        return jsonify(asdict(_code_detail(found, lang)))
    stored, variant = attempts.learner_variant(course().seat, exercise_id, early=course().staff)
    spec = stored.policy()
    detail = ExerciseDetail(*variant_fields(spec, variant, lang), *_due(spec), stored.version)
    return jsonify(asdict(detail))


@bp.post("/exercises/<exercise_id>/attempts")
@documented("Submit an attempt", {
    201: Reply("Graded and stored as a new attempt.", AttemptOut),
    200: Reply("The same answers as an earlier attempt: not stored again, no attempt used.", AttemptOut),
    403: Reply("The exercise has not opened yet; the message says when.", ErrorBody),
    404: Reply("No exercise with that id.", ErrorBody),
    409: Reply("No attempts are left on this exercise, it takes code, or it changed since the version sent.",
               ErrorBody),
    400: Reply("The body is not JSON of the documented shape, or names a part the exercise does not have.",
               ErrorBody),
    422: Reply("An answer is malformed: per-part messages; nothing stored.", AttemptOut),
    429: Reply("More than 30 attempts a minute.", ErrorBody),
}, body=AttemptIn, description="Graded against your own variant and stored as from the web form.",
   per_value=ANSWERS_PER_EXERCISE, query=InLanguage)
@bearer
@limiter.limit("30 per minute", key_func=caller_key)
def submit_attempt(exercise_id: str) -> ResponseReturnValue:
    """Grade an attempt and store it when it counts."""
    lang = language()
    answers, body = answers_from_body(("answers", "version"), 'Send {"answers": {"<part id>": "<answer>"}, '
                                      '"version": <the exercise\'s version, optional>}.')  # fmt: skip
    seen = body.get("version")
    if seen is not None and type(seen) is not int:
        abort(400, "version must be the integer the exercise's GET gave.")
    try:
        submission = attempts.submit(course().seat, exercise_id, answers, early=course().staff, seen=seen)
    except attempts.CodeExercise:
        abort(409, "This exercise takes code: POST it to /api/v1/exercises/<id>/submissions.")
    except attempts.VersionChanged:
        abort(409, "The exercise has changed since that version, and its numbers may have too: GET it again. "
                   "Nothing was graded or stored.")  # fmt: skip
    if submission.outcome == "closed":
        abort(409, "No attempts are left on this exercise.")
    return jsonify(_attempt_json(_attempt_out(submission, lang))), STATUS_OF[submission.outcome]


@bp.get("/progress")
@documented("Your progress", {200: Reply("Per exercise with a graded attempt or an instructor's score.", list[ProgressItem])}, query=InCourse)
@bearer
def my_progress() -> ResponseReturnValue:
    """The caller's best score, graded attempts and solved flag per exercise."""
    items = [ProgressItem(p.exercise_id, p.score, p.attempts_used, p.solved_at is not None, p.overridden)
             for p in progress.graded(course().seat)]  # fmt: skip
    return jsonify([asdict(item) for item in items])


@bp.get("/gradebook.csv")
@documented("The gradebook as CSV", {
    200: Reply("A header, then per learner: solved count, best score and attempts per exercise.", str,
               "text/csv"),
    403: Reply("Instructors only.", ErrorBody),
}, query=GradebookQuery)
@bearer
def gradebook_csv() -> ResponseReturnValue:
    """The gradebook, streamed as CSV (instructors only)."""
    return gradebook_csv_of(course(), "gradebook.csv")


def gradebook_csv_of(here: Here, filename: str) -> ResponseReturnValue:
    """A course's gradebook as streamed CSV, filtered by ?lesson=, ?exercise=, ?learner= (403 for a learner)."""
    if not here.staff:
        abort(403, "Only the course's instructors and TAs can download its gradebook.")
    filters = gradebook.Filters(here.seat.course_id, lesson=request.args.get("lesson") or None,
                                exercise=request.args.get("exercise") or None,
                                learner=request.args.get("learner") or None)  # fmt: skip
    return csv_attachment(lambda: gradebook.csv_lines(filters), filename)


@bp.get("")
@documented("Where to start", {200: Reply("Links to this API's description and documentation.", ApiIndex)})
def index() -> ResponseReturnValue:
    """The API's front door (no token needed): links, so that /api/v1 is not a 404."""
    links = ApiIndex("grader API", "1", url_for("api.openapi_document", _external=True),
                     url_for("api.reference", _external=True), url_for("auth.profile", _external=True))  # fmt: skip
    return jsonify(asdict(links))


@bp.get("/openapi.json")
@documented("This API's description", {200: Reply("The OpenAPI 3.1 document.", dict[str, Any])})
def openapi_document() -> ResponseReturnValue:
    """The OpenAPI document (no token needed)."""
    return jsonify(openapi.document(current_app, bp.url_prefix or "", "grader API", "1"))


@bp.get("/docs")
@documented("This API's reference, for people",
            {200: Reply("An HTML page showing the OpenAPI document in Swagger UI.", str, "text/html")})  # fmt: skip
def reference() -> ResponseReturnValue:
    """The OpenAPI document in a viewer (Swagger UI, vendored; no token needed)."""
    return render_template("api_docs.html", document=url_for("api.openapi_document"))


def plain(value: Any) -> Any:
    """A parameter value as JSON: numpy arrays and scalars become lists and numbers."""
    return value.tolist() if hasattr(value, "tolist") else value


VariantFields = tuple[str, str, str, str, dict[str, Any], list[PartDetail]]


def variant_fields(spec: ExerciseSpec, variant: Variant, lang: str) -> VariantFields:
    """A variant's VariantDetail fields in order: id, title, lesson, prompt, shown parameters, answer fields."""
    params = {name: plain(variant.params[name]) for name, param in spec.params.items() if param.show}
    parts = [PartDetail(p.spec.id, p.spec.type, p.label_in(lang), syntax_hint(p.spec.type, p.target.exact)) for p in variant.parts]
    return spec.id, spec.title_in(lang), spec.lesson, variant.prompt_in(lang), params, parts


def part_verdicts(result: ExerciseResult, lang: str = DEFAULT) -> dict[str, PartVerdict]:
    """Each part's verdict as the API gives it, its message in `lang`."""
    # Strict on purpose: a key added to the results must be added (and so documented) here too.
    verdicts = {pid: PartVerdict(**data) for pid, data in result.to_json()["parts"].items()}
    if lang == DEFAULT:
        return verdicts
    with force_locale(lang):
        return {pid: replace(v, message=feedback(result.parts[pid])) for pid, v in verdicts.items()}


def _attempt_out(submission: attempts.Submitted, lang: str) -> AttemptOut:
    stored, result = submission.attempt, submission.result
    left = submission.attempts_left
    parts = part_verdicts(result, lang)
    score = stored.score if stored is not None else result.score  # after the penalty, once stored
    attempt_id = stored.id if stored is not None else None
    late = stored is not None and stored.late
    return AttemptOut(attempt_id, submission.outcome, result.counted, score, late, left, parts)


def _attempt_json(out: AttemptOut) -> dict[str, Any]:
    """The reply as JSON-ready dicts: asdict's deep copy of every value cost more than the rest of the reply."""
    return {**vars(out), "parts": {pid: vars(verdict) for pid, verdict in out.parts.items()}}


def _code_detail(exercise: Exercise, lang: str) -> ExerciseDetail:
    stored = exercises.current_version(exercise.id)
    assert stored is not None
    spec = for_learner(exercises.code_spec_of(stored), course().seat)
    prompt = f"{spec.prompt_in(lang)}\n\n```python\n{spec.stub}```\n"
    part = PartDetail(CODE_PART.id, CODE_PART.type, CODE_PART.label, CODE_HINT)
    return ExerciseDetail(spec.id, spec.title_in(lang), spec.lesson, prompt, {}, [part], *_due(spec), stored.version)


def _due(spec: AttemptPolicy) -> tuple[str | None, float]:
    due = spec.due_utc
    return (None if due is None else due.isoformat() + "Z"), spec.late_credit
