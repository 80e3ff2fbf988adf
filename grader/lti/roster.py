"""Names and roles (NRPS): an instructor pulls the course's learners from the LMS into the gradebook.

Each active learner of the course gets the account a launch of theirs would get (linked to
(issuer, sub), never joined to another by email), so the gradebook lists them before their first visit.
A learner is a member with the Learner context role, by its full URI or its simple name (Moodle sends
"Learner"); how many members were left out, and why, goes to the log.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any

from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from grader.extensions import db
from grader.lti import accounts, platforms, roles
from grader.lti.keys import app_key
from grader.lti.models import LtiAccount, Platform

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SESSION_KEY = "lti_roster"  # the memberships URL of the course an instructor launched from
log = logging.getLogger("grader.lti")


def kept(url: str, platform_id: int) -> dict[str, Any]:
    """What to keep of an instructor's launch to pull its course's roster later (its checked memberships URL)."""
    return {"platform_id": platform_id, "url": url}


def pull(kept: dict[str, Any]) -> tuple[int, int]:
    """Fetch the course's members and make an account for each active learner without one; returns (new,
    learners). Raises LookupError when the platform was removed, and pylti1p3's or requests' errors."""
    platform = db.session.get(Platform, kept["platform_id"])
    if platform is None:
        raise LookupError("the platform was removed")
    connector = ServiceConnector(platforms.registration(platform, app_key()), platforms.TimedSession())
    members = NamesRolesProvisioningService(connector, {"context_memberships_url": kept["url"]}).get_members()
    learners, skipped = _learners([dict(m) for m in members])
    if skipped:
        log.info("NRPS roster from %s: %d of %d members skipped (%s)", platform.issuer, sum(skipped.values()),
                 len(members), ", ".join(f"{count} {why}" for why, count in sorted(skipped.items())))  # fmt: skip
    before = db.session.query(LtiAccount).filter(LtiAccount.issuer == platform.issuer).count()
    for member in learners:
        accounts.link(platform.issuer, str(member["user_id"]), str(member.get("name") or ""), member.get("email"),
                      role="learner", locale=None)  # fmt: skip
    after = db.session.query(LtiAccount).filter(LtiAccount.issuer == platform.issuer).count()
    return after - before, len(learners)


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
