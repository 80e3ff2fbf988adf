"""Instructor pages: exercise statistics, the no-code editor (and YAML editor) with live preview,
import and export. The gradebook pages are in gradebook_pages, on this blueprint."""

from __future__ import annotations

import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse

from grader.answers.kinds import KINDS
from grader.catalog.lessons import lesson_title
from grader.catalog.loader import MAX_EXERCISE_BYTES, SpecError, is_code_source
from grader.catalog.scenarios import SCENARIOS
from grader.extensions import limiter, user_key
from grader.models import utcnow
from grader.services import authoring, exercise_form, exercise_yaml, insights, wrong_answers
from grader.codecheck.selfcheck import CODE_SELF_CHECK_SEEDS
from grader.services.exercises import existing, latest_version, part_labels
from grader.services.course_rules import in_order, opens_in
from grader.services.save_check import SELF_CHECK_SEEDS
from grader.web.course_context import course_exercise, course_exercises, course_id, page_course, theirs_only
from grader.web.filters import problem
from grader.web.forms import ExerciseSourceForm, ImportForm, PageForm
from grader.web.i18n import LANGUAGES, translated
from grader.web.saved_notices import saved

bp = Blueprint("teach", __name__, url_prefix="/teach")
# A course's content is its instructors' to change; its TAs see and grade, and edit none of it.
CONTENT_ENDPOINTS = frozenset({"teach.new", "teach.edit", "teach.preview", "teach.import_exercise",
                               "teach.publish_exercise", "teach.unpublish_exercise"})
MULTI_FIELDS = ("-mistakes", "-optional")


class EditorForm(PageForm):
    """CSRF only: the structured editor's rows are read from the request by name."""


@bp.before_request
def _instructors_only() -> BaseResponse | None:
    """Every /teach page is for the staff of the course the person is in now: anonymous users log in, learners
    get 403."""
    if not current_user.is_authenticated:
        return current_app.login_manager.unauthorized()  # type: ignore[attr-defined,no-any-return]
    course = page_course()
    if course is None or not course.staff or (request.endpoint in CONTENT_ENDPOINTS and not course.instructor):
        abort(403)
    theirs_only(course.seat.course_id, CONTENT_ENDPOINTS)
    return None


@bp.context_processor
def _self_check_sizes() -> dict[str, int]:
    """How many variants (numeric) and seeds' cases (code) the self-check tries, for the editor's texts."""
    return {"numeric_seeds": SELF_CHECK_SEEDS, "code_seeds": CODE_SELF_CHECK_SEEDS}


@bp.get("/exercises")
def exercises() -> str:
    """All exercises with attempts, solve rate and their most common wrong answers."""
    shown = in_order(course_id(), course_exercises())  # the course's order, dates and limits
    return render_template("teach/exercises.html", stats=insights.overview(course_id(), [p.exercise for p in shown]),
                           dates={p.exercise.id: p for p in shown}, lesson_title=lesson_title,
                           scanned=wrong_answers.MAX_SCANNED)  # fmt: skip


@bp.get("/exercises/<exercise_id>")
def exercise(exercise_id: str) -> str:
    """One exercise: counts, common wrong answers per part, version history."""
    found, course = course_exercise(exercise_id), course_id()
    return render_template(
        "teach/exercise.html", exercise=found, stats=insights.stats_of(course, found), labels=part_labels(found),
        wrong=insights.wrong_by_part(course, found.id), versions=insights.versions(course, found.id),
        lesson=lesson_title(found.lesson), limit=insights.TOP_PER_PART, scanned=wrong_answers.MAX_SCANNED, now=utcnow(),
        opens=opens_in(course, found),
    )  # fmt: skip


# ---- the editor ------------------------------------------------------------------------------------


def _posted_values() -> dict[str, Any]:
    form = request.form
    return {k: form.getlist(k) if k.endswith(MULTI_FIELDS) else form.get(k, "") for k in form}


def _choices(model: str) -> dict[str, Any]:
    scenario = SCENARIOS.get(model) or next(iter(SCENARIOS.values()))
    return {
        "model": scenario.name, "models": list(SCENARIOS), "kinds": list(KINDS),
        "tolerances": exercise_form.TOLERANCE_KINDS, "quantities": list(scenario.quantities),
        # Any part may recognise a transposed shape, and a model may list it already: offer it once.
        "mistakes": list(dict.fromkeys([*scenario.mistakes, "transposed-shape"])),
        "params": [*scenario.params, *scenario.optional],
    }  # fmt: skip


def _tab(editing: str | None, mode: str) -> str:
    if editing:
        return url_for("teach.edit", exercise_id=editing, mode=mode)
    copy = request.args.get("from")
    return url_for("teach.new", mode=mode, **({"from": copy} if copy else {}))  # type: ignore[arg-type]


