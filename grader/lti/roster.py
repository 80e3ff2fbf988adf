"""Names and roles (NRPS): an instructor pulls the course's learners from the LMS into the gradebook.

Each active learner of the course gets the account a launch of theirs would get (linked to
(issuer, sub), never joined to another by email), so the gradebook lists them before their first visit.
"""

from __future__ import annotations

from typing import Any

from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import ServiceConnector

from grader.extensions import db
from grader.lti import accounts, platforms
from grader.lti.keys import app_key
from grader.lti.models import LtiAccount, Platform

NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
SESSION_KEY = "lti_roster"  # the memberships URL of the course an instructor launched from
LEARNER_ROLE = "#Learner"


def offered(claims: dict[str, Any], platform_id: int) -> dict[str, Any] | None:
    """What to keep of an instructor's launch to pull its course's roster later, if the platform offers it."""
    url = (claims.get(NRPS_CLAIM) or {}).get("context_memberships_url")
    return {"platform_id": platform_id, "url": url} if isinstance(url, str) and url else None


def pull(kept: dict[str, Any]) -> tuple[int, int]:
    """Fetch the course's members and make an account for each active learner without one; returns (new,
    learners). Raises LookupError when the platform was removed, and pylti1p3's or requests' errors."""
    platform = db.session.get(Platform, kept["platform_id"])
    if platform is None:
        raise LookupError("the platform was removed")
    connector = ServiceConnector(platforms.registration(platform, app_key()), platforms.TimedSession())
    members = NamesRolesProvisioningService(connector, {"context_memberships_url": kept["url"]}).get_members()
    learners = [m for m in members if m.get("status", "Active") == "Active" and m.get("user_id")
                and any(str(role).endswith(LEARNER_ROLE) for role in m.get("roles", []))]  # fmt: skip
    before = db.session.query(LtiAccount).filter(LtiAccount.issuer == platform.issuer).count()
    for member in learners:
        accounts.link(platform.issuer, str(member["user_id"]), str(member.get("name") or ""), member.get("email"),
                      instructor=False, locale=None)  # fmt: skip
    after = db.session.query(LtiAccount).filter(LtiAccount.issuer == platform.issuer).count()
    return after - before, len(learners)
