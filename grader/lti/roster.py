"""Names and roles (NRPS): an instructor pulls the course's learners from the LMS into the gradebook.

Each active learner of the LMS course gets the account a launch of theirs would get (linked to
(issuer, sub), never joined to another by email) and becomes a learner of the course that LMS course
maps to (grader.lti.contexts), so the gradebook lists them before their first visit.
A learner is a member with the Learner context role, by its full URI or its simple name (Moodle sends
"Learner"); how many members were left out, and why, goes to the log.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from grader.course_models import LEARNER, Course
from grader.extensions import db
from grader.lti import accounts, platforms, roles
from grader.lti.keys import app_key
from grader.lti.models import LtiAccount, LtiContext, Platform

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
log = logging.getLogger("grader.lti")


@dataclass(frozen=True)
class Pulled:
    """What a roster pull did: learners listed, accounts made, and learners new to the course."""

    learners: int
    new_accounts: int
    joined: int


def pull(context: LtiContext) -> Pulled:
    """Fetch the members of the LMS course behind `context` and make each active learner a learner of the course
    it maps to (with the account a launch of theirs would get). Raises LookupError when the platform was
    removed, and pylti1p3's or requests' errors."""
    platform = db.session.get(Platform, context.platform_id)
    course = db.session.get(Course, context.course_id)
    if platform is None or course is None or not context.memberships_url:
        raise LookupError("the platform or the course was removed")
    connector = ServiceConnector(platforms.registration(platform, app_key()), platforms.TimedSession())
    service = NamesRolesProvisioningService(connector, {"context_memberships_url": context.memberships_url})
    members = service.get_members()
    learners, skipped = _learners([dict(m) for m in members])
    if skipped:
        log.info("NRPS roster from %s: %d of %d members skipped (%s)", platform.issuer, sum(skipped.values()),
                 len(members), ", ".join(f"{count} {why}" for why, count in sorted(skipped.items())))  # fmt: skip
    before = db.session.query(LtiAccount).filter(LtiAccount.issuer == platform.issuer).count()
    joined = 0
    for member in learners:
        account = accounts.link(platform.issuer, str(member["user_id"]), str(member.get("name") or ""),
                                member.get("email"), locale=None)  # fmt: skip
        joined += accounts.enrol(course, account.user_id, LEARNER)
    after = db.session.query(LtiAccount).filter(LtiAccount.issuer == platform.issuer).count()
    return Pulled(len(learners), after - before, joined)


def _learners(members: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], Counter[str]]:
    """The active learners among the members, and how many of the others were left out for each reason."""
    learners: list[dict[str, Any]] = []
    skipped: Counter[str] = Counter()
    for member in members:
        if not member.get("user_id"):
            skipped["without a user id"] += 1
        elif member.get("status", "Active") != "Active":
            skipped["not active"] += 1
        elif not roles.is_learner(member.get("roles")):
            skipped["not learners (teachers and others)"] += 1
        else:
            learners.append(member)
    return learners, skipped
