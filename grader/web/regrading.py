"""Regrading an exercise from its instructor page (the route is on the teach blueprint, behind its guard)."""

from __future__ import annotations

from flask import abort, flash, redirect, url_for
from flask_babel import lazy_gettext as _l, ngettext
from flask_login import current_user
from werkzeug.wrappers import Response

from grader.services import regrade
from grader.services.attempts import CodeExercise
from grader.web.course_context import course_exercise, course_id
from grader.web.teach import bp


@bp.post("/exercises/<exercise_id>/regrade")
def regrade_exercise(exercise_id: str) -> Response:
    """Grade every stored attempt in this course again against the current version (CSRF-checked like every
    form); an exercise the course does not use is a 404."""
    try:
        done = regrade.regrade(course_exercise(exercise_id).id, current_user.id, course_id())
    except CodeExercise:
        abort(409, _l("Code exercises are not regraded: that would run every submission again."))
    flash(ngettext("Regraded %(num)d attempt against version %(version)d. Scores changed: %(changed)d. "
                   "Kept as they were: %(kept)d.",
                   "Regraded %(num)d attempts against version %(version)d. Scores changed: %(changed)d. "
                   "Kept as they were: %(kept)d.",
                   done.attempts - len(done.kept), version=done.version, changed=done.changed, kept=len(done.kept)))  # fmt: skip
    return redirect(url_for("teach.exercise", exercise_id=exercise_id), code=303)
