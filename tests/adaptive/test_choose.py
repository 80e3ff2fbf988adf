"""The choice of the skill and exercise to practise next (pure): what the benchmark's learners showed."""

from __future__ import annotations

from datetime import datetime, timedelta

from grader.adaptive.choose import Mistake, Offered, choose
from grader.adaptive.model import SkillState

NOW = datetime(2026, 12, 6, 10, 0)
LATER = NOW + timedelta(days=3)
OFFERED = [Offered("ln", "gpt2", ("layernorm-stats",)), Offered("gelu", "gpt2", ("gelu",)),
           Offered("mlp", "gpt2", ("gelu", "residual-stream")), Offered("res", "gpt2", ("residual-stream",))]


def state(skill: str, p: float, evidence: int = 3, due_at: datetime | None = LATER) -> SkillState:
    return SkillState(skill, p, evidence, None, due_at)


def test_a_skill_not_mastered_is_practised_though_fsrs_has_not_made_it_due() -> None:
    states = {"layernorm-stats": state("layernorm-stats", 0.6), "gelu": state("gelu", 0.97, due_at=NOW),
              "residual-stream": state("residual-stream", 0.98)}  # fmt: skip
    chosen = choose(OFFERED, states, [], NOW)  # before a mastered skill's review
    assert chosen is not None and (chosen.skill, chosen.why) == ("layernorm-stats", "weakest")


def test_a_recent_mistake_comes_before_a_skill_never_tried() -> None:
    states = {"layernorm-stats": state("layernorm-stats", 0.22), "gelu": state("gelu", 0.2, evidence=0)}
    made = [Mistake("layernorm-stats", "sample-variance", "ln", "sigma", 1, NOW)]
    chosen = choose(OFFERED, states, made, NOW)
    assert chosen is not None and (chosen.skill, chosen.why, chosen.exercise_id) == ("layernorm-stats", "mistake", "ln")
    assert choose(OFFERED, states, [], NOW).skill == "gelu"  # type: ignore[union-attr] - without it, the weaker


def test_with_everything_mastered_and_nothing_due_the_least_practised_skill_comes_next() -> None:
    states = {"layernorm-stats": state("layernorm-stats", 0.99, 9), "gelu": state("gelu", 0.999, 4),
              "residual-stream": state("residual-stream", 0.96, 7)}  # fmt: skip
    chosen = choose(OFFERED, states, [], NOW)
    assert chosen is not None and (chosen.skill, chosen.why) == ("gelu", "review")


def test_the_exercise_also_practises_the_most_skills_not_mastered() -> None:
    states = {"layernorm-stats": state("layernorm-stats", 0.99), "gelu": state("gelu", 0.3),
              "residual-stream": state("residual-stream", 0.5)}  # fmt: skip
    chosen = choose(OFFERED, states, [], NOW)
    assert chosen is not None and (chosen.skill, chosen.exercise_id) == ("gelu", "mlp")
