"""What an instructor reads after saving an exercise: the saved message and the self-check's notes, on the next page."""

from __future__ import annotations

from flask import flash, redirect, url_for
from flask_babel import gettext, lazy_gettext as _l, ngettext
from werkzeug.wrappers import Response as BaseResponse

from grader.texts import Text
from grader.web.i18n import translated

NOTES_FLASHED = 5  # the self-check notes a save shows on the next page


def saved(spec_id: str, outcome: str, notes: tuple[Text, ...]) -> BaseResponse:
    """Say what the save did, with the self-check's notes, and go to the exercise's page."""
    said = {"created": _l("Created %(id)s as a draft: learners do not see it until you publish it."),
            "updated": _l("Saved a new version of %(id)s as a draft: learners do not see it until you publish it."),
            "unchanged": _l("No changes to %(id)s.")}  # fmt: skip
    flash(str(said.get(outcome, _l("Saved %(id)s.")) % {"id": spec_id}))
    flash_notes(notes)
    return redirect(url_for("teach.exercise", exercise_id=spec_id), code=303)


def flash_notes(notes: tuple[Text, ...]) -> None:
    """The self-check's notes on a saved exercise, as warnings beside the saved message (a few: the
    session cookie carries them; the preview lists them all)."""
    for note in notes[:NOTES_FLASHED]:
        flash(gettext("Note from the self-check: %(note)s", note=translated(note)), "warning")
    if len(notes) > NOTES_FLASHED:
        more = len(notes) - NOTES_FLASHED
        flash(ngettext("… and %(num)d more note: the preview lists them all.",
                       "… and %(num)d more notes: the preview lists them all.", more), "warning")
