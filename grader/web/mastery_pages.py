"""Mastery pages: a learner's skills per lesson (SVG bars with a hidden table), and the course's heatmap for its staff
(skills × learners, a table and a CSV, the weakest skills and who is stuck). Routes on the learn and teach blueprints."""

from __future__ import annotations

from flask import Response, render_template
from flask_login import login_required

from grader.catalog.skills import skill_title
from grader.models import utcnow
from grader.services import mastery_views
from grader.web import learn, teach
from grader.web.course_context import current as here
from grader.web.csv_download import csv_attachment


@learn.bp.app_template_filter("skill_title")
def _skill_title(skill: str) -> str:
    return skill_title(skill)


@learn.bp.get("/mastery")
@login_required
def my_mastery() -> str:
    """The learner's mastery of each skill, per lesson, with what to do next."""
    lessons = mastery_views.learner_lessons(here().seat, utcnow())
    return render_template("learn/mastery.html", lessons=lessons)


@teach.bp.get("/mastery")
def class_mastery() -> str:
    """The course's learners × skills, the weakest skills and the learners stuck on each."""
    found = mastery_views.class_mastery(here().seat.course_id)
    return render_template("teach/mastery.html", found=found, level=mastery_views.level,
                           bands=mastery_views.level_bands())  # fmt: skip


@teach.bp.get("/mastery.csv")
def class_mastery_csv() -> Response:
    """The course's mastery as CSV."""
    course_id = here().seat.course_id
    return csv_attachment(lambda: mastery_views.class_mastery_csv(course_id), "mastery.csv")
