"""The LTI endpoints: JWKS, OIDC login initiation, launch, and the deep-linking picker."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from flask import (Blueprint, Response, abort, current_app, g, jsonify, redirect, render_template, request, session,
                   url_for)
from flask.typing import ResponseReturnValue
from flask_babel import force_locale, gettext, lazy_gettext as _l
from flask_login import current_user

from grader.course_models import Course
from grader.extensions import csrf, db, limiter
from grader.lti import accounts, contexts, deep_linking, roles, roster
from grader.lti.keys import app_key
from grader.lti import login_state, platforms
from grader.lti.launch import (AGS_CLAIM, Launch, LaunchRefused, course_page, frame_origins, login_redirect,
                               service_url, validate)  # fmt: skip
from grader.lti.models import LtiContext
from grader.models import User
from grader.services import courses
from grader.services.courses import CourseError
from grader.texts import N_
from grader.web import course_context
from grader.web.auth import sign_in
from grader.web.errors import MESSAGES, error_response
from grader.web.headers import allow_framing, csp_with, framed_by, framing_origins
from grader.web.i18n import current_locale, remember, supported, translated
from grader.web.login_limits import failed

bp = Blueprint("lti", __name__, url_prefix="/lti")
REFUSED_LAUNCHES = "30 per minute"  # from one address
LOGIN_PARAMS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "client_id", "lti_deployment_id")
REFUSALS = {
    "issuer": N_("This launch comes from a platform (issuer) that is not registered with this site."),
    "client": N_("This platform is registered with this site, but not with the client id it sent. The site's "
                 "operator must register this tool's client id (each tool added in the LMS has its own)."),
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
NOT_SET_UP = N_("Your instructor has not opened this activity from the LMS course yet, so the course is not ready "
                "here. Nothing was saved for you. Ask them to open it once, then open the activity again.")


def _base() -> str:
    return (current_app.config.get("BASE_URL") or request.host_url).rstrip("/")


def launch_url() -> str:
    """Where platforms send launches: the redirect URI registered with them."""
    return _base() + url_for("lti.launch")


def _refusal(refused: LaunchRefused, new_window: str | None) -> Response:
    """The refusal page, shown inside the platform's frame (it carries no one's data) with a link that opens
    the activity in a window of its own, where the browser keeps the login's cookies."""
    code = 502 if refused.reason == "keys" else 400
    message = gettext(REFUSALS[refused.reason], detail=refused.detail)
    page = render_template("errors/error.html", code=code, title=MESSAGES[code][0], message=message,
                           new_window=new_window)  # fmt: skip
    g.lti_frame_origins = platforms.all_origins()  # see _framed_in_platform
    return Response(page, code)


def _login_again() -> str:
    """This login initiation's own address: opened in a new window, it starts the launch there."""
    params = {k: v for k, v in {**request.args, **request.form}.items() if k in LOGIN_PARAMS}
    return url_for("lti.login") + ("?" + urlencode(params) if params else "")


@bp.get("/jwks")
def jwks() -> Response:
    """The tool's public keys, for platforms to check what we sign."""
    return jsonify(app_key().jwks())


@bp.route("/login", methods=["GET", "POST"])
@csrf.exempt  # the platform's form: OIDC state and nonce protect the flow instead
def login() -> ResponseReturnValue:
    """OIDC third-party login initiation: off to the platform's authorisation endpoint."""
    issuer, client_id = request.values.get("iss", ""), request.values.get("client_id")
    try:
        return login_redirect(launch_url(), issuer, client_id)
    except LaunchRefused as refused:
        return _refusal(refused, _login_again())


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


def landing(course_id: int, target: str | None, locale: str) -> str:
    """Where a resource link takes someone in the course: the exercise it names, else the lessons."""
    choice = deep_linking.find_choice(course_id, target, locale) if target else None
    if choice is None:
        return url_for("learn.dashboard")
    kind, _, name = choice.target.partition(":")
    return url_for("learn.exercise", exercise_id=name) if kind == "exercise" else url_for("learn.dashboard")


@bp.post("/launch")
@csrf.exempt  # the platform's form: the signed id_token, state and nonce protect it instead
@limiter.limit(REFUSED_LAUNCHES, deduct_when=failed)  # forged launches; a class behind one address is not limited
def launch() -> ResponseReturnValue:
    """A resource-link or deep-linking launch: sign the platform's user in, in the course its LMS course maps to,
    and take them where it points."""
    try:
        checked = validate(request.form.get("id_token", ""), request.form.get("state", ""))
    except LaunchRefused as refused:
        return _refusal(refused, course_page(request.form.get("id_token", "")))
    claims = checked.claims
    role = roles.course_role(checked.claim("roles"))
    instructor = role == "instructor"  # deep linking adds content: an instructor's (a TA's launch is not one)
    if checked.claim("message_type") == "LtiDeepLinkingRequest" and not instructor:  # before any account is made
        abort(403, _l("Only instructors can add activities from this catalogue."))
    lms = contexts.of_launch(claims, checked.platform_id)
    context = _known_context(checked, lms) if lms else None
    if lms is not None and context is None and not instructor:
        return _spent(checked, _not_set_up(checked))  # nothing is made for a learner or TA here
    locale = _locale(checked) or current_locale()
    account = accounts.link(claims["iss"], str(claims["sub"]), str(claims.get("name") or ""), claims.get("email"),
                            locale)  # fmt: skip
    made = context is None and lms is not None
    if lms is not None and context is None:
        try:
            context = contexts.make_course(lms, locale, account.user_id)
        except CourseError as refused:  # no free code for it: said, not a 500
            return _spent(checked, error_response(400, translated(refused.text)))
    course = db.session.get(Course, context.course_id) if context else courses.ensure_default()
    assert course is not None
    accounts.enrol(course, account.user_id, role)
    user = db.session.get(User, account.user_id)
    assert user is not None
    sign_in(user)
    allow_framing(frame_origins(checked))
    remember(locale)
    session[course_context.SESSION_KEY] = course.code  # the working course from now on
    landing = _landing_after(checked, account, course, locale, lms, context)
    if made and context is not None and contexts.taught_elsewhere(account.user_id, course.id):
        landing = _offer_linking(checked, context, landing)
    return _spent(checked, redirect(landing, 303))


