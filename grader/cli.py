"""Flask commands: users (create, token, reset-link, bootstrap, export, delete), exercises (sync, regrade),
submissions (reap), backup and repair."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import click
import sqlalchemy as sa
from flask import Flask, current_app
from flask.cli import AppGroup

from grader.environment import local_url
from grader.extensions import db
from grader.models import ROLES, User
from grader.course_models import INSTRUCTOR
from grader.services import accounts, api_tokens, courses, password_reset, privacy
from grader.services.sync import sync_directory
from grader.visible import visible_json

users = AppGroup("users", help="Manage accounts.")
exercises = AppGroup("exercises", help="Manage the exercise catalogue.")
submissions_group = AppGroup("submissions", help="Code submissions.")


@users.command("create")
@click.option("--email", required=True)
@click.option("--role", type=click.Choice(ROLES), default="learner")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input.")
def create_user(email: str, role: str, password_stdin: bool) -> None:
    """Create an account; the password comes from stdin or a prompt, never the command line."""
    password = sys.stdin.readline().rstrip("\n") if password_stdin else click.prompt(
        "Password", hide_input=True, confirmation_prompt=True)  # fmt: skip
    try:
        user = accounts.create_user(email, password, role)
    except accounts.AccountError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"created {user.role} {user.email}")


def _user(email: str) -> User:
    user = accounts.user_by_email(email)
    if user is None:
        raise click.ClickException(f"no user with email {email}")
    return user


@users.command("token")
@click.option("--email", required=True)
@click.option("--name", default="cli")
def make_token(email: str, name: str) -> None:
    """Print a new API token for the user."""
    click.echo(api_tokens.create_token(_user(email), name))


@users.command("reset-link")
@click.option("--email", required=True)
@click.option("--base-url", default=None,
              help="The site's address (default: GRADER_BASE_URL, else where GRADER_BIND serves on this host).")
def reset_link(email: str, base_url: str | None) -> None:
    """Print a one-time password reset link for any user (instructors included)."""
    token = password_reset.reset_token(_user(email), current_app.config["SECRET_KEY"])
    site = base_url or current_app.config.get("BASE_URL") or local_url(os.environ)
    click.echo(f"{site.rstrip('/')}/reset/{token}")


@users.command("bootstrap")
@click.option("--email", default="instructor@grader.local")
def bootstrap(email: str) -> None:
    """Create the site's first admin, an instructor of the `default` course, with a generated password, once;
    prints the login."""
    if db.session.scalar(sa.select(User.id).where(User.role == "admin").limit(1)) is not None:
        return
    password = secrets.token_urlsafe(12)
    admin = accounts.create_user(email, password, "admin")
    courses.add_member(courses.ensure_default(), admin, INSTRUCTOR)
    click.echo(f"instructor login: {email} / {password}  (shown once)")


@users.command("export")
@click.option("--email", required=True)
def export_user(email: str) -> None:
    """Print everything kept about a user as JSON (what they get from their profile page)."""
    # What they typed and their code, hidden characters as escapes (\u202e): the output stays JSON.
    click.echo(visible_json(privacy.export(_user(email))))


@users.command("delete")
@click.option("--email", required=True)
@click.confirmation_option(prompt="Erase this account and all its attempts, code and progress?")
def delete_user(email: str) -> None:
    """Erase an account (learner or instructor) and everything that belongs to it."""
    privacy.erase(_user(email), None)
    click.echo(f"deleted {email}")


@exercises.command("sync")
def sync() -> None:
    """Load exercises/ into the database; a changed file becomes a new version, published unless it says draft: true."""
    report = sync_directory(current_app.config["EXERCISES_DIR"])
    for error in report.errors:
        click.echo(f"error: {error}", err=True)
    for note in report.notes:  # stored all the same: worth a look, not an error
        click.echo(f"note: {note}")
    for exercise_id in report.kept:
        click.echo(f"kept {exercise_id}: edited on the web since; export it to update the file")
    click.echo(f"exercises: {len(report.created)} created, {len(report.updated)} updated, "
               f"{len(report.unchanged)} unchanged, {len(report.errors)} errors")  # fmt: skip
    if report.errors:
        raise SystemExit(1)


@exercises.command("regrade")
@click.argument("exercise_id")
def regrade_command(exercise_id: str) -> None:
    """Grade every attempt on a numeric exercise again against its current version."""
    from grader.services.attempts import CodeExercise
    from grader.services.exercises import UnknownExercise
    from grader.services.regrade import regrade

    try:
        done = regrade(exercise_id)
    except (UnknownExercise, CodeExercise):
        raise click.ClickException(f"no numeric exercise {exercise_id}") from None
    click.echo(f"regraded {done.attempts - len(done.kept)} of {done.attempts} attempts by {len(done.learners)} "
               f"learners against version {done.version}: {done.changed} scores changed, {len(done.kept)} kept")  # fmt: skip


@exercises.command("publish")
@click.argument("exercise_id")
def publish_command(exercise_id: str) -> None:
    """Publish an exercise's newest version: learners get it (from its opening date, if that is ahead)."""
    from grader.services.exercises import UnknownExercise
    from grader.services.publishing import CannotPublish, publish

    try:
        done = publish(exercise_id, None)
    except UnknownExercise:
        raise click.ClickException(f"no exercise {exercise_id}") from None
    except CannotPublish as error:
        raise click.ClickException(f"version no longer valid: {error}") from None
    when = f" (learners see it from {done.opens.isoformat()}Z)" if done.opens else ""
    click.echo(f"{'published' if done.changed else 'already published:'} {exercise_id} version {done.version}{when}")


