"""Regrading: an exercise fixed after learners used it, its attempts graded again against the fix."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from grader.extensions import db
from grader.models import Attempt, Progress
from grader.services.courses import Seat
from grader.services import attempts, audit
from grader.services import regrade as regrading
from grader.services.exercises import save_source
from grader.services.regrade import regrade
from grader.wrong_parts import WrongPart
from tests.web.conftest import csrf_from, empty_database, make_user, seat, seat_key
from tests.web.test_app import flask_cli
from tests.web.test_concurrency import PER_THREAD, THREADS, in_parallel
from tests.web.test_due_dates import PAST
from tests.web.test_learn import EXERCISES, expected

TIGHT, LOOSE, STRICTER = "{abs: 0.0005}", "{abs: 0.005}", "{abs: 0.00005}"


def save(app: Flask, tolerance: str, extra: str = "") -> None:
    """block-residual as `quiz`, with its tolerance (and policy lines) changed: a new version each time."""
    source = (EXERCISES / "gpt2-block" / "block-residual.yaml").read_text(encoding="utf-8")
    source = source.replace("id: block-residual", "id: quiz").replace("tolerance: {abs: 0.0005}", f"tolerance: {tolerance}")
    with app.app_context():
        save_source(source + extra, None, "web")


def off_by(app: Flask, email: str, delta: float) -> str:
    """The learner's h with every entry moved by delta, to 3 decimals."""
    right = np.array(expected(app, "quiz", email)["h"], dtype=float)
    return "[" + "; ".join(f"{v:.3f}" for v in right + delta) + "]"


def submit(app: Flask, learner_id: int, typed: str) -> attempts.Submitted:
    with app.app_context():
        return attempts.submit(seat(learner_id), "quiz", {"h": typed})


def rows(app: Flask, learner_id: int) -> list[tuple[int, int, float, float]]:
    with app.app_context():
        found = db.session.execute(sa.select(Attempt.number, Attempt.version, Attempt.raw_score, Attempt.score)
                                   .where(Attempt.user_id == learner_id).order_by(Attempt.id))  # fmt: skip
        return [tuple(r) for r in found]  # type: ignore[misc]


def standing(app: Flask, learner_id: int) -> tuple[float, bool]:
    with app.app_context():
        progress = db.session.get(Progress, (*seat_key(learner_id), "quiz"))
        assert progress is not None
        return progress.best_score, progress.solved_at is not None


def test_a_loosened_tolerance_turns_near_misses_right_with_the_penalty(app: Flask) -> None:
    save(app, TIGHT, "penalty: 0.25\n")
    ada = make_user(app, "ada@example.com")
    first, second = submit(app, ada, off_by(app, "ada@example.com", 0.004)), submit(app, ada, off_by(app, "ada@example.com", 0.003))
    assert first.result.score == 0.0 and second.result.score == 0.0 and standing(app, ada) == (0.0, False)
    assert wrong_parts(app) == [(first.attempt.id, "h"), (second.attempt.id, "h")]  # type: ignore[union-attr]
    save(app, LOOSE, "penalty: 0.25\n")
    with app.app_context():
        done = regrade("quiz")
    assert (done.version, done.attempts, done.changed, done.kept, done.learners) == (2, 2, 2, [], {ada})
    assert rows(app, ada) == [(1, 2, 1.0, 1.0), (2, 2, 1.0, 0.75)]
    assert standing(app, ada) == (1.0, True)
    with app.app_context():
        stored = db.session.scalars(sa.select(Attempt).where(Attempt.user_id == ada)).first()
        assert stored is not None and stored.results["h"]["status"] == "correct"
    assert wrong_parts(app) == []  # right now: the class figures no longer count them as wrong


def wrong_parts(app: Flask) -> list[tuple[int, str]]:
    """The stored wrong parts the class figures count, (attempt id, part)."""
    with app.app_context():
        return [tuple(r) for r in db.session.execute(sa.select(WrongPart.attempt_id, WrongPart.part))]  # type: ignore[misc]


