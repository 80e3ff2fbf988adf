"""`flask --app wsgi courses ...`: make courses, put people in them, list them (for operators' scripts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from flask.cli import AppGroup

from grader.course_models import COURSE_ROLES
from grader.models import utc_text
from grader.services import accounts, courses, enrolment
from grader.services.enrolment_rows import ListRefused

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


@group.command("import")
@click.argument("code")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--good-rows-only", is_flag=True, help="Import the good rows even when some are bad (those are left out).")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object, for scripts.")
def import_people(code: str, file: Path, good_rows_only: bool, as_json: bool) -> None:
    """Put the people of a CSV FILE (columns email, name, role) in course CODE; exits 1 when bad rows stopped it."""
    course = courses.by_code(code)
    if course is None:
        raise click.ClickException(f"no course with code {code}")
    try:
        report = enrolment.import_file(course.id, file.read_bytes(), None, good_rows_only)
    except (ListRefused, courses.CourseError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(json.dumps(report.to_json(), ensure_ascii=False) if as_json else _report_text(course.code, report))
    if not report.imported and report.bad:
        sys.exit(1)


def _report_text(code: str, report: enrolment.Report) -> str:
    """The import report as lines for a terminal."""
    new = sum(1 for a in report.added if a["new_account"])
    lines = [f"{'imported into' if report.imported else 'nothing imported into'} {code}: {len(report.added)} added "
             f"({new} new accounts), {len(report.raised)} raised, {report.unchanged + len(report.kept)} unchanged"]
    lines += [f"row {k['row']}: {k['email']} stays {k['role']} (the file says {k['asked']}; roles are never "
              "lowered by an import)" for k in report.kept]  # fmt: skip
    if report.bad:
        lines.append("bad rows, left out:" if report.imported else "bad rows (fix them, or pass --good-rows-only):")
        lines += [f"row {p.number}: {p.given!r}: {p.reason}" for p in report.bad]
    return "\n".join(lines)


adaptive_group = AppGroup("adaptive", help="The learner model behind “Practise next”.")


@adaptive_group.command("fit")
@click.option("--course", "code", default=None, help="Only this course (by code); without it, every course.")
def fit(code: str | None) -> None:
    """Fit BKT's parameters per skill from each course's stored answers; too little data keeps the defaults."""
    from grader.adaptive import bkt
    from grader.services import fitting

    chosen = courses.all_courses() if code is None else [c for c in [courses.by_code(code)] if c is not None]
    if code is not None and not chosen:
        raise click.ClickException(f"no course with code {code}")
    for course in chosen:
        outcomes = fitting.fit_course(course.id)
        if not outcomes:
            click.echo(f"{course.code}: no answers yet; every skill keeps the defaults")
        for done in outcomes:
            f, p = done.fit, done.fit.params
            if f.fitted:
                click.echo(f"{course.code} {done.skill}: fitted from {f.learners} learners and {f.observations} "
                           f"answers: prior {p.prior:.3f}, learn {p.learn:.3f}, guess {p.guess:.3f}, slip {p.slip:.3f}")
            else:
                click.echo(f"{course.code} {done.skill}: too little data ({f.learners} learners, {f.observations} "
                           f"answers; a fit needs {bkt.MIN_LEARNERS} learners and {bkt.MIN_OBSERVATIONS} answers): "
                           "keeps the defaults")
