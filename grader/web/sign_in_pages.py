"""Signing out other browsers from the profile page: one sign-in, or every one but this."""

from __future__ import annotations

from flask import abort, flash, redirect, url_for
from flask_babel import ngettext
from flask_login import current_user, login_required
from werkzeug.wrappers import Response

from grader.services import sign_ins
from grader.web.auth import bp
from grader.web.forms import IdForm


@bp.post("/profile/sign-ins/<int:sign_in_id>/end")
@login_required
def end_sign_in(sign_in_id: int) -> Response:
    """Sign out one of your own sign-ins, in whatever browser it is."""
    if IdForm().validate_on_submit():
        if not sign_ins.end_one(current_user, sign_in_id):
            abort(404)
        flash(ngettext("Signed out of %(num)d browser.", "Signed out of %(num)d browsers.", 1))
    return redirect(url_for("auth.profile"))


@bp.post("/profile/sign-ins/end-others")
@login_required
def end_other_sign_ins() -> Response:
    """Sign out every browser but this one."""
    if IdForm().validate_on_submit():
        ended = sign_ins.end_others(current_user)
        flash(ngettext("Signed out of %(num)d browser.", "Signed out of %(num)d browsers.", ended))
    return redirect(url_for("auth.profile"))
