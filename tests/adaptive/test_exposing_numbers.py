"""Numbers that expose a mistake: of the candidate seeds, the one where the mistake's answer lies furthest outside
the part's accepted band."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from grader.adaptive.choose import Mistake
from grader.catalog.loader import spec_from_text
from grader.catalog.variants import make_variant
from grader.services.recommend import _gap, exposing_seed

LAYERNORM = Path(__file__).resolve().parents[2] / "exercises" / "gpt2-block" / "block-layernorm.yaml"


def test_the_chosen_seed_puts_the_mistake_furthest_outside_the_band() -> None:
    spec, _ = spec_from_text(LAYERNORM.read_text(encoding="utf-8"), "x")
    assert spec is not None
    made = Mistake("layernorm-stats", "sample-variance", spec.id, "sigma", 2, datetime(2026, 3, 2))
    seeds = list(range(101, 109))

    def gap(seed: int) -> float:
        part = make_variant(spec, seed).part("sigma")
        found = next(m for m in part.target.mutants if m.name == "sample-variance")
        return _gap(part.target.exact, found.routes[0], part.tolerance)

    gaps = {seed: gap(seed) for seed in seeds}
    assert exposing_seed(spec, made, seeds) == max(seeds, key=gaps.__getitem__)
    assert len(set(round(g, 6) for g in gaps.values())) > 1  # in band widths the draws differ (relatively they do not)


def test_a_gap_is_in_band_widths_where_there_is_a_band_else_relative() -> None:
    from grader.answers.tolerance import Tolerance

    assert abs(_gap(1.0, 1.01, Tolerance("abs", 0.0005)) - 20) < 1e-9
    assert abs(_gap([3.0, 4.0], [3.0, 4.5]) - 0.1) < 1e-12
    assert _gap({1, 2}, {2, 3}) == 1.0 and _gap({1, 2}, {1, 2}) == 0.0 and _gap((2, 3), (2, 3)) == 0.0  # sets, shapes
