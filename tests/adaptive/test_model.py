"""The per-skill fold: the learning curve per opportunity, one fsrs review per moment, and a replay that gives what the live updates gave."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from fsrs import Rating

from grader.adaptive import bkt, curve
from grader.adaptive.model import GIVE_UP, HINT, PRACTICE, Observation, fresh, history_of, moments, rating, replay, step

T0 = datetime(2026, 3, 2, 9, 0)


def test_one_wrong_answer_in_a_moment_is_again_all_right_is_good_and_mastered_is_easy() -> None:
    right, wrong = Observation("gelu", True, T0), Observation("gelu", False, T0, mistake="relu")
    assert rating([right, wrong], 0.5) == Rating.Again
    assert rating([right, right], 0.5) == Rating.Good
    assert rating([right], 0.96) == Rating.Easy
    assert rating([Observation("gelu", None, T0, HINT)], 0.5) == Rating.Hard
    assert rating([Observation("gelu", False, T0, GIVE_UP)], 0.9) == Rating.Again


def test_a_step_reads_p_known_from_every_opportunity_and_schedules_the_next_review() -> None:
    state = fresh("gelu", bkt.DEFAULT)
    after = step(state, [Observation("gelu", True, T0), Observation("gelu", True, T0)], bkt.DEFAULT, [[False]])
    assert after.p_known == pytest.approx(curve.p_known([[False], [True, True]], bkt.DEFAULT))
    assert after.evidence == 2 and after.card is not None
    assert after.due_at is not None and after.due_at > T0 and not after.due(T0) and after.due(T0 + timedelta(days=400))
    hinted = step(after, [Observation("gelu", None, T0 + timedelta(hours=1), HINT)], bkt.DEFAULT, [[False], [True, True]])
    assert hinted.p_known == after.p_known and hinted.evidence == 2  # a hint is no answer


def test_a_skill_never_seen_is_due_and_not_mastered() -> None:
    state = fresh("swiglu", bkt.DEFAULT)
    assert state.due(T0) and not state.mastered and state.p_known == bkt.DEFAULT.prior


def test_a_replay_of_the_stored_moments_gives_the_state_the_live_updates_gave() -> None:
    seen = [Observation("gelu", False, T0, mistake="relu"), Observation("gelu", True, T0),
            Observation("gelu", None, T0 + timedelta(minutes=5), HINT),
            Observation("gelu", True, T0 + timedelta(days=1), PRACTICE),
            Observation("rmsnorm", True, T0 + timedelta(days=1)), Observation("gelu", True, T0 + timedelta(days=3))]
    live = fresh("gelu", bkt.DEFAULT)
    for moment in moments(o for o in seen if o.skill == "gelu"):
        live = step(live, moment, bkt.DEFAULT, history_of("gelu", [o for o in seen if o.at < moment[0].at]))
    assert replay("gelu", seen, bkt.DEFAULT) == live
    assert history_of("gelu", seen) == [[False, True], [True], [True]]  # the hint is no opportunity
    assert len(moments(o for o in seen if o.skill == "gelu")) == 4
