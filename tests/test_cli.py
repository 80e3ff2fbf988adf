"""`python -m grader`, run as a learner or author would run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.formulas.hostile import LURKING

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_validate_passes_on_the_catalogue() -> None:
    result = run("exercises", "validate")
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() == "32 exercises valid"  # 24 numeric and 8 code exercises


def test_validate_fails_with_file_field_message_lines(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    good = (ROOT / "exercises" / "gpt2-block" / "block-gelu.yaml").read_text(encoding="utf-8")
    bad.write_text(good.replace("tolerance: {abs: 0.0005}", "tolerance: {abs: -1}", 1), encoding="utf-8")
    result = run("exercises", "validate", str(bad))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{bad}: parts.0.tolerance.abs: Input should be greater than 0"]


def test_validate_honours_root(tmp_path: Path) -> None:
    gelu = (ROOT / "exercises" / "gpt2-block" / "block-gelu.yaml").read_text(encoding="utf-8")
    (tmp_path / "good.yaml").write_text(gelu, encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(gelu.replace("id: block-gelu", "id: other-gelu").replace("tolerance: {abs: 0.0005}",
                                                                             "tolerance: {abs: -1}", 1), encoding="utf-8")  # fmt: skip
    result = run("--root", str(tmp_path), "exercises", "validate")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{bad}: parts.0.tolerance.abs: Input should be greater than 0"]
    bad.unlink()
    result = run("--root", str(tmp_path), "exercises", "validate")
    assert (result.returncode, result.stdout) == (0, "1 exercises valid\n")


def test_validate_refuses_a_page_example_that_computes_nan(tmp_path: Path) -> None:
    example = (ROOT / "tests" / "catalog" / "formula_examples" / "softmax-temperature.yaml").read_text(encoding="utf-8")
    nan = tmp_path / "nan.yaml"
    nan.write_text(example.replace("  p: softmax(z)\n", "  p: softmax(z)\n  r: sqrt(s)\n"), encoding="utf-8")
    result = run("exercises", "validate", str(nan))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{nan}: compute.r: the page's example gives NaN (not a number) here; "
                                          "change the formula or the parameters' page values"]  # fmt: skip


def test_validate_checks_code_exercises_too(tmp_path: Path) -> None:
    code = tmp_path / "code-gelu.yaml"
    code.write_text((ROOT / "exercises" / "code" / "code-gelu.yaml").read_text(encoding="utf-8") + "bogus_key: 1\n",
                    encoding="utf-8")  # fmt: skip
    result = run("exercises", "validate", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [f"{code}: bogus_key: Extra inputs are not permitted"]


def test_validate_refuses_one_id_in_a_numeric_and_a_code_file(tmp_path: Path) -> None:
    gelu = (ROOT / "exercises" / "gpt2-block" / "block-gelu.yaml").read_text(encoding="utf-8")
    (tmp_path / "a.yaml").write_text(gelu.replace("id: block-gelu", "id: gelu"), encoding="utf-8")
    code = (ROOT / "exercises" / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
    (tmp_path / "b.yaml").write_text(code.replace("id: code-gelu", "id: gelu"), encoding="utf-8")
    result = run("exercises", "validate", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"{tmp_path / name}: id: 'gelu' is also the id of {tmp_path / other}; neither file is loaded until one is renamed"
        for name, other in (("a.yaml", "b.yaml"), ("b.yaml", "a.yaml"))
    ]


def test_list_json_has_ids_and_part_types() -> None:
    rows = json.loads(run("exercises", "list", "--json").stdout)
    gelu = next(r for r in rows if r["id"] == "block-gelu")
    assert gelu == {"id": "block-gelu", "title": "GELU by hand", "lesson": "gpt2-block", "kind": "numeric",
                    "parts": [{"id": "neg", "type": "scalar"}, {"id": "pos", "type": "scalar"}]}  # fmt: skip


def test_variant_json_gives_params_prompt_and_answers() -> None:
    data = json.loads(run("variant", "modern-shapes", "--seed", "0", "--json").stdout)
    assert data["params"] == {"n": 5, "d": 8, "n_head": 2, "n_kv_head": 1}
    assert {p["id"]: p["answer"] for p in data["parts"]} == {
        "q": [2, 5, 4], "kv": [2, 5, 4], "scores": [2, 5, 5], "hidden": [5, 21], "out": [5, 8]}
    assert "$n = 5$" in data["prompt"]


def test_check_json_reports_each_part() -> None:
    answers = json.dumps({"mu": "-0,092", "sigma": "1.202", "u": "1 2"})
    data = json.loads(run("check", "block-layernorm", "--seed", "0", "--answers", answers, "--json").stdout)
    assert data["parts"]["mu"]["status"] == "correct"
    assert data["parts"]["sigma"]["misconception"] == "sample-variance"
    assert data["parts"]["u"]["status"] == "invalid"
    assert data["parts"]["u"]["message"].startswith("expected 4 numbers, got 2")
    assert data["counted"] is False
    assert set(data["parts"]["mu"]) == {"status", "score", "message", "misconception", "hint", "wrong_entries"}


def test_check_refuses_bad_json_and_unknown_exercises() -> None:
    assert run("check", "block-gelu", "--answers", "{not json").returncode == 2
    unknown = run("check", "no-such", "--answers", "{}")
    assert unknown.returncode == 2 and "unknown exercise" in unknown.stderr


def test_selfcheck_command_prints_a_summary_and_exits_zero() -> None:
    result = run("selfcheck", "--seeds", "5")
    assert result.returncode == 0
    assert result.stdout.strip().endswith("0 failures")
    assert "selfcheck: 32 exercises, " in result.stdout  # 24 numeric and 8 code exercises


def test_selfcheck_fails_a_code_exercise_whose_mistakes_would_pass(tmp_path: Path) -> None:
    code = (ROOT / "exercises" / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
    loose = code.replace("tolerance: {rtol: 1e-5, atol: 1e-8}", "tolerance: {rtol: 1.0, atol: 1000000.0}")
    assert loose != code
    (tmp_path / "code-gelu.yaml").write_text(loose, encoding="utf-8")
    result = run("--root", str(tmp_path), "selfcheck", "--seeds", "2")
    assert result.returncode == 1
    assert "code-gelu seed 1: mistake erf-gelu at 10 times the tolerance -> passed, named None" in result.stdout.splitlines()
    assert result.stdout.strip().endswith("selfcheck: 1 exercises, 2 variants, 10 checks, 8 failures")


def test_selfcheck_notes_a_code_mistake_that_passes_hidden_cases(tmp_path: Path) -> None:
    code = (ROOT / "exercises" / "code" / "code-rmsnorm.yaml").read_text(encoding="utf-8")
    (tmp_path / "code-rmsnorm.yaml").write_text(code, encoding="utf-8")
    result = run("--root", str(tmp_path), "selfcheck", "--seeds", "1")
    assert result.returncode == 0  # a note, not a failure: ε left out shows only in the edge cases
    notes = [line for line in result.stdout.splitlines() if line.startswith("note: ")]
    assert [note.split(" (")[0] for note in notes] == [
        f"note: code-rmsnorm: mistake {name} passes 10 of 10 hidden cases at seed 0" for name in ("no-eps", "eps-outside-sqrt")]
    assert result.stdout.strip().endswith("0 failures")


def test_selfcheck_fails_when_a_file_cannot_be_read(tmp_path: Path) -> None:
    code = (ROOT / "exercises" / "code" / "code-gelu.yaml").read_text(encoding="utf-8")
    (tmp_path / "code-gelu.yaml").write_text(code.replace("cases: {random: 8}", "cases: {random: 8000}"),
                                             encoding="utf-8")  # fmt: skip
    result = run("--root", str(tmp_path), "selfcheck", "--seeds", "2")
    assert result.returncode == 1
    assert f"{tmp_path / 'code-gelu.yaml'}: cases.random: Input should be less than or equal to 100" in result.stderr


def test_grade_code_escapes_what_the_submission_prints_so_it_cannot_drive_the_terminal(tmp_path: Path) -> None:
    from tests.layer_norm_sources import GOOD

    title_and_clear = "\x1b]0;owned\x07\x1b[2J\x9b1m"
    submission = tmp_path / "mine.py"
    submission.write_text(GOOD.replace("    mu =", f"    print({title_and_clear!r} + 'passed')\n    mu =", 1),
                          encoding="utf-8")  # fmt: skip
    for extra in ((), ("--json",)):
        result = run("grade-code", "code-layer-norm", str(submission), *extra)
        assert result.returncode == 0, result.stderr
        assert not any(c in result.stdout for c in "\x1b\x07\x9b")
        assert "\\u001b]0;owned\\u0007\\u001b[2J\\u009b1mpassed" in result.stdout
    assert json.loads(result.stdout)["cases"][0]["printed"] == title_and_clear + "passed\n"


def test_validate_tries_formulas_as_the_save_check_does(tmp_path: Path) -> None:
    (tmp_path / "lurking.yaml").write_text(LURKING, encoding="utf-8")
    result = run("exercises", "validate", str(tmp_path))
    assert result.returncode == 1
    # Quick at seeds 0 to 19; the random seeds tried as well find the slow ones.
    [line] = result.stdout.splitlines()
    assert line.startswith("lurking-formulas: no variant for seed ") and line.endswith(
        ": the formulas take too long to compute (more than 0.5 s)")