def _render(editing: str | None, mode: str, values: dict[str, Any], *,
            source_form: ExerciseSourceForm | None = None, checked: authoring.Checked | None = None,
            variant: authoring.Sample | None = None, placed: dict[str, list[str]] | None = None,
            status: int = 200) -> tuple[str, int]:  # fmt: skip
    # The YAML editor lists problems in its preview pane; the form marks them at their fields.
    previewing = checked is not None and (mode == "yaml" or request.form.get("action") == "preview")
    tabs = {m: _tab(editing, m) for m in ("form", "yaml")}
    html = render_template(
        "teach/editor.html", editing=editing, mode=mode, values=values, tabs=tabs, form=EditorForm(),
        source_form=source_form or ExerciseSourceForm(), checked=checked, variant=variant,
        placed=placed or {}, choices=_choices(str(values.get("model", ""))), rows=exercise_form,
        preview_shown=previewing, locales=_translation_locales(values), base_version=_base_version(editing),
    )  # fmt: skip
    return html, status


def _start_source(editing: str | None) -> str:
    stored = latest_version(editing or request.args.get("from") or "")  # a draft's edits build on the draft
    return stored.source if stored else ""


def _translation_locales(values: dict[str, Any]) -> list[str]:
    """The page languages other than English, and any other language the exercise is written in."""
    written = {key.split("-")[1] for key in values if key.startswith("translation-")}
    return sorted((set(LANGUAGES) - {"en"}) | written)


def _start_values(editing: str | None) -> dict[str, Any] | None:
    source = _start_source(editing)
    if not source:
        return {"model": next(iter(SCENARIOS)), "part-0-type": "scalar", "part-0-tol_kind": "abs"}
    values = exercise_form.values_from_source(source)
    if values is not None and not editing:
        values["id"] = ""  # a copy needs its own id
    return values


def _area(error: SpecError, draft: exercise_form.Draft) -> str:
    path = error.field.split(".")
    if path[0] == "translations" and len(path) > 2 and path[2] in ("title", "prompt", "solution"):
        return f"translation-{path[1]}-{path[2]}"  # the field in that language's section
    if path[0] == "parts" and len(path) > 1 and path[1].isdigit() and int(path[1]) < len(draft.part_rows):
        return f"part-{draft.part_rows[int(path[1])]}"
    if path[0] == "params" and len(path) > 1 and path[1] in draft.param_rows:
        return f"param-{draft.param_rows[path[1]]}"
    if path[0] in exercise_form.TOP_KEYS or path[0].startswith("params"):
        return path[0].split(" ")[0]
    named = re.search(r"part ([a-z][a-z0-9_]*):", error.message)
    ids = [p.get("id") for p in draft.data.get("parts", [])]
    if named and named.group(1) in ids:
        return f"part-{draft.part_rows[ids.index(named.group(1))]}"
    if error.message.removeprefix("Value error, ").startswith("translations."):
        return "translations"
    for key in ("params", "model", "placeholder"):
        if key in error.message:
            return "prompt" if key == "placeholder" else key
    return "general"


def _place_errors(errors: list[SpecError], draft: exercise_form.Draft) -> dict[str, list[str]]:
    """Errors grouped by the form area they belong to (a field, a row, or general)."""
    placed: dict[str, list[str]] = {}
    for error in errors:
        where = "" if error.whole_file else f"{error.field}: "
        placed.setdefault(_area(error, draft), []).append(where + problem(error))
    return placed


def _base_version(editing: str | None) -> int | None:
    """The version the editor page started from: the current one when it opens, then as its form carries it."""
    if editing is None:
        return None
    if request.method == "POST":
        posted = request.form.get("base_version", "")
        return int(posted) if re.fullmatch(r"[0-9]{1,9}", posted) else None  # isdigit() takes '²' too
    stored = latest_version(editing)
    return stored.version if stored else None


def _finish(editing: str | None, source: str, problems: list[SpecError],
            from_form: bool) -> tuple[authoring.Checked, authoring.Sample | None, str | None]:  # fmt: skip
    """Preview or save the posted exercise, as the pressed button says."""
    if request.form.get("action") == "preview":
        checked, variant = authoring.preview(source, problems)
        return checked, variant, None
    checked, outcome = authoring.save(source, current_user.id, "web", editing=editing, new=editing is None,
                                      problems=problems, base=_base_version(editing), from_form=from_form,
                                      course_id=course_id(), catalogue=current_user.is_staff)  # fmt: skip
    return checked, None, outcome


