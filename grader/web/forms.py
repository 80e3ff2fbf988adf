"""WTForms with CSRF for every page form."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import HiddenField, PasswordField, StringField, TextAreaField
from wtforms.validators import DataRequired, EqualTo, Length

from grader.services.accounts import MAX_PASSWORD, MIN_PASSWORD

# What every newly chosen password must satisfy (the service checks it again).
NEW_PASSWORD = [
    DataRequired(),
    Length(min=MIN_PASSWORD, max=MAX_PASSWORD, message=f"Use a password of at least {MIN_PASSWORD} characters."),
]


class LoginForm(FlaskForm):
    """Email and password."""

    email = StringField("Email", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=MAX_PASSWORD)])


class RegisterForm(FlaskForm):
    """A new learner account."""

    email = StringField("Email", validators=[DataRequired(), Length(max=254)])
    password = PasswordField("Password", validators=NEW_PASSWORD)
    confirm = PasswordField("Repeat password", validators=[EqualTo("password", "The passwords differ.")])


class TokenForm(FlaskForm):
    """Name for a new API token."""

    name = StringField("Token name", validators=[DataRequired(), Length(max=80)])


class IdForm(FlaskForm):
    """A button that acts on one row (revoke a token, log out)."""

    id = HiddenField()


class AnswerForm(FlaskForm):
    """CSRF only: the part fields are dynamic and read from the request by name."""


class ExerciseSourceForm(FlaskForm):
    """An exercise as YAML source (create, edit, import)."""

    source = TextAreaField("Exercise (YAML)", validators=[DataRequired(), Length(max=256 * 1024)])


class ImportForm(FlaskForm):
    """Upload one exercise file."""

    upload = FileField("Exercise file (.yaml)")


class NewPasswordForm(FlaskForm):
    """Choose a new password (through a reset link)."""

    new = PasswordField("New password", validators=NEW_PASSWORD)
    confirm = PasswordField("Repeat the new password", validators=[EqualTo("new", "The passwords differ.")])


class PasswordForm(NewPasswordForm):
    """Change one's own password: the current one too."""

    current = PasswordField("Current password", validators=[DataRequired(), Length(max=MAX_PASSWORD)])


class ResetLinkForm(FlaskForm):
    """Whose password reset link to make."""

    email = StringField("Learner's email", validators=[DataRequired(), Length(max=254)])
