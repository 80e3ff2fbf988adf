"""The skills exercises practise: each part of an exercise (and each named mistake) belongs to some of them.

The learner model (grader.adaptive) keeps one state per learner, course and skill; exercise files name skills by
these ids (`skills:` on the exercise, a part or a mistake), and a name not listed here is refused.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator

from grader.texts import N_, Refusal

# id -> title (translated where shown). The order is the course's: the block from its first station to its cost.
SKILLS: dict[str, str] = {
    "layernorm-stats": N_("LayerNorm statistics"),
    "gelu": N_("GELU"),
    "residual-stream": N_("The residual stream"),
    "attention-scores": N_("Attention scores and scaling"),
    "softmax-causal-mask": N_("Softmax and the causal mask"),
    "rmsnorm": N_("RMSNorm"),
    "swiglu": N_("SwiGLU"),
    "gqa-kv-cache": N_("GQA and the KV cache"),
    "parameter-counting": N_("Counting parameters"),
    "ffn-memory": N_("The FFN as key–value memory"),
    "microgpt-stations": N_("microGPT's stations"),
    "cost-per-token": N_("Cost per token"),
}


# Named mistakes that belong to one skill wherever they are made (a ReLU for the GELU inside the block's output is
# a GELU mistake, not a residual one): a mistake counts against its own `skills:` in the file, else these, else
# its part's skills.
_BY_SKILL = {
    "layernorm-stats": ("sample-variance", "no-centering", "variance-not-sigma"),
    "gelu": ("relu", "erf-gelu", "gelu-no-half"),
    "residual-stream": ("no-residual-attention", "no-residual-mlp", "no-residual", "residual-from-x",
                        "subtracted-residual"),
    "attention-scores": ("scale-dh", "no-scaling"),
    "softmax-causal-mask": ("no-causal-mask", "softmax-over-columns"),
    "gqa-kv-cache": ("full-kv-heads", "kv-not-repeated"),
    "swiglu": ("ffn-4d", "swiglu-floor", "swiglu-ceil", "swiglu-unrounded"),
    "rmsnorm": ("layernorm-for-rmsnorm",),
}
MISTAKE_SKILLS: dict[str, tuple[str, ...]] = {name: (skill,) for skill, names in _BY_SKILL.items() for name in names}


def _known_skill(name: str) -> str:
    if name not in SKILLS:
        raise Refusal("unknown skill %(skill)s: skills are %(known)s", skill=repr(name), known=", ".join(SKILLS))
    return name


SkillId = Annotated[str, AfterValidator(_known_skill)]


def skill_title(skill: str) -> str:
    """The skill's English title (a msgid); the id itself for a skill no longer listed."""
    return SKILLS.get(skill, skill)


def skill_order(skill: str) -> tuple[int, str]:
    """Sort key: listed skills in the course's order, then the rest alphabetically."""
    order = list(SKILLS)
    return (order.index(skill), skill) if skill in order else (len(order), skill)


def distinct(skills: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The skills once each, in the order given."""
    return tuple(dict.fromkeys(skills))