def _structured(editing: str | None) -> BaseResponse | tuple[str, int]:
    values, draft = _posted_values(), exercise_form.draft_from_form(request.form)
    if editing:
        values["id"] = draft.data["id"] = editing  # the id of an existing exercise never changes here
    checked, variant, outcome = _finish(editing, exercise_yaml.dump(draft.data), draft.problems, from_form=True)
    if outcome and checked.spec:
        return saved(checked.spec.id, outcome, checked.notes)
    placed = _place_errors(checked.errors, draft)
    return _render(editing, "form", values, checked=checked, variant=variant, placed=placed,
                   status=200 if checked.ok else 422)  # fmt: skip


def _yaml(editing: str | None) -> BaseResponse | tuple[str, int]:
    source_form = ExerciseSourceForm()
    if not source_form.validate_on_submit():
        return _render(editing, "yaml", {}, source_form=source_form, status=422)
    source = (source_form.source.data or "").replace("\r\n", "\n")
    checked, variant, outcome = _finish(editing, source, [], from_form=False)
    if outcome and checked.spec:
        return saved(checked.spec.id, outcome, checked.notes)
    return _render(editing, "yaml", {}, source_form=source_form, checked=checked, variant=variant,
                   status=200 if checked.ok else 422)  # fmt: skip


def _editor(editing: str | None) -> BaseResponse | tuple[str, int]:
    mode = "yaml" if request.values.get("mode") == "yaml" else "form"
    if request.method == "POST":
        if not EditorForm().validate_on_submit():
            abort(400)
        return _yaml(editing) if mode == "yaml" else _structured(editing)
    if mode == "yaml":
        source_form = ExerciseSourceForm(data={"source": _start_source(editing)})
        return _render(editing, "yaml", {}, source_form=source_form)
    values = _start_values(editing)
    if values is None:
        flash(gettext("A code exercise is written in YAML: the form has fields for typed answers only.")
              if is_code_source(_start_source(editing))
              else gettext("This exercise uses options the form cannot show; edit its YAML instead."))  # fmt: skip
        return redirect(_tab(editing, "yaml"))
    return _render(editing, "form", values)


@bp.route("/exercises/new", methods=["GET", "POST"])
def new() -> BaseResponse | tuple[str, int]:
    """Write a new exercise in the form (or as YAML); ?from=<id> starts from a copy."""
    return _editor(None)


@bp.route("/exercises/<exercise_id>/edit", methods=["GET", "POST"])
def edit(exercise_id: str) -> BaseResponse | tuple[str, int]:
    """Edit an exercise; saving stores a new version, and earlier attempts keep theirs."""
    return _editor(existing(exercise_id).id)  # another course's exercise: the guard's theirs_only 404s


@bp.post("/exercises/preview")
@limiter.limit("120 per minute", key_func=user_key)
def preview() -> tuple[str, int]:
    """An HTML fragment: a random variant of the posted exercise, or its errors (422)."""
    if request.form.get("mode") == "yaml":
        source_form = ExerciseSourceForm()
        if not source_form.validate_on_submit():
            errors = [SpecError("exercise", "source", e) for e in source_form.source.errors]
            checked = authoring.Checked(None, errors)
            return render_template("teach/_preview.html", checked=checked, variant=None), 422
        checked, variant = authoring.preview((source_form.source.data or "").replace("\r\n", "\n"))
    else:
        draft = exercise_form.draft_from_form(request.form)
        checked, variant = authoring.preview(exercise_yaml.dump(draft.data), draft.problems)
    html = render_template("teach/_preview.html", checked=checked, variant=variant)
    return html, 200 if checked.ok else 422


@bp.get("/exercises/<exercise_id>/export")
def export(exercise_id: str) -> Response:
    """The newest version's YAML (a draft or not), as a file in the format of exercises/."""
    stored = latest_version(exercise_id)  # one the course does not use: the guard's theirs_only 404s
    if stored is None:
        abort(404)
    disposition = f'attachment; filename="{stored.exercise_id}.yaml"'
    return Response(stored.source, mimetype="text/yaml", headers={"Content-Disposition": disposition})


@bp.route("/import", methods=["GET", "POST"])
def import_exercise() -> BaseResponse | tuple[str, int]:
    """Upload one exercise file; it is validated and self-checked like the editor's."""
    form, checked = ImportForm(), None
    if form.validate_on_submit():
        upload = form.upload.data
        try:
            raw = upload.stream.read(MAX_EXERCISE_BYTES + 1) if upload else b""
            source = authoring.read_upload(getattr(upload, "filename", "") or "", raw)
        except authoring.UploadError as error:
            form.upload.errors = [translated(error.text)]
        else:
            checked, outcome = authoring.save(source, current_user.id, "web", course_id=course_id(),
                                              catalogue=current_user.is_staff)  # fmt: skip
            if outcome and checked.spec:
                return saved(checked.spec.id, outcome, checked.notes)
    status = 200 if request.method == "GET" else 422
    return render_template("teach/import.html", form=form, checked=checked, limit=MAX_EXERCISE_BYTES), status
