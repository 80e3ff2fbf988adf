"""Registration, login, logout and the profile page with API tokens and the notebook client."""

from __future__ import annotations

import json
from email.message import EmailMessage
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import force_locale, get_locale, gettext, ngettext
from flask_login import current_user, login_required, login_user, logout_user
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response
from wtforms.fields.choices import SelectChoice

from grader.extensions import csrf, limiter
from grader.models import User
from grader.web.api_client import served as served_client
from grader.services import accounts, api_tokens, courses, mail, password_reset, privacy, sign_ins
from grader.services.api_tokens import DEFAULT_DAYS
from grader.web.course_context import resolve
from grader.web.errors import CSRF_MESSAGE, error_response
from grader.web.forms import (CloseAccountForm, ForgotForm, IdForm, LanguageForm, LoginForm, NewPasswordForm,
                              PasswordForm, RegisterForm, TokenForm)  # fmt: skip
from grader.web.headers import forget_framing
from grader.web.i18n import remember, supported, translated
from grader.web.limit_store import fail_closed
from grader.web.login_limits import failed, login_email, login_limits

bp = Blueprint("auth", __name__)


MAX_NEXT = 2000  # a longer "next" is no page of this site; it would come back as a huge Location


def _safe_next(target: str | None, home: str | None = None) -> str:
    # Only same-site paths: never redirect to another host after login. Browsers drop tabs and
    # newlines inside a URL ("/\t/evil.example" becomes "//evil.example"), so a target with any
    # control character or space is refused outright, as is anything naming a scheme or a host.
    if (target and len(target) <= MAX_NEXT and target.isprintable() and " " not in target
            and target.startswith("/") and not target.startswith("//") and "\\" not in target):  # fmt: skip
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc:
            return target
    return home or url_for("learn.dashboard")


def sign_in(user: User) -> None:
    """Begin a sign-in kept on the server and put its secret in this browser's session cookie, ending
    the one this browser had (a copy of the old cookie must not outlive it)."""
    sign_ins.start(user, request.user_agent.string, current_app.config["SIGN_IN_IDLE_DAYS"],
                   replacing=session.get("_user_id"))  # fmt: skip
    forget_framing()  # an LTI launch allows its platform again after this; a password sign-in is framed nowhere
    login_user(user)


# Login and registration check CSRF inside the view (the form does it) rather than in the global
# before-request hook: Flask-Limiter counts decorated views only when the view runs, and a failed
# login must count whether or not its CSRF token was good.
@bp.route("/login", methods=["GET", "POST"])
@csrf.exempt
@login_limits
@fail_closed
def login() -> ResponseReturnValue:
    """Sign in with email and password."""
    form = LoginForm()
    if form.is_submitted():
        if not form.validate():
            if form.csrf_refused:
                return error_response(400, CSRF_MESSAGE)
        elif user := accounts.authenticate(form.email.data or "", form.password.data or ""):
            sign_in(user)
            remember(supported(user.locale) or str(get_locale()))
            # Staff's home is their course's dashboard; the learners' page stays a click away.
            course = resolve(user.id, user.is_admin, None)
            home = url_for("teach.home") if course is not None and course.staff else None
            return redirect(_safe_next(request.args.get("next"), home))
        else:
            form.password.errors = [gettext("Wrong email or password.")]
    return render_template("auth/login.html", form=form), 200 if request.method == "GET" else 401


@bp.route("/register", methods=["GET", "POST"])
@csrf.exempt
@limiter.limit("10 per hour", methods=["POST"], deduct_when=failed)
# Accounts made from one address, failed or not: room for a class behind one NAT, not for a script.
@limiter.limit("60 per hour", methods=["POST"])
@fail_closed
def register() -> ResponseReturnValue:
    """Create a learner account."""
    form = RegisterForm()
    if form.is_submitted():
        if not form.validate():
            if form.csrf_refused:
                return error_response(400, CSRF_MESSAGE)
        else:
            try:
                user = accounts.create_user(form.email.data or "", form.password.data or "",
                                            locale=str(get_locale()))  # fmt: skip
            except accounts.AccountError as error:
                form.email.errors = [translated(error.text)]
            else:
                sign_in(user)
                flash(gettext("Welcome! Pick an exercise to start."))
                return redirect(url_for("learn.dashboard"))
    status = 200 if request.method == "GET" else 422
    return render_template("auth/register.html", form=form), status


