"""Command line for the catalogue: validate, list, variant, check and selfcheck."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path
from typing import Any, Sequence

from grader.catalog.catalog import DEFAULT_EXERCISES, Catalog
from grader.catalog.loader import collect, read_sources
from grader.catalog.selfcheck import check_catalog
from grader.catalog.variants import VariantError
from grader.codecheck.selfcheck import check_formula_draws
from grader.codecheck.spec import any_spec_from_text
from grader.visible import visible, visible_json


def _print_json(data: Any) -> None:
    # Learner text could retitle, clear or rewrite the terminal, or read as other than it is: hidden
    # characters print as their escapes, \u001b or \u202e, as in JSON (so the output stays JSON).
    print(visible_json(data))


def _load(root: Path) -> Catalog:
    catalog, errors = Catalog.from_directory(root)
    for error in errors:
        print(error, file=sys.stderr)
    return catalog


def cmd_validate(args: argparse.Namespace) -> int:
    """Exit 0 when every file (numeric or code) under PATH (else --root) is valid with an id of its own, else
    print `file: field: message` lines and exit 1."""
    sources, errors = read_sources(Path(args.path) if args.path is not None else args.root)
    specs, problems = collect(sources, any_spec_from_text)  # one pass over both kinds: ids are unique across them
    errors += problems
    for error in errors:
        print(error)
    # Formulas are also tried as the save check tries them (at random seeds too, within its budgets).
    failures = [failure for spec in specs for failure in check_formula_draws(spec)]
    for failure in failures:
        print(failure)
    if not errors and not failures:
        print(f"{len(specs)} exercises valid")
    return 1 if errors or failures else 0


def cmd_list(args: argparse.Namespace) -> int:
    """List exercises with their parts."""
    rows = [
        {"id": s.id, "title": s.title, "lesson": s.lesson, "kind": s.kind,
         "parts": [{"id": p.id, "type": p.type} for p in s.parts]}
        for s in _load(args.root)
    ]  # fmt: skip
    if args.json:
        _print_json(rows)
    else:
        for row in rows:
            print(f"{row['lesson']:<16} {row['id']:<20} {row['title']}")
    return 0


def _variant_json(catalog: Catalog, exercise_id: str, seed: int) -> dict[str, Any]:
    variant = catalog.variant(exercise_id, seed)
    spec = catalog.get(exercise_id)
    return {
        "id": exercise_id, "seed": seed,
        "params": {n: _jsonable(variant.params[n]) for n in spec.params},
        "prompt": variant.prompt,
        "parts": [{"id": p.spec.id, "type": p.spec.type, "answer": p.answer_json()} for p in variant.parts],
        "hints": list(variant.hints_in("en")),
        "solution": list(variant.solution),
    }  # fmt: skip


def _jsonable(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def _known(catalog: Catalog, exercise_id: str) -> bool:
    if exercise_id not in catalog:
        print(f"unknown exercise {exercise_id!r}", file=sys.stderr)
        return False
    return True


def cmd_variant(args: argparse.Namespace) -> int:
    """Print one variant with its answers."""
    catalog = _load(args.root)
    if not _known(catalog, args.id):
        return 2
    data = _variant_json(catalog, args.id, args.seed)
    if args.json:
        _print_json(data)
    else:
        print(data["prompt"])
        for number, hint in enumerate(data["hints"], 1):
            print(f"Hint {number}: {hint}")
        for part in data["parts"]:
            print(f"{part['id']}: {part['answer']}")
        for number, step in enumerate(data["solution"], 1):
            print(f"Step {number}: {step}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Grade answers given as a JSON object {part: text}."""
    catalog = _load(args.root)
    if not _known(catalog, args.id):
        return 2
    try:
        answers = json.loads(args.answers)
    except json.JSONDecodeError as error:
        print(f"--answers is not valid JSON: {error}", file=sys.stderr)
        return 2
    if not isinstance(answers, dict):
        print("--answers must be a JSON object of part id to text", file=sys.stderr)
        return 2
    result = catalog.check(args.id, args.seed, answers).to_json()
    if args.json:
        _print_json(result)
    else:
        for part_id, part in result["parts"].items():
            print(f"{part_id}: {part['status']}: {part['message']}")
        print(f"score: {result['score']}")
    return 0


