"""LTI joins the app: its endpoints and commands, its grade listener, and its part of a user's data export.

The core knows nothing of LTI: it announces grade changes (grader.grade_events) and exports what
parts register with it (grader.services.privacy); this is where LTI registers, once, at app start.
"""

from __future__ import annotations

from flask import Flask

from grader import grade_events
from grader.lti import cli, course_views, outbox
from grader.lti.models import GradeLink, LtiAccount
from grader.services import privacy


def init_app(app: Flask) -> None:
    """Register the /lti blueprint, `flask lti`, passback of every grade change and the LMS data export."""
    app.register_blueprint(course_views.bp)  # the views' blueprint, with the course pages' routes on it too
    app.cli.add_command(cli.lti)
    grade_events.listen(outbox.queue_scores)
    privacy.add_rows("lms_accounts", (LtiAccount.issuer, LtiAccount.subject, LtiAccount.name, LtiAccount.created_at),
                     LtiAccount.user_id, LtiAccount.id)  # fmt: skip
    privacy.add_rows("lms_grade_links", (GradeLink.target, GradeLink.lineitem, GradeLink.created_at),
                     GradeLink.user_id, GradeLink.id)  # fmt: skip