@bp.post("/logout")
@login_required
def logout() -> Response:
    """Sign out (POST with CSRF, so another site cannot sign you out)."""
    form = IdForm()
    if form.validate_on_submit():
        sign_ins.end(session.get("_user_id"))
        logout_user()
    return redirect(url_for("auth.login"))


def _token_form(**given: object) -> TokenForm:
    """The token form, offering the person's own courses to bind a token to."""
    form = TokenForm(**given)  # type: ignore[arg-type]
    form.course.choices = [SelectChoice("", gettext("all my courses"))] + [
        SelectChoice(m.code, f"{m.title} ({m.code})") for m in courses.memberships(current_user.id)]  # fmt: skip
    return form


def _profile_page(status: int = 200, **forms: object) -> tuple[str, int]:
    """The profile page; a form given by name replaces its empty default (to show its errors)."""
    page = {"form": _token_form(), "new_token": None, "password": PasswordForm(prefix="pw"),
            "close": CloseAccountForm(prefix="close"), **forms}  # fmt: skip
    signed_in = sign_ins.listing(current_user, current_app.config["SIGN_IN_IDLE_DAYS"])
    # here: the page is also shown by the POSTs to /profile/password and /profile/close.
    return render_template("auth/profile.html", tokens=api_tokens.active_tokens(current_user), sign_ins=signed_in,
                           here=url_for("auth.profile"), status_error=status >= 400, client=served_client(),
                           **page), status  # fmt: skip


TOKEN_FORM_USED = "token_form_used"


@bp.route("/profile", methods=["GET", "POST"])
@login_required
def profile() -> tuple[str, int]:
    """The user's account and API tokens; POST makes a token and shows it once."""
    form = _token_form()
    if not form.validate_on_submit():
        return _profile_page(422 if request.method == "POST" else 200, form=form)
    if form.once.data and session.get(TOKEN_FORM_USED) == form.once.data:  # the same form again: a reload
        again = _token_form(formdata=None, name=form.name.data)  # with a new `once`, to make another
        again.name.errors = [gettext("This form already made its token (listed below; its value is shown only "
                                     "once). Send the form again to make another.")]  # fmt: skip
        return _profile_page(409, form=again)
    session[TOKEN_FORM_USED] = form.once.data
    bound = next((m.course_id for m in courses.memberships(current_user.id) if m.code == form.course.data), None)
    new_token = api_tokens.create_token(current_user, form.name.data or "api", int(form.days.data or DEFAULT_DAYS),
                                        bound)  # fmt: skip
    return _profile_page(form=_token_form(formdata=None), new_token=new_token)


@bp.post("/profile/password")
@login_required
@limiter.limit("10 per hour", deduct_when=failed)
def change_password() -> ResponseReturnValue:
    """Change your own password (the current one is asked for)."""
    form = PasswordForm(prefix="pw")
    if form.validate_on_submit():
        try:
            revoked = accounts.change_password(current_user, form.current.data or "", form.new.data or "")
        except accounts.AccountError as error:
            form.current.errors = [translated(error.text)]
        else:  # every sign-in ended with the old password, copies of this one included; this browser goes on
            sign_in(current_user._get_current_object())
            flash(gettext("Your password was changed."))
            _say_tokens_revoked(revoked)
            return redirect(url_for("auth.profile"))
    return _profile_page(422, password=form)


def _say_tokens_revoked(revoked: int) -> None:
    if revoked:
        flash(ngettext("Your API token was revoked with the old password: make a new one on your profile page.",
                       "Your %(num)d API tokens were revoked with the old password: make new ones on your profile "
                       "page.", revoked))  # fmt: skip


@bp.get("/profile/data")
@login_required
def my_data() -> Response:
    """Download everything kept about you, as JSON."""
    body = json.dumps(privacy.export(current_user), ensure_ascii=False, indent=2)
    response = Response(body, mimetype="application/json")
    response.headers["Content-Disposition"] = "attachment; filename=grader-my-data.json"
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/profile/close")
@login_required
@limiter.limit("10 per hour", deduct_when=failed)
def close_account() -> ResponseReturnValue:
    """Erase your own learner account and all its work, confirmed with your password."""
    form = CloseAccountForm(prefix="close")
    if form.validate_on_submit():
        try:
            privacy.close_own_account(current_user, form.password.data or "")
        except accounts.AccountError as error:
            form.password.errors = [translated(error.text)]
        else:
            logout_user()
            flash(gettext("Your account and everything kept with it were deleted."))
            return redirect(url_for("auth.login"), code=303)
    return _profile_page(422, close=form)


