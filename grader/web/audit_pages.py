"""The audit trail page for instructors: who changed scores, due dates, exercises or accounts, and when.

On the teach blueprint, so its instructors-only guard covers it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from flask import render_template, request
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from grader.services import audit
from grader.web.course_context import current
from grader.web.filters import percent, when
from grader.web.forms import query_int
from grader.web.teach import bp

# What each action is called on the page.
ACTION_NAMES = {
    "score.set": _l("score set by hand"), "score.removed": _l("score set by hand removed"),
    "extension.set": _l("own due date given"), "extension.removed": _l("own due date removed"),
    "regrade": _l("regraded"), "exercise.saved": _l("exercise saved"),
    "exercise.published": _l("exercise published"), "exercise.unpublished": _l("exercise unpublished"),
    "reset_link": _l("password reset link made"),
    "account.deleted": _l("account deleted"),
    "members.imported": _l("people added"), "member.role": _l("course role changed"),
    "member.removed": _l("removed from the course"),
    "course.settings": _l("course settings changed"), "course.content": _l("course content changed"),
    "exercise.copied": _l("exercise copied from another course"),
}  # fmt: skip
# What each detail an event keeps is called (the stored keys are English and terse).
DETAIL_NAMES = {
    "score": _l("score"), "reason": _l("reason"), "due": _l("until"), "exercises": _l("exercises"),
    "version": _l("version"), "attempts": _l("attempts"), "changed": _l("scores changed"),
    "kept": _l("kept as they were"), "left": _l("learners still to regrade"), "role": _l("role"),
    "opens": _l("learners see it from"), "added": _l("added"), "new_accounts": _l("new accounts"),
    "raised": _l("roles raised"), "unchanged": _l("in the course already"), "skipped": _l("bad rows left out"),
    "was": _l("was"),
}  # fmt: skip
# Details stored as a code word, and what each word says; those with no name above say it all alone.
DETAIL_WORDS = {
    "origin": {"web": _l("from the web editor"), "file": _l("from a file")},
    "outcome": {"created": _l("new exercise"), "updated": _l("new version")},
    "role": {"learner": _l("learner"), "instructor": _l("instructor"), "staff": _l("staff"), "admin": _l("admin"),
             "ta": _l("teaching assistant")},
    "source": {"csv": _l("from a CSV file"), "list": _l("from a list of emails"), "form": _l("by email")},
}
DETAIL_WORDS["was"] = DETAIL_WORDS["role"]  # fmt: skip


def _moment(stored: str) -> str:
    """A stored ISO 8601 UTC time as the page writes times (UTC), or as stored if it is not one."""
    try:
        moment = datetime.fromisoformat(stored)
    except ValueError:
        return stored
    return when(moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment)


def _value(key: str, value: Any) -> str:
    """One detail's value in the page's language: scores as percentages, times as on the page, code words in words."""
    if key == "score" and isinstance(value, (int, float)):
        return percent(value, places=2)  # not rounded to a whole percent: the trail keeps what was set
    if key in ("due", "opens") and isinstance(value, str):
        return _moment(value)
    if isinstance(value, str) and value in DETAIL_WORDS.get(key, {}):
        return str(DETAIL_WORDS[key][value])
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def details(detail: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, value) of each detail of an event, as the page shows them; the name is '' where the value says it all."""
    shown = [(key, value) for key, value in detail.items() if key != "by"]  # `by` is said in the Who column
    return [(str(DETAIL_NAMES.get(key, "" if key in DETAIL_WORDS else key)), _value(key, value))
            for key, value in shown]  # fmt: skip


@bp.get("/audit")
def audit_trail() -> str:
    """The course's latest events, newest first, 100 a page; ?action= keeps one kind, ?before= pages back."""
    action = request.args.get("action") if request.args.get("action") in ACTION_NAMES else None
    before = query_int("before")
    here = current()
    entries = audit.latest(before, action, audit.PAGE + 1,  # one more, to know whether older ones exist
                           course_id=here.seat.course_id, site_wide=current_user.is_admin)  # fmt: skip
    shown = entries[: audit.PAGE]
    older = shown[-1].id if len(entries) > audit.PAGE else None
    return render_template("teach/audit.html", entries=shown, older=older, action=action, names=ACTION_NAMES,
                           details=details)  # fmt: skip
