"""`flask exercises sync`: a file is stored only when it is valid, has an id of its own and passes the
self-check; anything else is an error (exit 1) and what the database holds for that id stays."""

from __future__ import annotations

from pathlib import Path

from click.testing import Result
from flask import Flask
from flask.testing import FlaskClient

from tests.web.test_learn import EXERCISES
from tests.web.test_teach import exercise_row

GELU = (EXERCISES / "gpt2-block" / "block-gelu.yaml").read_text(encoding="utf-8")
TOO_LOOSE = GELU.replace("tolerance: {abs: 0.0005}", "tolerance: {abs: 0.5}")  # no variant tells ReLU from GELU


def sync(app: Flask, files: dict[str, str], folder: Path) -> Result:
    """Run `flask exercises sync` on a folder holding these files (name -> text)."""
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    app.config["EXERCISES_DIR"] = folder
    return app.test_cli_runner().invoke(args=["exercises", "sync"])


def test_two_files_with_one_id_are_both_refused_on_every_run(app: Flask, tmp_path: Path) -> None:
    copy = GELU.replace("title: GELU by hand", "title: GELU by hand, again")
    assert copy != GELU
    folder = tmp_path / "exercises"
    for _ in range(3):
        result = sync(app, {"block-gelu.yaml": GELU, "block-gelu-copy.yaml": copy}, folder)
        assert result.exit_code == 1, result.output
        assert "0 created, 0 updated, 0 unchanged, 2 errors" in result.output
        assert (f"error: {folder / 'block-gelu.yaml'}: id: 'block-gelu' is also the id of "
                f"{folder / 'block-gelu-copy.yaml'}; neither file is loaded") in result.output  # fmt: skip
        assert f"error: {folder / 'block-gelu-copy.yaml'}: id: 'block-gelu' is also the id of" in result.output
    assert exercise_row(app, "block-gelu") == (1, 1)  # as the shipped file loaded it


def test_a_shared_id_across_a_numeric_and_a_code_file_is_refused(app: Flask, tmp_path: Path) -> None:
    code = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8").replace("id: code-gelu", "id: block-gelu")
    result = sync(app, {"a.yaml": GELU.replace("title: GELU by hand", "title: Changed"), "b.yaml": code},
                  tmp_path / "exercises")  # fmt: skip
    assert result.exit_code == 1 and "2 errors" in result.output
    assert exercise_row(app, "block-gelu") == (1, 1)


def test_a_changed_file_that_fails_the_self_check_keeps_the_stored_version(app: Flask, learner: FlaskClient,
                                                                           tmp_path: Path) -> None:  # fmt: skip
    result = sync(app, {"block-gelu.yaml": TOO_LOOSE}, tmp_path / "exercises")
    assert result.exit_code == 1, result.output
    assert "0 created, 0 updated, 0 unchanged, 1 errors" in result.output
    assert "block-gelu.yaml: (self-check): fails the self-check, so it is not stored: block-gelu seed 0: " in result.output
    assert "python -m grader selfcheck --exercise block-gelu" in result.output  # the other seeds fail too
    assert exercise_row(app, "block-gelu") == (1, 1)
    assert learner.get("/exercises/block-gelu").status_code == 200  # learners still get the working version
    fixed = sync(app, {"block-gelu.yaml": GELU.replace("title: GELU by hand", "title: GELU, by hand")},
                 tmp_path / "exercises")  # fmt: skip
    assert fixed.exit_code == 0 and "0 created, 1 updated" in fixed.output
    assert exercise_row(app, "block-gelu") == (2, 2)


def test_a_new_file_that_fails_the_self_check_is_not_stored(app: Flask, tmp_path: Path) -> None:
    result = sync(app, {"loose.yaml": TOO_LOOSE.replace("id: block-gelu", "id: loose-gelu")}, tmp_path / "exercises")
    assert result.exit_code == 1 and "loose.yaml: (self-check): fails the self-check" in result.output
    assert exercise_row(app, "loose-gelu") is None


def test_a_changed_code_file_whose_mistakes_would_pass_is_not_stored(app: Flask, tmp_path: Path) -> None:
    code = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
    loose = code.replace("tolerance: {rtol: 1e-5, atol: 1e-8}", "tolerance: {rtol: 1.0, atol: 1000000.0}")
    assert loose != code
    result = sync(app, {"code-gelu.yaml": loose}, tmp_path / "exercises")
    assert result.exit_code == 1, result.output
    assert ("code-gelu.yaml: (self-check): fails the self-check, so it is not stored: code-gelu seed 0: "
            "mistake erf-gelu at 10 times the tolerance -> passed, named None") in result.output  # fmt: skip
    assert exercise_row(app, "code-gelu") == (1, 1)


def test_a_file_cannot_change_the_kind_of_a_stored_exercise(app: Flask, tmp_path: Path) -> None:
    code = (EXERCISES / "code" / "code-gelu.yaml").read_text(encoding="utf-8").replace("id: code-gelu", "id: block-gelu")
    result = sync(app, {"block-gelu.yaml": code}, tmp_path / "exercises")
    assert result.exit_code == 1, result.output
    assert ("block-gelu.yaml: kind: 'block-gelu' takes typed answers, so a new version must too (or give it a "
            "new id)") in result.output  # fmt: skip
    assert exercise_row(app, "block-gelu") == (1, 1)


def test_a_missing_exercises_folder_is_an_error_not_an_empty_sync(app: Flask, tmp_path: Path) -> None:
    app.config["EXERCISES_DIR"] = tmp_path / "exercsies"  # mistyped
    result = app.test_cli_runner().invoke(args=["exercises", "sync"])
    assert result.exit_code == 1, result.output
    assert f"error: {tmp_path / 'exercsies'}: (file): no such file or directory" in result.output
    assert exercise_row(app, "block-gelu") == (1, 1)  # what was stored stays


def test_a_code_file_with_self_check_notes_is_stored_and_the_notes_are_printed(app: Flask, tmp_path: Path) -> None:
    code = (EXERCISES / "code" / "code-rmsnorm.yaml").read_text(encoding="utf-8")
    changed = code.replace("title: Write RMSNorm\n", "title: Write an RMSNorm\n")
    assert changed != code
    result = sync(app, {"code-rmsnorm.yaml": changed}, tmp_path / "exercises")
    assert result.exit_code == 0, result.output  # a note is a warning: the file is stored
    assert "0 created, 1 updated, 0 unchanged, 0 errors" in result.output
    assert [line.split(" (")[0] for line in result.output.splitlines() if line.startswith("note: ")] == [
        f"note: code-rmsnorm: mistake {name} passes 50 of 50 hidden cases at seeds 0 to 4"
        for name in ("no-eps", "eps-outside-sqrt")]  # fmt: skip
    assert exercise_row(app, "code-rmsnorm") == (2, 2)
    again = sync(app, {"code-rmsnorm.yaml": changed}, tmp_path / "exercises")
    assert again.exit_code == 0 and "note: " not in again.output  # printed when it was stored
