"""`flask --app wsgi courses ...`: make courses, put people in them, list them (for operators' scripts)."""

from __future__ import annotations

import json
from typing import Any

import click
from flask.cli import AppGroup

from grader.course_models import COURSE_ROLES
from grader.models import utc_text
from grader.services import accounts, courses

group = AppGroup("courses", help="Courses, their members and their roles.")


@group.command("create")
@click.argument("code")
@click.option("--title", required=True)
@click.option("--locale", default="en", help="The course's default language (en, pt or ru).")
def create(code: str, title: str, locale: str) -> None:
    """Make a course with a URL-safe CODE (ml101-2027s)."""
    try:
        course = courses.create(code, title, locale)
    except courses.CourseError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"created course {course.code}")


@group.command("add-member")
@click.argument("code")
@click.option("--email", required=True)
@click.option("--role", type=click.Choice(COURSE_ROLES), required=True)
def add_member(code: str, email: str, role: str) -> None:
    """Put the account with EMAIL in course CODE with a role, or change their role there."""
    course, user = courses.by_code(code), accounts.user_by_email(email)
    if course is None:
        raise click.ClickException(f"no course with code {code}")
    if user is None:
        raise click.ClickException(f"no user with email {email}")
    added = courses.add_member(course, user, role)
    click.echo(f"{'added' if added else 'now'} {role} {user.email} in {course.code}")


@group.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON array, for scripts.")
def list_courses(as_json: bool) -> None:
    """Every course: code, title, language, dates and how many members of each role."""
    rows: list[dict[str, Any]] = [{"code": c.code, "title": c.title, "locale": c.locale,
             "starts_at": utc_text(c.starts_at) if c.starts_at else None,
             "ends_at": utc_text(c.ends_at) if c.ends_at else None,
             "members": courses.member_counts(c.id)} for c in courses.all_courses()]  # fmt: skip
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    for row in rows:
        counts = ", ".join(f"{n} {role}" for role, n in row["members"].items())
        click.echo(f"{row['code']}\t{row['title']}\t{counts}")