def cmd_selfcheck(args: argparse.Namespace) -> int:
    """Check every exercise (numeric and code) over many seeds; exit 1 on any failure."""
    from grader.codecheck.selfcheck import check_code_spec
    from grader.codecheck.spec import load_code_specs

    catalog, unread = Catalog.from_directory(args.root)
    code_specs, unread_code = load_code_specs(args.root)
    for error in [*unread, *unread_code]:  # a file that cannot be read is not checked: that fails too
        print(error, file=sys.stderr)
    specs = [s for s in catalog if not args.exercise or s.id == args.exercise]
    report = check_catalog(specs, args.seeds)
    for code_spec in code_specs:
        if not args.exercise or code_spec.id == args.exercise:
            report.merge(check_code_spec(code_spec, range(args.seeds)))
    for note in report.notes:
        print(f"note: {note}")
    for line in report.failures[:200]:
        print(line)
    print(report.summary())
    return 1 if report.failures or unread or unread_code else 0


def cmd_grade_code(args: argparse.Namespace) -> int:
    """Grade a Python file against a code exercise in the sandbox; exit 0 when grading completed."""
    from grader.code_grading import SourceRejected, grade_code, read_source
    from grader.codecheck.spec import load_code_specs
    from grader.sandbox import SandboxUnavailable, default_pool

    specs = {s.id: s for s in load_code_specs(args.root)[0]}
    if args.id not in specs:
        print(f"unknown code exercise {args.id!r}", file=sys.stderr)
        return 2
    try:
        source = read_source(Path(args.file).read_bytes())
        result = grade_code(specs[args.id], source, args.seed, default_pool())
    except (OSError, SourceRejected) as error:
        print(f"cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    except SandboxUnavailable as error:
        print(f"error: {error}", file=sys.stderr)
        return 3
    if args.json:
        _print_json(result.to_json())
    else:
        for case in result.cases:
            print(visible(f"{case.status:>7}  {case.name}  {case.message}"))  # learner text: grader/visible.py
            if case.printed:
                print(visible(textwrap.indent(case.printed.rstrip("\n"), "         | ")))
        print(visible(f"{result.status}: {result.message} (score {result.score})"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for all commands."""
    parser = argparse.ArgumentParser(prog="python -m grader", description=__doc__)
    parser.add_argument("--root", type=Path, default=DEFAULT_EXERCISES, help="exercises folder")
    sub = parser.add_subparsers(dest="command", required=True)
    exercises = sub.add_parser("exercises", help="validate or list exercise files")
    ex_sub = exercises.add_subparsers(dest="action", required=True)
    validate = ex_sub.add_parser("validate", help="validate exercise files")
    validate.add_argument("path", nargs="?", default=None, help="a file or folder (default: --root)")
    validate.set_defaults(run=cmd_validate)
    listing = ex_sub.add_parser("list", help="list exercises")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(run=cmd_list)
    variant = sub.add_parser("variant", help="show a variant and its answers")
    variant.add_argument("id")
    variant.add_argument("--seed", type=int, default=0)
    variant.add_argument("--json", action="store_true")
    variant.set_defaults(run=cmd_variant)
    check = sub.add_parser("check", help="grade answers for a variant")
    check.add_argument("id")
    check.add_argument("--seed", type=int, default=0)
    check.add_argument("--answers", required=True, help='JSON, e.g. {"mu": "-0,092"}')
    check.add_argument("--json", action="store_true")
    check.set_defaults(run=cmd_check)
    grade = sub.add_parser("grade-code", help="grade a Python file against a code exercise")
    grade.add_argument("id")
    grade.add_argument("file")
    grade.add_argument("--seed", type=int, default=1)
    grade.add_argument("--json", action="store_true")
    grade.set_defaults(run=cmd_grade_code)
    selfcheck = sub.add_parser("selfcheck", help="check every exercise over many seeds")
    selfcheck.add_argument("--seeds", type=int, default=200)
    selfcheck.add_argument("--exercise", default=None)
    selfcheck.set_defaults(run=cmd_selfcheck)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; returns the process exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except VariantError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
