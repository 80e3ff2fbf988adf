"""Lesson titles and their order on the dashboard; a lesson not listed here is titled from its slug."""

from __future__ import annotations

LESSONS: dict[str, str] = {
    "gpt2-block": "The GPT-2 block, by hand",
    "ffn-memory": "The FFN as key–value memory",
    "modern-block": "The modern block: RMSNorm, GQA, SwiGLU",
    "microgpt": "microGPT: one forward pass",
    "code": "Write it yourself",
}


def lesson_title(slug: str) -> str:
    """The lesson's title."""
    return LESSONS.get(slug, slug.replace("-", " ").capitalize())


def lesson_order(slug: str) -> tuple[int, str]:
    """Sort key: listed lessons first, in order, then the rest alphabetically."""
    order = list(LESSONS)
    return (order.index(slug), slug) if slug in order else (len(order), slug)
