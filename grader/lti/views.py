"""The LTI endpoints: JWKS, OIDC login initiation, launch, and the deep-linking picker."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import (Blueprint, Response, abort, current_app, flash, jsonify, redirect, render_template, request,
                   session, url_for)
from flask.typing import ResponseReturnValue
from flask_babel import gettext, lazy_gettext as _l, ngettext
from flask_login import current_user

from grader.extensions import csrf, db
from grader.lti import accounts, deep_linking, roles, roster
from grader.lti.keys import app_key
from grader.lti.launch import AGS_CLAIM, SESSION_KEY, Launch, LaunchRefused, frame_origins, login_redirect, validate
from grader.models import User
from grader.texts import N_
from grader.web.auth import sign_in
from grader.web.errors import error_response
from grader.web.i18n import current_locale, remember, supported

bp = Blueprint("lti", __name__, url_prefix="/lti")
REFUSALS = {
    "issuer": N_("This launch comes from a platform (issuer) that is not registered with this site."),
    "audience": N_("This launch is addressed to another tool: its audience is not the client id registered for "
                   "this platform."),
    "deployment": N_("This launch names a deployment that is not registered for this platform."),
    "signature": N_("This launch is not signed with the platform's key, so it cannot be trusted."),
    "expired": N_("This launch has expired. Go back to your course and open the activity again."),
    "replayed": N_("This launch was used already (its nonce was spent). Go back to your course and open the "
                   "activity again."),
    "state": N_("This launch did not begin in this browser, or it took too long. Go back to your course and open "
                "the activity again; if your browser blocks cookies in frames, open it in a new window."),
    "claims": N_("This launch is missing information the LTI standard requires: %(detail)s"),
    "keys": N_("The platform's public keys could not be fetched, so this launch could not be checked. Try again "
               "in a moment."),
}  # fmt: skip


def _base() -> str:
    return (current_app.config.get("BASE_URL") or request.host_url).rstrip("/")


def launch_url() -> str:
    """Where platforms send launches: the redirect URI registered with them."""
    return _base() + url_for("lti.launch")


def _refusal(refused: LaunchRefused) -> ResponseReturnValue:
    code = 502 if refused.reason == "keys" else 400
    return error_response(code, gettext(REFUSALS[refused.reason], detail=refused.detail))


@bp.get("/jwks")
def jwks() -> Response:
    """The tool's public keys, for platforms to check what we sign."""
    return jsonify(app_key().jwks())


@bp.route("/login", methods=["GET", "POST"])
@csrf.exempt  # the platform's form: OIDC state and nonce protect the flow instead
def login() -> ResponseReturnValue:
    """OIDC third-party login initiation: off to the platform's authorisation endpoint."""
    try:
        return login_redirect(launch_url())
    except LaunchRefused as refused:
        return _refusal(refused)


def _locale(launch: Launch) -> str | None:
    wanted = (launch.claim("launch_presentation") or {}).get("locale") or ""
    return supported(str(wanted).replace("_", "-").split("-")[0].lower())


def _target(launch: Launch) -> str | None:
    """What the resource link points to: its custom parameter, else the path of its target link URI."""
    custom = launch.claim("custom") or {}
    if isinstance(custom, dict):
        for kind in ("exercise", "lesson"):
            if isinstance(custom.get(kind), str) and custom[kind]:
                return f"{kind}:{custom[kind]}"
    path = urlsplit(str(launch.claim("target_link_uri") or "")).path
    prefix = url_for("learn.exercise", exercise_id="x")[:-1]
    return f"exercise:{path[len(prefix):]}" if path.startswith(prefix) and path != prefix else None


def _landing(target: str | None, locale: str) -> str:
    choice = deep_linking.find_choice(target, locale) if target else None
    if choice is None:
        return url_for("learn.dashboard")
    kind, _, name = choice.target.partition(":")
    return url_for("learn.exercise", exercise_id=name) if kind == "exercise" else url_for("learn.dashboard")


