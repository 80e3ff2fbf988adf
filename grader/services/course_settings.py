"""A course's settings as its instructors change them on the web: title, language, dates, joining with a code,
and making a new course. Each refusal names the field it is about."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import sqlalchemy as sa

from grader.course_models import Course
from grader.extensions import db
from grader.services import audit, courses
from grader.services.courses import MAX_TITLE, CourseError
from grader.texts import Text, say

LOCALES = ("en", "pt", "ru")  # the languages the pages are in
Problems = dict[str, Text]


@dataclass(frozen=True)
class Settings:
    """What the settings form sends, as typed (dates as YYYY-MM-DD, empty for none)."""

    title: str
    locale: str
    starts: str = ""
    ends: str = ""


def _day(text: str, field: str, problems: Problems) -> date | None:
    """A date typed as YYYY-MM-DD (empty: none); a problem under `field` when it is not one."""
    if not text.strip():
        return None
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        day = None
    if day is None or day.year > 9998:  # a last day ends at the next midnight, which must be a date too
        problems[field] = say("write a date as YYYY-MM-DD, such as 2027-02-01")
    return day if field not in problems else None


def starts_at(day: date | None) -> datetime | None:
    """A course's first day as the moment it starts (00:00 UTC)."""
    return None if day is None else datetime.combine(day, time())


def ends_at(day: date | None) -> datetime | None:
    """A course's last day as the moment it ends: the end of that day in UTC."""
    return None if day is None else datetime.combine(day, time()) + timedelta(days=1)


def day_before(moment: datetime) -> date:
    """The last day of a period that ends at `moment` (the end of a day, as `ends_at` makes it)."""
    return (moment - timedelta(days=1)).date()


def last_day(course: Course) -> date | None:
    """The last day of the course, as the settings form shows it."""
    return None if course.ends_at is None else day_before(course.ends_at)


def _title(text: str, problems: Problems) -> str:
    title = " ".join(text.split())
    if not 0 < len(title) <= MAX_TITLE:
        problems["title"] = say("A course title is 1 to %(count)d characters.", count=MAX_TITLE)
    return title


def _checked(given: Settings) -> tuple[str, datetime | None, datetime | None, Problems]:
    problems: Problems = {}
    title = _title(given.title, problems)
    if given.locale not in LOCALES:
        problems["locale"] = say("Choose one of the languages offered.")
    first, last = _day(given.starts, "starts", problems), _day(given.ends, "ends", problems)
    if first is not None and last is not None and last < first:
        problems["ends"] = say("The last day cannot be before the first.")
    return title, starts_at(first), ends_at(last), problems


def update(course: Course, given: Settings, by: int) -> Problems:
    """Change the course's title, language and dates; commits. The problem with each field, nothing changed."""
    title, starts, ends, problems = _checked(given)
    if problems:
        return problems
    course.title, course.locale, course.starts_at, course.ends_at = title, given.locale, starts, ends
    audit.note(by, "course.settings", course_id=course.id, title=title, language=given.locale)
    db.session.commit()
    return {}


def create(code: str, title: str, locale: str, by: int) -> tuple[Course | None, Problems]:
    """Make a course, its maker its instructor; commits. Or the problem with each field, and no course."""
    problems: Problems = {}
    code = code.strip().lower()
    try:
        courses.check_code(code)
    except CourseError as refused:
        problems["code"] = refused.text
    else:
        if db.session.scalar(sa.select(Course.id).where(Course.code == code)) is not None:
            problems["code"] = say("A course with the code %(code)s exists already.", code=code)
    _title(title, problems)
    if locale not in LOCALES:
        problems["locale"] = say("Choose one of the languages offered.")
    if problems:
        return None, problems
    # On the whole catalogue, as an instructor expects of a new course; its content page narrows it to a list.
    return courses.create(code, title, locale, by=by, whole_catalogue=True), {}


def set_joining(course: Course, enabled: bool, expires: str, by: int) -> Problems:
    """Switch joining with a code on (until the end of the `expires` day, if given) or off; commits."""
    problems: Problems = {}
    day = _day(expires, "expires", problems)
    if problems:
        return problems
    if enabled:
        courses.open_joining(course, ends_at(day))
    else:
        courses.close_joining(course)
    audit.note(by, "course.settings", course_id=course.id, joining="on" if enabled else "off")
    db.session.commit()
    return {}


def renew_code(course: Course, by: int) -> str:
    """Give the course a new join code (the old one stops working); commits and returns it."""
    course.join_code = courses.new_join_code()
    audit.note(by, "course.settings", course_id=course.id, joining="new code")
    db.session.commit()
    return course.join_code


