"""WTForms with CSRF for every page form."""

from __future__ import annotations

import secrets
from typing import Any

from flask import request
from flask_babel import gettext
from flask_babel import lazy_gettext as _l, lazy_ngettext
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import BooleanField, HiddenField, PasswordField, SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, EqualTo, Length

from grader.catalog.loader import MAX_EXERCISE_BYTES
from grader.services.accounts import MAX_PASSWORD, MIN_PASSWORD
from grader.services.api_tokens import DEFAULT_DAYS, EXPIRY_DAYS
from grader.web.i18n import LANGUAGES

# The largest row id an integer column holds (32 bits on PostgreSQL); a larger number in a URL names nothing.
ROW_ID_MAX = 2**31 - 1


def query_int(name: str, high: int = ROW_ID_MAX, posted: bool = False) -> int | None:
    """A whole-number query parameter (a form field when `posted`) from 1 to `high`; None when absent,
    malformed or out of range."""
    value = (request.form if posted else request.args).get(name, type=int)
    return value if value is not None and 1 <= value <= high else None


# What every newly chosen password must satisfy (the service checks it again).
NEW_PASSWORD = [
    DataRequired(),
    Length(min=MIN_PASSWORD, max=MAX_PASSWORD, message=_l("Use a password of at least %(count)d characters.", count=MIN_PASSWORD)),
]
# Said next to every new-password field before it is filled in, not only once it is refused.
NEW_PASSWORD_HINT = _l("At least %(count)d characters.", count=MIN_PASSWORD)


class PageForm(FlaskForm):
    """A form of the site's pages: CSRF-protected, and no NUL character in any text (no one types one,
    and PostgreSQL cannot store one)."""

    def validate(self, extra_validators: Any = None) -> bool:
        """The fields' own validators, then a problem at every text field holding a NUL."""
        valid = super().validate(extra_validators)
        for field in self:
            if isinstance(field.data, str) and "\x00" in field.data:
                field.errors = [*field.errors, gettext("This field cannot contain a NUL character.")]
                valid = False
        return valid

    @property
    def csrf_refused(self) -> bool:
        """True when the form was sent without a valid CSRF token (never, where CSRF is switched off)."""
        token = getattr(self, "csrf_token", None)
        return bool(token is not None and token.errors)


class LoginForm(PageForm):
    """Email and password."""

    email = StringField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)])


class ForgotForm(PageForm):
    """The email of an account whose password is forgotten."""

    email = StringField(_l("Email"), validators=[DataRequired(), Length(max=254)])


class RegisterForm(PageForm):
    """A new learner account."""

    email = StringField(_l("Email"), validators=[DataRequired(), Length(max=254)])
    password = PasswordField(_l("Password"), validators=NEW_PASSWORD, description=NEW_PASSWORD_HINT)
    confirm = PasswordField(_l("Repeat password"), validators=[EqualTo("password", _l("The passwords differ."))])


class TokenForm(PageForm):
    """A new API token: its name, how long it lives, maybe the one course it acts in (choices set by the view from
    the person's courses), and a value new with each page, so a form sent twice makes one token."""

    name = StringField(_l("Token name"), validators=[DataRequired(), Length(max=80)])
    days = SelectField(_l("Expires after"), choices=[SelectChoice(str(d), lazy_ngettext("%(num)d day", "%(num)d days", d))
                                                  for d in EXPIRY_DAYS],
                       default=str(DEFAULT_DAYS))  # fmt: skip
    course = SelectField(_l("Acts in"), choices=[SelectChoice("", _l("all my courses"))], default="")
    once = HiddenField(default=lambda: secrets.token_urlsafe(16), validators=[Length(max=64)])


class IdForm(PageForm):
    """A button that acts on one row (revoke a token, log out)."""

    id = HiddenField()


class AnswerForm(PageForm):
    """CSRF only: the part fields are dynamic and read from the request by name."""


class ExerciseSourceForm(PageForm):
    """An exercise as YAML source (create, edit, import)."""

    source = TextAreaField(_l("Exercise (YAML)"), validators=[DataRequired(), Length(max=MAX_EXERCISE_BYTES)])


class ImportForm(PageForm):
    """Upload one exercise file."""

    upload = FileField(_l("Exercise file (.yaml)"))


class NewPasswordForm(PageForm):
    """Choose a new password (through a reset link)."""

    new = PasswordField(_l("New password"), validators=NEW_PASSWORD, description=NEW_PASSWORD_HINT)
    confirm = PasswordField(_l("Repeat the new password"), validators=[EqualTo("new", _l("The passwords differ."))])


class PasswordForm(NewPasswordForm):
    """Change one's own password: the current one too."""

    current = PasswordField(_l("Current password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)])


class CloseAccountForm(PageForm):
    """Erase one's own account: the password confirms it."""

    password = PasswordField(_l("Your password"), validators=[DataRequired(), Length(max=MAX_PASSWORD)])


class DueForm(PageForm):
    """One learner's own due date on one exercise."""

    due = StringField(_l("Due for this learner (date, time and zone)"), validators=[Length(max=64)])
    whole_lesson = BooleanField(_l("Every exercise of this lesson that has a due date"))


class ScoreForm(PageForm):
    """An instructor's score for one learner on one exercise, with the reason the learner sees."""

    score = StringField(_l("Score (%)"), validators=[Length(max=16)])
    reason = TextAreaField(_l("Reason (the learner sees it)"), validators=[Length(max=500)])


class ResetLinkForm(PageForm):
    """Whose password reset link to make."""

    email = StringField(_l("Learner's email"), validators=[DataRequired(), Length(max=254)])


class LanguageForm(PageForm):
    """The page language, and the page to go back to."""

    locale = SelectField(_l("Language"), choices=[SelectChoice(code, name) for code, name in LANGUAGES.items()])
    next = HiddenField()
