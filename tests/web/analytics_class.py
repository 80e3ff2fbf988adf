"""A small class built by hand on block-gelu, whose figures are known, for the analytics tests.

ada: a hint, ReLU's answer twice, then right (solved in 3). bob: right at once (solved in 1).
cy: a wrong answer no misconception explains, then ReLU's, then gives up. dee: ReLU's answer three
times (stuck). The instructor's own tries must count nowhere.
"""

from __future__ import annotations

from flask import Flask

from grader.services import attempts, help
from tests.web.conftest import make_user, seat
from tests.web.test_teach_stats import on_page_numbers
from tests.web.test_extensions import user_id
from tests.web.test_learn import expected

EXERCISE = "block-gelu"
UNEXPLAINED = "123.456"


def typed(app: Flask, user: int, email: str, neg: str | None = None) -> None:
    """Answer block-gelu: right, or with `neg` typed for its negative entry (the positive one right)."""
    right = expected(app, EXERCISE, email)
    with app.app_context():
        answers = {"neg": neg if neg is not None else f"{right['neg']:.3f}", "pos": f"{right['pos']:.3f}"}
        assert attempts.submit(seat(user), EXERCISE, answers).outcome == "graded"


def build_class(app: Flask, teacher: str | None = None) -> dict[str, int]:
    """The class above (with the instructor of email `teacher` trying the exercise too); each learner's id by name."""
    ids = {name: make_user(app, f"{name}@example.com") for name in ("ada", "bob", "cy", "dee")}
    teacher_id = user_id(app, teacher) if teacher else None
    on_page_numbers(app, *ids.values(), *([teacher_id] if teacher_id else []))  # ReLU's answer is 0 on these numbers
    with app.app_context():
        assert help.take_hint(seat(ids["ada"]), EXERCISE, available=3)
    typed(app, ids["ada"], "ada@example.com", "0.000")
    typed(app, ids["ada"], "ada@example.com", "0")
    typed(app, ids["ada"], "ada@example.com")
    typed(app, ids["bob"], "bob@example.com")
    typed(app, ids["cy"], "cy@example.com", UNEXPLAINED)
    typed(app, ids["cy"], "cy@example.com", "0.000")
    with app.app_context():
        assert help.give_up(seat(ids["cy"]), EXERCISE)
    for zero in ("0.000", "0", "0.0"):
        typed(app, ids["dee"], "dee@example.com", zero)
    if teacher and teacher_id:
        typed(app, teacher_id, teacher, UNEXPLAINED)
        typed(app, teacher_id, teacher, "0.000")
    return ids