@bp.post("/launch")
@csrf.exempt  # the platform's form: the signed id_token, state and nonce protect it instead
def launch() -> ResponseReturnValue:
    """A resource-link or deep-linking launch: sign the platform's user in and take them where it points."""
    try:
        checked = validate(request.form.get("id_token", ""))
    except LaunchRefused as refused:
        return _refusal(refused)
    claims = checked.claims
    instructor = roles.site_instructor(roles.course_role(checked.claim("roles")))
    deep_link = checked.claim("message_type") == "LtiDeepLinkingRequest"
    if deep_link and not instructor:  # refused before any account is made
        abort(403, _l("Only instructors can add activities from this catalogue."))
    locale = _locale(checked) or current_locale()
    account = accounts.link(claims["iss"], str(claims["sub"]), str(claims.get("name") or ""), claims.get("email"),
                            instructor, locale)  # fmt: skip
    user = db.session.get(User, account.user_id)
    assert user is not None
    sign_in(user)
    session[SESSION_KEY] = {"origins": frame_origins(checked)}
    remember(locale)
    if deep_link:
        session[deep_linking.SESSION_KEY] = deep_linking.request_settings(claims, checked.platform_id)
        return redirect(url_for("lti.pick"), 303)
    if instructor and (roster_source := roster.offered(claims, checked.platform_id)):
        session[roster.SESSION_KEY] = roster_source
    target = _target(checked)
    lineitem = (claims.get(AGS_CLAIM) or {}).get("lineitem")
    if target and isinstance(lineitem, str) and not instructor:
        accounts.remember_line_item(account, checked.platform_id, target, lineitem)
    return redirect(_landing(target, locale), 303)


def _kept_request() -> dict[str, Any]:
    kept = session.get(deep_linking.SESSION_KEY)
    if not kept or not current_user.is_authenticated or not current_user.is_instructor:
        abort(403, _l("Open this page from your course's \"add an activity\" screen."))
    return dict(kept)


@bp.route("/pick", methods=["GET", "POST"])
def pick() -> ResponseReturnValue:
    """The catalogue for a deep-linking request; the chosen item goes back to the LMS, signed."""
    kept = _kept_request()
    locale = current_locale()
    if request.method == "GET":
        return render_template("lti/pick.html", catalogue=deep_linking.catalogue(locale))
    choice = deep_linking.find_choice(request.form.get("target", ""), locale)
    if choice is None:
        return error_response(400, _l("Choose a lesson or an exercise from the list."))
    try:
        jwt = deep_linking.response_jwt(kept, choice, launch_url())
    except LookupError:
        return error_response(400, gettext(REFUSALS["issuer"]))
    session.pop(deep_linking.SESSION_KEY, None)
    page = render_template("lti/return.html", return_url=kept["return_url"], jwt=jwt, choice=choice)
    response = Response(page)
    back = urlsplit(kept["return_url"])  # this one form goes to the LMS: CSP's form-action must allow it
    response.headers["Content-Security-Policy"] = _csp_with(
        "form-action", f"'self' {back.scheme}://{back.netloc}")  # fmt: skip
    return response


@bp.route("/roster", methods=["GET", "POST"])
def pull_roster() -> ResponseReturnValue:
    """Names and roles: make accounts for the learners of the course this instructor launched from."""
    kept = session.get(roster.SESSION_KEY)
    if not kept or not current_user.is_authenticated or not current_user.is_instructor:
        abort(403, _l("Open your course's activity from the LMS first, as its instructor."))
    if request.method == "GET":
        return render_template("lti/roster.html")
    try:
        new, learners = roster.pull(dict(kept))
    except Exception as error:  # noqa: BLE001 - the LMS failing must give a page that says so, not a 500
        current_app.logger.warning("NRPS roster pull failed: %s", type(error).__name__)
        return error_response(502, _l("The course's member list could not be fetched from the LMS. Try again "
                                      "in a moment."))  # fmt: skip
    flash(ngettext("%(num)d learner of the course, %(new)d new here.",
                   "%(num)d learners of the course, %(new)d new here.", learners, new=new))  # fmt: skip
    return redirect(url_for("teach.gradebook"), 303)


def _csp_with(directive: str, value: str) -> str:
    from grader.web.app import SECURITY_HEADERS

    parts = [p.strip() for p in SECURITY_HEADERS["Content-Security-Policy"].split(";")]
    return "; ".join(f"{directive} {value}" if p.split(" ")[0] == directive else p for p in parts)


@bp.after_app_request
def _framed_in_platform(response: Response) -> Response:
    """A session begun by a launch may be framed by its platform's pages (frame-ancestors), and only there."""
    origins = (session.get(SESSION_KEY) or {}).get("origins") if SESSION_KEY in session else None
    csp = response.headers.get("Content-Security-Policy", "")
    if origins and "frame-ancestors 'none'" in csp:
        response.headers["Content-Security-Policy"] = csp.replace("frame-ancestors 'none'",
                                                                  "frame-ancestors " + " ".join(origins))  # fmt: skip
        response.headers.pop("X-Frame-Options", None)
    return response