def _known_context(checked: Launch, lms: contexts.LmsCourse) -> LtiContext | None:
    """The launch's LMS course's mapping: kept, or taken from its line item when it was used before contexts
    were courses (contexts.adopted)."""
    context = contexts.mapped(lms)
    if context is None:
        lineitem = service_url(checked, _part(checked.claims.get(AGS_CLAIM), "lineitem"), "AGS line item")
        context = contexts.adopted(lms, lineitem)
    return context


def _offer_linking(checked: Launch, context: LtiContext, landing: str) -> str:
    """After a first launch that made a course, for someone who teaches another: the page that keeps it or links
    the LMS course to one of theirs, then goes on to `landing` (or the link's exercise in the course chosen)."""
    picking = checked.claim("message_type") == "LtiDeepLinkingRequest"
    session[contexts.SESSION_KEY] = {"context": context.id, "course": context.course_id,
                                     "next": landing if picking else None, "target": _target(checked)}
    return url_for("lti.new_course")


def _spent(checked: Launch, response: ResponseReturnValue) -> Response:
    """The reply to a checked launch, with this login's state cookies removed."""
    reply = current_app.make_response(response)
    login_state.spend(reply, checked.login, str(checked.claims["nonce"]), request.form.get("state", ""))
    return reply


def _not_set_up(checked: Launch) -> Response:
    """The page for a learner whose LMS course has no course here yet, shown inside the platform's frame."""
    with force_locale(_locale(checked) or current_locale()):  # the LMS's language; nothing is kept of it
        page = render_template("errors/error.html", code=404, title=gettext("This course is not set up yet"),
                               message=gettext(NOT_SET_UP), nowhere_to_go=True)  # fmt: skip
    g.lti_frame_origins = frame_origins(checked)  # see _framed_in_platform
    return Response(page, 404)


def _landing_after(checked: Launch, account: accounts.LtiAccount, course: Course, locale: str,
                   lms: contexts.LmsCourse | None, context: LtiContext | None) -> str:  # fmt: skip
    """Where a checked launch goes: the picker, or the linked exercise (its line item kept for a learner). An
    instructor's launch keeps the LMS course's title and member list address."""
    claims = checked.claims
    instructor = roles.course_role(checked.claim("roles")) == "instructor"
    if instructor and lms is not None and context is not None:
        memberships = service_url(checked, _part(claims.get(roster.NRPS_CLAIM), "context_memberships_url"), "NRPS")
        contexts.noted(context, lms, memberships)
    if checked.claim("message_type") == "LtiDeepLinkingRequest":
        session[deep_linking.SESSION_KEY] = deep_linking.request_settings(claims, checked.platform_id, course.code)
        return url_for("lti.pick")
    target = _target(checked)
    lineitem = service_url(checked, _part(claims.get(AGS_CLAIM), "lineitem"), "AGS line item")
    if target and lineitem and not instructor:
        accounts.remember_line_item(account, checked.platform_id, course.id, target, lineitem)
    return landing(course.id, target, locale)


def _part(claim: object, name: str) -> object:
    """One field of an object claim (None when the claim is missing or no object)."""
    return claim.get(name) if isinstance(claim, dict) else None


def _kept_request() -> tuple[dict[str, Any], int]:
    """The deep-linking request kept in the session, and its course when the signed-in person teaches it."""
    kept = session.get(deep_linking.SESSION_KEY)
    kept = kept if isinstance(kept, dict) else {}
    code = kept.get("course")
    here = None
    if isinstance(code, str) and code and current_user.is_authenticated:  # never "their first course" instead
        here = course_context.resolve(current_user.id, current_user.is_admin, code)
    if here is None or not here.staff:
        abort(403, _l("Open this page from your course's \"add an activity\" screen."))
    return kept, here.seat.course_id


@bp.route("/pick", methods=["GET", "POST"])
def pick() -> ResponseReturnValue:
    """The catalogue for a deep-linking request; the chosen item goes back to the LMS, signed."""
    kept, course_id = _kept_request()
    locale = current_locale()
    if request.method == "GET":
        return render_template("lti/pick.html", catalogue=deep_linking.catalogue(course_id, locale))
    choice = deep_linking.find_choice(course_id, request.form.get("target", ""), locale)
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
    response.headers["Content-Security-Policy"] = csp_with("form-action", f"'self' {back.scheme}://{back.netloc}")
    return response


@bp.after_app_request
def _framed_in_platform(response: Response) -> Response:
    """A sign-in begun by a validated launch may be framed by its platform's pages, and only there; a refusal
    (a page with no one's data on it) by any registered platform's."""
    return framed_by(response, g.pop("lti_frame_origins", None) or framing_origins())
