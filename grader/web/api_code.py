"""JSON API for code submissions, on the API blueprint (bearer tokens only)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from flask import abort, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from flask_babel import force_locale

from grader.code_grading import SourceRejected
from grader.extensions import db, limiter
from grader.code_models import Submission
from grader.services import submissions
from grader.web import code_feedback
from grader.web.api import bp
from grader.web.api_request import bearer, body_object, caller, caller_key, course, language
from grader.web.api_schema import InLanguage, MessagesIn, SourceIn
from grader.web.i18n import translated
from grader.web.openapi import ErrorBody, Reply, documented


@dataclass(frozen=True)
class SubmissionOut:
    """A submission: pending until graded; result as `python -m grader grade-code` prints it.

    late: graded and sent after the exercise's due date, so its score is scaled by the late credit.
    mistake: the title of the mistake the result names, if any.
    inputs: each failing visible case's inputs as Python that calls your function on them again, by case name.
    """

    submission_id: int
    exercise: str
    status: str
    score: float | None
    late: bool
    result: dict[str, Any] | None
    mistake: str | None
    inputs: dict[str, str]


def _out(row: Submission, lang: str) -> SubmissionOut:
    """The submission as the API gives it, its messages in `lang`."""
    if row.result is None:
        return SubmissionOut(row.id, row.exercise_id, row.status, row.score, row.late, None, None, {})
    with force_locale(lang):
        message, cases = code_feedback.said(row)
        title = code_feedback.mistake_title(row)
        mistake = translated(title) if title else None
    said_cases = [{**case, "message": text} for case, text in zip(row.result.get("cases", []), cases)]
    result = {**row.result, "message": message, "cases": said_cases}
    return SubmissionOut(row.id, row.exercise_id, row.status, row.score, row.late, result, mistake,
                         code_feedback.inputs(row))  # fmt: skip


def _source() -> bytes | str:
    usage = 'Send {"source": "<python code>"} as JSON, or a multipart file in the field "file".'
    if request.mimetype == "multipart/form-data":
        # As with JSON, a field not taken is named, never ignored: a misspelt "fiel" would lose the code.
        unknown = sorted({*request.files, *request.form} - {"file"})
        if unknown:
            abort(400, f"Unknown field {', '.join(map(repr, unknown[:5]))}. {usage}")
        upload = request.files.get("file")
        if upload is not None:
            return upload.read(submissions.MAX_UPLOAD_READ)
        if "file" in request.form:  # a part without a file name (curl -F 'file=<code.py'): its text
            return request.form["file"]
        abort(400, usage)
    source = body_object(("source",), usage).get("source")
    if not isinstance(source, str):
        abort(400, usage)
    return source


@bp.post("/exercises/<exercise_id>/submissions")
@documented("Submit code", {
    201: Reply("Stored; graded if grading finished within a few seconds, else pending.", SubmissionOut),
    200: Reply("The same source as an earlier submission: that one is returned.", SubmissionOut),
    403: Reply("The exercise has not opened yet; the message says when.", ErrorBody),
    404: Reply("No exercise with that id.", ErrorBody),
    409: Reply("Not a code exercise, or no attempts left.", ErrorBody),
    422: Reply("Not acceptable source: not UTF-8, over 64 KB, or empty.", ErrorBody),
    429: Reply("More than 10 submissions a minute.", ErrorBody),
}, body=SourceIn, upload="file", description="Poll GET /api/v1/submissions/<id> while the status is pending.",
   query=InLanguage)
@bearer
@limiter.limit("10 per minute", key_func=caller_key)
def submit_code(exercise_id: str) -> ResponseReturnValue:
    """Store a code submission and grade it in the sandbox."""
    lang = language()
    try:
        made = submissions.create(course().seat, exercise_id, _source(), early=course().staff)
    except submissions.NotCodeExercise:
        abort(409, "This exercise takes typed answers: POST them to /api/v1/exercises/<id>/attempts.")
    except submissions.AttemptsUsed:
        abort(409, "No attempts are left on this exercise.")
    except submissions.GaveUp:
        abort(409, "You gave up on this exercise, or the course has ended: no run counts any more.")
    except SourceRejected as error:
        abort(422, str(error))
    if made.submission.status == "pending":
        if submissions.dispatch(current_app._get_current_object(), made.submission.id):  # type: ignore[attr-defined]
            submissions.wait_until_graded(made.submission.id)
    return jsonify(asdict(_out(made.submission, lang))), 201 if made.new else 200


@bp.get("/submissions/<int:submission_id>")
@documented("One of your submissions", {
    200: Reply("The submission and, once graded, its result.", SubmissionOut),
    400: Reply("An unknown lang.", ErrorBody),
    404: Reply("No such submission of yours.", ErrorBody),
}, query=MessagesIn)
@bearer
def show_submission(submission_id: int) -> ResponseReturnValue:
    """A submission of the caller's (another learner's is a 404, not a 403: ids reveal nothing)."""
    lang = language()
    row = db.session.get(Submission, submission_id)
    if row is None or row.user_id != caller().user_id:
        abort(404, "There is no submission of yours with that id.")
    return jsonify(asdict(_out(row, lang)))
