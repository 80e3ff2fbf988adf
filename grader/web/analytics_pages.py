"""Instructor analytics: the instructor's dashboard (/teach/) and each exercise's analytics page.

Each chart comes with its numbers as Figures: the same rows make the table beside the chart and its
CSV download. The routes live on the teach blueprint, so its instructors-only guard covers them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Iterator

from flask import Response, abort, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString

from grader.catalog.lessons import lesson_title
from grader.catalog.misconceptions import MISCONCEPTIONS
from grader.codecheck.tasks import TASKS
from grader.models import Exercise, utcnow
from grader.pictures.charts import bar_chart, histogram, line_chart
from grader.services import analytics, attention, insights, wrong_answers
from grader.services.exercises import part_labels
from grader.services.exports import csv_text, spreadsheet_safe
from grader.web.course_context import course_exercise, course_exercises, course_id
from grader.web.csv_download import csv_attachment
from grader.web.i18n import current_locale, translated
from grader.web.teach import bp

UNEXPLAINED = _l("Unexplained wrong answers")


@dataclass(frozen=True)
class Figures:
    """A chart's numbers: its CSV name, its columns (CSV header, page heading, kind) and rows of plain values.
    A kind is text, count, share (0 to 1) or day."""

    name: str
    columns: tuple[tuple[str, LazyString, str], ...]
    rows: list[tuple[object, ...]]


def _csv_value(value: object, kind: str) -> object:
    if kind == "share":
        return f"{float(value):.3f}"  # type: ignore[arg-type]
    return spreadsheet_safe(str(value)) if kind == "text" else value


def _csv(figures: Figures) -> Iterator[str]:
    kinds = [kind for _, _, kind in figures.columns]
    rows = ([_csv_value(v, k) for v, k in zip(row, kinds)] for row in figures.rows)
    return csv_text([[name for name, _, _ in figures.columns], *rows])


@bp.app_template_global()
def misconception_title(name: str | None, exercise_id: str | None = None) -> str:
    """A mistake's title as learners see it, in the page's language: the exercise's own (a formula mistake, a
    code task's) when it is named, else the catalogue's; the unexplained ones' own label for None."""
    if name is None:
        return str(UNEXPLAINED)
    own = insights.mistake_titles(exercise_id).get(name) if exercise_id else None
    if own is not None:
        return translated(own)
    known = MISCONCEPTIONS.get(name)
    if known:
        return translated(known.title)
    coded = next((task.mutants[name] for task in TASKS.values() if name in task.mutants), None)
    return translated(str(coded.title)) if coded else name


def _title(exercises: dict[str, Exercise], exercise_id: str) -> str:
    found = exercises.get(exercise_id)
    return found.title_in(current_locale()) if found else exercise_id


# ---- the dashboard -----------------------------------------------------------------------------


def _rates_figures(lowest: list[attention.Rate], titles: dict[str, Exercise]) -> Figures:
    return Figures("solve-rates", (
        ("exercise", _l("Exercise"), "text"), ("id", _l("Id"), "text"), ("tried", _l("Learners who tried"), "count"),
        ("solved", _l("Solved"), "count"), ("solve rate", _l("Solve rate"), "share"),
        ("asked for hints", _l("Asked for hints"), "count"), ("viewed the solution", _l("Viewed the solution"), "count"),
    ), [(_title(titles, r.exercise_id), r.exercise_id, r.tried, r.solved, r.share, r.hinted, r.gave_up)
        for r in lowest])  # fmt: skip


def _met_figures(met: list[attention.Met], titles: dict[str, Exercise]) -> Figures:
    return Figures("misconceptions-this-week", (
        ("misconception", _l("Misconception"), "text"), ("name", _l("Name"), "text"),
        ("exercise", _l("Exercise"), "text"), ("learners", _l("Learners"), "count"),
        ("wrong answers", _l("Wrong answers"), "count"),
    ), [(misconception_title(m.name, m.exercise_id), m.name, _title(titles, m.exercise_id), m.learners, m.answers)
        for m in met])  # fmt: skip


def _stuck_figures(stuck: list[attention.Stuck], titles: dict[str, Exercise]) -> Figures:
    return Figures("stuck-learners", (
        ("email", _l("Learner"), "text"), ("exercise", _l("Exercise"), "text"), ("attempts", _l("Attempts"), "count"),
        ("hints", _l("Hints"), "count"), ("viewed the solution", _l("Viewed the solution"), "text"),
        ("last active", _l("Last active"), "day"),
    ), [(s.email, _title(titles, on.exercise_id), on.attempts, on.hints, "yes" if on.gave_up else "", on.last.date())
        for s in stuck for on in s.on])  # fmt: skip


def _lesson_exercises(exercises: list[Exercise]) -> tuple[str | None, list[Exercise]]:
    lesson = request.args.get("lesson") or None
    chosen = [e for e in exercises if lesson is None or e.lesson == lesson]
    return lesson, chosen


def _completion_figures(series: list[tuple[date, float]]) -> Figures:
    return Figures("completion", (("day", _l("Day"), "day"), ("share solved", _l("Share solved"), "share")),
                   [(day, share) for day, share in series])  # fmt: skip


