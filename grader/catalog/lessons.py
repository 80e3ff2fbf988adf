"""Lesson titles and their order on the dashboard; a lesson not listed here is titled from its slug."""

from __future__ import annotations

from grader.texts import N_

LESSONS: dict[str, str] = {
    "gpt2-block": N_("The GPT-2 block, by hand"),
    "ffn-memory": N_("The FFN as key–value memory"),
    "modern-block": N_("The modern block: RMSNorm, GQA, SwiGLU"),
    "microgpt": N_("microGPT: one forward pass"),
    "code": N_("Write it yourself"),
}


def lesson_title(slug: str) -> str:
    """The lesson's title."""
    return LESSONS.get(slug, slug.replace("-", " ").capitalize())


def lesson_order(slug: str) -> tuple[int, str]:
    """Sort key: listed lessons first, in order, then the rest alphabetically."""
    order = list(LESSONS)
    return (order.index(slug), slug) if slug in order else (len(order), slug)


def exercise_order(lesson: str, position: int, exercise_id: str) -> tuple[tuple[int, str], int, str]:
    """Sort key of an exercise in every listing: its lesson's place, then its place in the lesson."""
    return lesson_order(lesson), position, exercise_id
