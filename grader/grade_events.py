"""Grade changes and who hears of them: one registry, called inside the transaction that makes the change.

A service that changes a learner's standing on an exercise as the gradebook shows it (an attempt, a
graded submission, a score set or removed by hand, a regrade, an extension) calls `changed` before
it commits. Listeners write what follows from it in that same transaction (the LTI outbox queues the
new score for the LMS), so the change and its consequences commit, or roll back, together. Listeners
register once when the app starts; the services that call `changed` know none of them.
"""

from __future__ import annotations

from typing import Callable

GradeListener = Callable[[int, int, str], None]  # (course id, user id, exercise id), in the caller's transaction
_listeners: list[GradeListener] = []


def listen(listener: GradeListener) -> None:
    """Hear of every grade change from now on (registering the same listener again changes nothing)."""
    if listener not in _listeners:
        _listeners.append(listener)


def changed(course_id: int, user_id: int, exercise_id: str) -> None:
    """Tell every listener that this learner's grade on this exercise in this course may have changed; call
    before commit."""
    for listener in tuple(_listeners):
        listener(course_id, user_id, exercise_id)