@dataclass(frozen=True)
class Dashboard:
    """What the dashboard reads: the figures of each of its parts."""

    titles: dict[str, Exercise]
    lowest: list[attention.Rate]
    met: list[attention.Met]
    stuck: list[attention.Stuck]
    stuck_total: int
    lesson: str | None  # the lesson the completion chart is about; None: the whole course
    chosen: int  # exercises the completion chart counts
    learners: int
    series: list[tuple[date, float]]

    def figures(self) -> dict[str, Figures]:
        """The numbers behind each chart and table, by CSV name."""
        return {"solve-rates": _rates_figures(self.lowest, self.titles), "misconceptions-this-week":
                _met_figures(self.met, self.titles), "stuck-learners": _stuck_figures(self.stuck, self.titles),
                "completion": _completion_figures(self.series)}  # fmt: skip


def _dashboard() -> Dashboard:
    exercises, course = course_exercises(), course_id()
    lesson, chosen = _lesson_exercises(exercises)
    stuck, stuck_total = attention.stuck(course, utcnow())
    series, learners = attention.completion(course, [e.id for e in chosen], utcnow().date())
    return Dashboard({e.id: e for e in exercises}, attention.lowest_rates(exercises, attention.rates(course)),
                     attention.misconceptions_since(course, attention.this_week()), stuck, stuck_total, lesson,
                     len(chosen), learners, series)  # fmt: skip


@bp.get("/")
def home() -> str:
    """The instructor's home: exercises few solve, misconceptions this week, stuck learners, completion."""
    found = _dashboard()
    charts = {
        "rates": bar_chart([(_title(found.titles, r.exercise_id), r.share) for r in found.lowest],
                           share=True, low_below=attention.LOW_RATE, keys=[r.exercise_id for r in found.lowest]),
        "met": bar_chart([(f"{misconception_title(m.name, m.exercise_id)} · {_title(found.titles, m.exercise_id)}",
                           m.learners) for m in found.met], keys=[f"{m.name}, {m.exercise_id}" for m in found.met]),
        "completion": line_chart(found.series, share=True),
    }  # fmt: skip
    links = [url_for("teach.exercise_analytics", exercise_id=r.exercise_id) for r in found.lowest]
    return render_template("teach/dashboard.html", charts=charts, found=found, figures=found.figures(),
                           lessons=insights.lessons(course_exercises()), lesson_title=lesson_title, attention=attention,
                           rate_links=links)  # fmt: skip


# ---- one exercise --------------------------------------------------------------------------------


def _exercise_figures(exercise: Exercise, found: analytics.ExerciseAnalytics) -> dict[str, Figures]:
    labels = part_labels(exercise)
    return {
        "to_solve": Figures("attempts-to-solve", (("attempts", _l("Attempts to solve"), "text"),
                                                  ("learners", _l("Learners"), "count")), list(found.to_solve)),
        "hints": Figures("hints", (("hints", _l("Hints asked for"), "text"), ("learners", _l("Learners"), "count")),
                         list(found.hints)),
        "wrong": Figures("misconceptions", (
            ("misconception", _l("Misconception"), "text"), ("name", _l("Name"), "text"),
            ("learners", _l("Learners"), "count"), ("wrong answers", _l("Wrong answers"), "count"),
            # Not anonymous: each learner's numbers are their own, so the gradebook can tell whose an example is.
            ("examples", _l("Examples (instructors only)"), "text"),
        ), [(misconception_title(m.name, exercise.id), m.name or "", m.learners, m.answers,
             "; ".join(f"{labels.get(part, part)}: {text}" for part, text in m.examples))
            for m in found.misconceptions]),
    }  # fmt: skip


@bp.get("/exercises/<exercise_id>/analytics")
def exercise_analytics(exercise_id: str) -> str:
    """One exercise's solve rate, attempts to solve, help asked for and wrong answers by misconception."""
    exercise = course_exercise(exercise_id)
    found = analytics.exercise_analytics(course_id(), exercise)
    figures = _exercise_figures(exercise, found)
    charts = {
        "to_solve": histogram(found.to_solve),
        "hints": histogram(found.hints),
        "wrong": bar_chart([(misconception_title(m.name, exercise.id), m.learners) for m in found.misconceptions],
                           quiet=[str(UNEXPLAINED)], keys=[m.name or "" for m in found.misconceptions]),
    }
    return render_template("teach/analytics.html", exercise=exercise, found=found, figures=figures, charts=charts,
                           lesson=lesson_title(exercise.lesson), scanned=wrong_answers.MAX_SCANNED)  # fmt: skip


# ---- the numbers as CSV ---------------------------------------------------------------------------

EXERCISE_CSV = {"attempts-to-solve": "to_solve", "hints": "hints", "misconceptions": "wrong"}


@bp.get("/figures/<name>.csv")
def dashboard_csv(name: str) -> Response:
    """One dashboard chart's numbers as CSV."""
    figures = _dashboard().figures().get(name)
    if figures is None:
        abort(404)
    return csv_attachment(lambda: _csv(figures), f"{name}.csv")


@bp.get("/exercises/<exercise_id>/figures/<name>.csv")
def exercise_csv(exercise_id: str, name: str) -> Response:
    """One of an exercise's charts' numbers as CSV."""
    exercise = course_exercise(exercise_id)
    if name not in EXERCISE_CSV:
        abort(404)
    figures = _exercise_figures(exercise, analytics.exercise_analytics(course_id(), exercise))[EXERCISE_CSV[name]]
    return csv_attachment(lambda: _csv(figures), f"{exercise.id}-{name}.csv")
