"""Deep linking: the course's content an instructor picks from in the LMS, and the signed response carrying the pick.

The pick becomes an LTI resource link back to /lti/launch whose custom parameter names the
exercise or lesson, with a line item out of outbox.MAX_POINTS so the LMS makes a grade column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from grader.catalog.lessons import exercise_order, lesson_title
from grader.extensions import db
from grader.lti import platforms
from grader.lti.keys import app_key
from grader.lti.models import Platform
from grader.lti.outbox import MAX_POINTS
from grader.models import PUBLISHED, Exercise
from grader.services import course_content

DATA_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
SESSION_KEY = "lti_deep_link"  # what the deep-linking request asked, kept until the instructor picks


@dataclass(frozen=True)
class Choice:
    """One item of the catalogue: a lesson or an exercise, as `target` ("lesson:<slug>" or "exercise:<id>")."""

    target: str
    title: str
    lesson: str


def catalogue(course_id: int, locale: str) -> list[tuple[Choice, list[Choice]]]:
    """Every lesson of the course with the published exercises it uses, in the dashboard's order (a draft is in
    nobody's lessons, and a lesson with none published is left out)."""
    found = db.session.scalars(sa.select(Exercise).where(
        Exercise.status == PUBLISHED, course_content.offered(Exercise.__table__, sa.literal(course_id))))
    rows = sorted(found, key=lambda e: exercise_order(e.lesson, e.position, e.id))
    lessons: dict[str, tuple[Choice, list[Choice]]] = {}
    for exercise in rows:
        entry = lessons.setdefault(exercise.lesson, (Choice(f"lesson:{exercise.lesson}",
                                                            str(lesson_title(exercise.lesson)), exercise.lesson), []))
        entry[1].append(Choice(f"exercise:{exercise.id}", exercise.title_in(locale), exercise.lesson))
    return list(lessons.values())


def find_choice(course_id: int, target: str, locale: str) -> Choice | None:
    """The item of the course's catalogue named by `target`, if it has it."""
    for lesson, exercises in catalogue(course_id, locale):
        for choice in (lesson, *exercises):
            if choice.target == target:
                return choice
    return None


def request_settings(claims: dict[str, Any], platform_id: int, course_code: str) -> dict[str, Any]:
    """What to keep of a deep-linking request (small: it goes in the session cookie), with the course its LMS
    course maps to: the pick comes from that course, whichever course the instructor works in meanwhile."""
    settings = claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"]
    return {"platform_id": platform_id, "course": course_code,
            "deployment_id": claims["https://purl.imsglobal.org/spec/lti/claim/deployment_id"],
            "return_url": settings["deep_link_return_url"], "data": settings.get("data")}  # fmt: skip


def response_jwt(kept: dict[str, Any], choice: Choice, launch_url: str) -> str:
    """The signed LtiDeepLinkingResponse carrying one resource link (with a line item) for `choice`."""
    platform = db.session.get(Platform, kept["platform_id"])
    if platform is None:
        raise LookupError("the platform was removed meanwhile")
    kind, _, name = choice.target.partition(":")
    line_item = LineItem().set_score_maximum(MAX_POINTS).set_label(choice.title).set_resource_id(choice.target)
    resource = (DeepLinkResource().set_url(launch_url).set_title(choice.title)
                .set_custom_params({kind: name}).set_lineitem(line_item))  # fmt: skip
    settings: Any = {"deep_link_return_url": kept["return_url"], "data": kept.get("data")}
    link = DeepLink(platforms.registration(platform, app_key()), kept["deployment_id"], settings)
    message = link.get_message_jwt([resource])
    if kept.get("data") is None:  # the claim echoes the request's; a null one is refused by strict platforms
        message.pop(DATA_CLAIM, None)
    return str(link.encode_jwt(message))