def test_an_attempt_the_fix_cannot_read_keeps_its_verdict(app: Flask) -> None:
    save(app, LOOSE)
    ada = make_user(app, "ada@example.com")
    right = np.array(expected(app, "quiz", "ada@example.com")["h"], dtype=float)
    submit(app, ada, "[" + "; ".join(f"{v:.2f}" for v in right) + "]")  # right under LOOSE, 2 decimals typed
    # STRICTER asks for 4 decimals, and h (3 decimals) cannot be written with 2 unless each entry ends in 0:
    # the typed answer is now unreadable (a chance of 1 in 10,000 that the drawn h is that round).
    save(app, STRICTER)
    with app.app_context():
        done = regrade("quiz")
    assert done.changed == 0 and len(done.kept) == 1
    assert rows(app, ada) == [(1, 1, 1.0, 1.0)] and standing(app, ada) == (1.0, True)


def test_answers_already_sent_to_the_current_version_are_not_counted_twice(app: Flask) -> None:
    save(app, TIGHT)
    ada = make_user(app, "ada@example.com")
    typed = off_by(app, "ada@example.com", 0.004)
    submit(app, ada, typed)
    save(app, LOOSE)
    assert submit(app, ada, typed).outcome == "graded"  # the same answers, but to version 2
    with app.app_context():
        done = regrade("quiz")
    assert len(done.kept) == 1 and rows(app, ada) == [(1, 1, 0.0, 0.0), (2, 2, 1.0, 1.0)]


def test_a_regrade_can_lower_scores_and_applies_the_due_date(app: Flask) -> None:
    save(app, LOOSE)
    ada = make_user(app, "ada@example.com")
    submit(app, ada, off_by(app, "ada@example.com", 0.004))
    save(app, TIGHT, f"due: {PAST}\nlate_credit: 0.5\n")  # the fix is stricter, and the attempt was late
    with app.app_context():
        regrade("quiz")
    assert rows(app, ada) == [(1, 2, 0.0, 0.0)] and standing(app, ada) == (0.0, False)
    assert [part for _, part in wrong_parts(app)] == ["h"]  # wrong under the stricter fix: counted now
    right = "[" + "; ".join(f"{v:.3f}" for v in expected(app, "quiz")["h"]) + "]"  # type: ignore[union-attr]
    submit(app, ada, right)
    with app.app_context():
        regrade("quiz")
        late = db.session.scalars(sa.select(Attempt.late).where(Attempt.user_id == ada)).all()
    assert late == [True, True] and standing(app, ada) == (0.5, True)



def test_a_regrade_under_a_due_date_with_no_late_credit_leaves_late_right_answers_unsolved(app: Flask) -> None:
    save(app, TIGHT)
    ada = make_user(app, "ada@example.com")
    submit(app, ada, off_by(app, "ada@example.com", 0.0))
    assert standing(app, ada) == (1.0, True)
    save(app, TIGHT, f"due: {PAST}\n")  # the attempt came after this date, which leaves nothing to earn
    with app.app_context():
        regrade("quiz")
    assert rows(app, ada) == [(1, 2, 1.0, 0.0)] and standing(app, ada) == (0.0, False)


def test_instructors_regrade_from_the_exercise_page(app: Flask, instructor: FlaskClient) -> None:
    save(app, TIGHT)
    ada = make_user(app, "ada@example.com")
    submit(app, ada, off_by(app, "ada@example.com", 0.004))
    save(app, LOOSE)
    page = instructor.get("/teach/exercises/quiz").get_data(as_text=True)
    assert "Regrade every attempt" in page
    answer = instructor.post("/teach/exercises/quiz/regrade", data={"csrf_token": csrf_from(page)})
    assert answer.status_code == 303
    shown = instructor.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Regraded 1 attempt against version 2. Scores changed: 1. Kept as they were: 0." in shown
    assert standing(app, ada) == (1.0, True)
    assert instructor.post("/teach/exercises/quiz/regrade").status_code == 400  # no CSRF token
    token = csrf_from(page)
    assert instructor.post("/teach/exercises/code-gelu/regrade", data={"csrf_token": token}).status_code == 409
    assert "Regrade every attempt" not in instructor.get("/teach/exercises/code-gelu").get_data(as_text=True)