@bp.post("/profile/tokens/<int:token_id>/revoke")
@login_required
def revoke(token_id: int) -> Response:
    """Revoke one of your own tokens."""
    if IdForm().validate_on_submit():
        if not api_tokens.revoke_token(current_user, token_id):
            abort(404)
        flash(gettext("Token revoked."))
    return redirect(url_for("auth.profile"))


def reset_url(user: User, lasts: int = password_reset.RESET_SECONDS) -> str:
    """A one-time reset link for the user, on the configured public address (else this request's host)."""
    token = password_reset.reset_token(user, current_app.config["SECRET_KEY"], lasts)
    base = current_app.config.get("BASE_URL")
    return base + url_for("auth.reset", token=token) if base else url_for("auth.reset", token=token, _external=True)


def _reset_mail(user: User) -> EmailMessage:
    """The reset link by mail, in the account's language."""
    hours = password_reset.RESET_SECONDS // 3600
    with force_locale(supported(user.locale) or "en"):
        body = render_template("auth/reset_mail.txt", email=user.email, link=reset_url(user), hours=hours)
        subject = gettext("Choose a new password for grader")
    return mail.message(current_app.config["MAIL_FROM"], user.email, subject, body)


# The reply is the same whether or not the address has an account, the same mail is written either
# way, and it goes out on another thread: neither the page nor its timing tells who is registered.
@bp.route("/forgot", methods=["GET", "POST"])
@limiter.limit("5 per hour", methods=["POST"], key_func=login_email)
@limiter.limit("20 per hour", methods=["POST"])
def forgot() -> ResponseReturnValue:
    """Ask for a reset link by mail (when the site can send mail; else, whom to ask)."""
    server: mail.SmtpServer | None = current_app.config.get("MAIL_SERVER")
    if server is None:
        return render_template("auth/forgot.html", form=None), 200 if request.method == "GET" else 404
    form = ForgotForm()
    if form.validate_on_submit():
        email = accounts.normalise_email(form.email.data or "")
        try:
            accounts.check_email(email)  # a line break in it must never reach the mail's headers
        except accounts.AccountError as error:
            form.email.errors = [translated(error.text)]
        else:
            _send_reset_link(server, email)
            return redirect(url_for("auth.login"))
    return render_template("auth/forgot.html", form=form), 200 if request.method == "GET" else 422


def _send_reset_link(server: mail.SmtpServer, email: str) -> None:
    user = accounts.user_by_email(email)
    letter = _reset_mail(user or User(id=0, email=email, password_hash=""))  # the same work either way
    if user is not None and password_reset.resettable(user):
        mail.send_later(server, letter)
    hours = password_reset.RESET_SECONDS // 3600
    flash(gettext("If an account uses %(email)s, a link to choose a new password is on its way to it. "
                  "The link works once, within %(hours)d hours.", email=email, hours=hours))  # fmt: skip


@bp.route("/reset/<token>", methods=["GET", "POST"])
@limiter.limit("20 per hour", methods=["POST"])
def reset(token: str) -> ResponseReturnValue:
    """Choose a new password through a link from mail or an instructor; the link works once."""
    user = password_reset.user_for_reset(token, current_app.config["SECRET_KEY"])
    if user is None:
        return render_template("auth/reset.html", form=None), 400
    form = NewPasswordForm()
    if form.validate_on_submit():
        try:
            revoked = accounts.set_password(user, form.new.data or "")
        except accounts.AccountError as error:
            form.new.errors = [translated(error.text)]
        else:
            flash(gettext("Your password was changed: log in with the new one."))
            _say_tokens_revoked(revoked)
            return redirect(url_for("auth.login"))
    return render_template("auth/reset.html", form=form), 200 if request.method == "GET" else 422


@bp.post("/language")
def language() -> Response:
    """Switch the page language for this session, and for the account when signed in."""
    form = LanguageForm()
    if form.validate_on_submit():
        remember(form.locale.data)
        if current_user.is_authenticated:
            accounts.set_locale(current_user, form.locale.data)
    return redirect(_safe_next(form.next.data), code=303)
