"""The audit trail page for instructors: who changed scores, due dates, exercises or accounts, and when.

On the teach blueprint, so its instructors-only guard covers it.
"""

from __future__ import annotations

from flask import render_template, request
from flask_babel import lazy_gettext as _l

from grader.services import audit
from grader.web.forms import query_int
from grader.web.teach import bp

# What each action is called on the page.
ACTION_NAMES = {
    "score.set": _l("score set by hand"), "score.removed": _l("score set by hand removed"),
    "extension.set": _l("own due date given"), "extension.removed": _l("own due date removed"),
    "regrade": _l("regraded"), "exercise.saved": _l("exercise saved"), "reset_link": _l("password reset link made"),
    "account.deleted": _l("account deleted"),
}  # fmt: skip


@bp.get("/audit")
def audit_trail() -> str:
    """The latest events, newest first, 100 a page; ?action= keeps one kind, ?before= pages back."""
    action = request.args.get("action") if request.args.get("action") in ACTION_NAMES else None
    before = query_int("before")
    entries = audit.latest(before, action, audit.PAGE + 1)  # one more, to know whether older ones exist
    shown = entries[: audit.PAGE]
    older = shown[-1].id if len(entries) > audit.PAGE else None
    return render_template("teach/audit.html", entries=shown, older=older, action=action, names=ACTION_NAMES)