@exercises.command("unpublish")
@click.argument("exercise_id")
def unpublish_command(exercise_id: str) -> None:
    """Hide an exercise from learners; their attempts and scores are kept."""
    from grader.services.exercises import UnknownExercise
    from grader.services.publishing import unpublish

    try:
        changed = unpublish(exercise_id, None)
    except UnknownExercise:
        raise click.ClickException(f"no exercise {exercise_id}") from None
    click.echo(f"{'unpublished' if changed else 'not published:'} {exercise_id}")


@submissions_group.command("reap")
def reap() -> None:
    """Send again code submissions left pending; fail those past the grading deadline."""
    from grader.services.submissions import reap as reap_pending

    report = reap_pending(current_app._get_current_object())  # type: ignore[attr-defined]
    click.echo(f"requeued {len(report.requeued)}, failed {len(report.failed)}")
    from grader.lti.outbox import deliver_due  # LTI scores left waiting go out on the same timer

    sent = deliver_due()
    if sent.sent or sent.failed:
        click.echo(f"LTI scores sent {len(sent.sent)}, failed {len(sent.failed)}")


@click.command("backup")
@click.argument("target", required=False, type=click.Path(dir_okay=False, path_type=Path))
def backup_command(target: Path | None) -> None:
    """Copy the SQLite database, consistently, while the service runs (default: backups/ beside it)."""
    from grader.services.backup import BackupError, backup, database_file, default_target

    url = db.engine.url.render_as_string(hide_password=False)  # a relative SQLite path as the app resolves it
    try:
        made = backup(url, target or default_target(database_file(url).parent / "backups"))
    except BackupError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"backed up to {made.path} ({made.bytes:,} bytes in {made.seconds:.2f} s)")


@click.command("repair")
def repair_command() -> None:
    """Rewrite what an older release left out against this schema: every attempt's wrong-part rows."""
    from grader.wrong_parts import repair

    click.echo(f"repaired the wrong parts of {repair(db.engine)} attempts")


def register_commands(app: Flask) -> None:
    """Attach the command groups to the app."""
    app.cli.add_command(backup_command)
    app.cli.add_command(repair_command)
    app.cli.add_command(users)
    app.cli.add_command(exercises)
    app.cli.add_command(submissions_group)
    from grader.course_cli import adaptive_group, group as courses_group

    app.cli.add_command(courses_group)
    app.cli.add_command(adaptive_group)