def test_the_command_line_regrades_too(tmp_path: Path) -> None:
    with empty_database(tmp_path) as url:
        env = {**os.environ, "GRADER_DATABASE_URL": url, "GRADER_SECRET_KEY": "x" * 32}
        assert flask_cli("db", "upgrade", env=env).returncode == 0
        assert flask_cli("exercises", "sync", env=env).returncode == 0
        done = flask_cli("exercises", "regrade", "block-gelu", env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "regraded 0 of 0 attempts by 0 learners against version 1: 0 scores changed, 0 kept"
        missing = flask_cli("exercises", "regrade", "code-gelu", env=env)
        assert missing.returncode != 0 and "no numeric exercise code-gelu" in missing.stderr


def test_attempts_sent_during_a_regrade_are_all_kept_and_counted(app: Flask) -> None:
    save(app, TIGHT)
    learners = [make_user(app, f"l{i}@example.com") for i in range(4)]
    targets = {u: np.array(expected(app, "quiz", f"l{i}@example.com")["h"], dtype=float) for i, u in enumerate(learners)}

    def near_miss(user: int, k: int) -> str:  # distinct per k, within 0.004 of the answer
        shifted = targets[user] + np.array([(k % 9 - 4) / 1000, (k // 9 % 9 - 4) / 1000, 0.002, -0.002])
        return "[" + "; ".join(f"{v:.3f}" for v in shifted) + "]"

    for k, user in enumerate(learners):
        submit(app, user, near_miss(user, 72 + k))  # one wrong attempt each before the fix, unlike any below
    save(app, LOOSE)

    def work(thread: int, i: int) -> None:
        if thread == 0:
            regrade("quiz")
        else:
            user = learners[(thread - 1) % len(learners)]
            attempts.submit(seat(user), "quiz", {"h": near_miss(user, thread * 6 + i)})

    in_parallel(app, work)
    with app.app_context():
        regrade("quiz")
        for user in learners:
            mine = db.session.scalars(sa.select(Attempt).where(Attempt.user_id == user)).all()
            progress = db.session.get(Progress, (*seat_key(user), "quiz"))
            assert sorted(a.number for a in mine) == list(range(1, len(mine) + 1))
            assert {(a.version, a.raw_score) for a in mine} == {(2, 1.0)}
            assert progress is not None and (progress.attempts_used, progress.best_score) == (len(mine), 1.0)
        total = db.session.scalar(sa.select(sa.func.count()).select_from(Attempt))
    assert total == len(learners) + (THREADS - 1) * PER_THREAD


def regrade_events(app: Flask) -> list[dict[str, object]]:
    """The details of each regrade on the audit trail, oldest first."""
    with app.app_context():
        return [e.detail for e in reversed(audit.latest(action="regrade"))]


def test_an_interrupted_regrade_has_an_event_for_what_it_committed(app: Flask, instructor: FlaskClient,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    save(app, TIGHT)
    ada, bob = make_user(app, "ada@example.com"), make_user(app, "bob@example.com")
    submit(app, ada, off_by(app, "ada@example.com", 0.004))
    submit(app, bob, off_by(app, "bob@example.com", 0.004))
    save(app, LOOSE)
    one_learner = regrading._regrade_learner

    def lost_on_bob(seat: Seat, *rest: object) -> None:
        if seat.user_id == bob:
            raise RuntimeError("the process was stopped")
        one_learner(seat, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(regrading, "_regrade_learner", lost_on_bob)
    with app.app_context(), pytest.raises(RuntimeError):
        regrade("quiz")
    assert standing(app, ada) == (1.0, True) and standing(app, bob) == (0.0, False)  # ada's new score is committed
    assert regrade_events(app) == [{"version": 2, "attempts": 1, "changed": 1, "kept": 0, "left": 1, "by": "operator"}]
    shown = instructor.get("/teach/audit?action=regrade").get_data(as_text=True)
    assert '<span class="muted">learners still to regrade</span> 1' in shown
    monkeypatch.undo()
    with app.app_context():
        regrade("quiz")  # run again, to the end
    assert standing(app, bob) == (1.0, True)
    assert regrade_events(app)[1] == {"version": 2, "attempts": 2, "changed": 1, "kept": 0, "by": "operator"}
