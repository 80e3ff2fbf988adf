"""The Scenario record shared by every scenario."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

Params = Mapping[str, Any]
Quantities = dict[str, Any]


def always_well_posed(params: Params) -> str | None:
    """A scenario with no extra conditions on its parameters."""
    return None


@dataclass(frozen=True)
class Scenario:
    """A reference computation with named quantities, hand paths and mistakes.

    `compute(params, mistake, hand)` returns the quantities; `mistake` is None for the correct
    answer and `hand` is one of `hand_paths` or None for full precision. `well_posed` returns a
    reason when parameters would make a poor exercise (a near-tie, sigma near 0, ...). `suits_story`
    returns a reason when drawn parameters would suit one exercise but not every other exercise of the
    lesson that draws them too (they share a learner's draw; see draws.story_key); the page's own
    example is exempt, being the lesson's.
    `shown_route` picks the route whose numbers prompts and worked solutions print (0 = full
    precision; a hand route when the lesson works by hand, so that each printed step adds up).
    `retrace(params, fixed, base)` runs the correct route again with the intermediates named in `fixed` at
    those values (`base` is the full-precision route, which it may reuse for what `fixed` cannot change), and `constants(params)` runs it with the prompt's rounded constants (0.798 for
    sqrt(2/pi)): grader.catalog.reach works out from them what a learner following the printed numbers
    reaches. A scenario without intermediates a learner carries on needs neither. `carried` names the
    intermediates a learner of the lesson writes down to 3 decimals even where a solution does not print
    them (the toy block's mean, sigma, u' and GELU values): they count as printed.
    """

    name: str
    params: tuple[str, ...]
    quantities: tuple[str, ...]
    mistakes: tuple[str, ...]
    compute: Callable[[Params, str | None, Any], Quantities]
    optional: tuple[str, ...] = ()
    hand_paths: tuple[Any, ...] = ()
    well_posed: Callable[[Params], str | None] = field(default=always_well_posed)
    suits_story: Callable[[Params], str | None] = field(default=always_well_posed)
    shown_route: int = 0
    retrace: Callable[[Params, Mapping[str, Any], Quantities], Quantities] | None = None
    constants: Callable[[Params], Quantities] | None = None
    carried: tuple[str, ...] = ()
    # The route with each skipped step (grader.catalog.skipped) by its name; None: no steps to skip.
    skips: Callable[[Params], Mapping[str, Quantities]] | None = None

    def routes(self, params: Params, mistake: str | None = None) -> list[Quantities]:
        """Quantities at full precision first, then along each hand path."""
        return [self.compute(params, mistake, hand) for hand in (None, *self.hand_paths)]
