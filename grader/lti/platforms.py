"""The registry of LMS platforms, and the pylti1p3 tool configuration read from it.

A platform is one (issuer, client id) pair: the LMS's identity and the id it gave this tool.
Each has one or more deployment ids. The operator adds them with `flask --app wsgi lti platform add`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import requests
import sqlalchemy as sa
from pylti1p3.deployment import Deployment as LtiDeployment
from pylti1p3.exception import LtiServiceException
from pylti1p3.registration import Registration
from pylti1p3.tool_config import ToolConfAbstract

from grader.extensions import db
from grader.lti.keys import ToolKey
from grader.lti.models import Deployment, Platform


TIMEOUT_SECONDS = 10


class TimedSession(requests.Session):
    """requests with a timeout: a platform that never answers must not hold a worker or the sender."""

    def request(self, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
        kwargs.setdefault("timeout", TIMEOUT_SECONDS)
        return super().request(*args, **kwargs)


def failure(error: Exception) -> str:
    """One line on a failed call to a platform, for the log and the outbox: its HTTP status, host and the error
    it names; never its page (Moodle answers a bad token request with 13 lines of HTML) nor the whole URL."""
    if isinstance(error, LtiServiceException):
        response = error.response
        host = urlsplit(str(response.url or "")).hostname or "?"
        call = "score" if urlsplit(str(response.url or "")).path.endswith("/scores") else "token or service"
        return f"{call} request refused by {host}: HTTP {response.status_code}{_named_error(response)}"
    return type(error).__name__  # a connection error can quote URLs with tokens; its type is enough


def _named_error(response: requests.Response) -> str:
    """The error a JSON reply names (OAuth2's "error", or a "message"), cut short; nothing from other replies."""
    try:
        body = response.json()
    except ValueError:
        return ""
    named = body.get("error") or body.get("message") if isinstance(body, dict) else None
    text = " ".join(str(named).split())[:80] if named else ""
    return f" ({text})" if text else ""


class PlatformError(ValueError):
    """A registration the operator must correct; the message says what."""


@dataclass(frozen=True)
class NewPlatform:
    """What the operator gives to register a platform."""

    issuer: str
    client_id: str
    deployment_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str


def _check_url(name: str, url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PlatformError(f"{name} must be an http(s) URL, not {url!r}")


def add(new: NewPlatform) -> tuple[Platform, bool]:
    """Register a platform, or add a deployment to one registered already; returns it and whether anything
    was added. The endpoints of a known platform are updated to the ones given."""
    for name in ("auth_login_url", "auth_token_url", "key_set_url"):
        _check_url(name.replace("_", "-"), getattr(new, name))
    if not (new.issuer and new.client_id and new.deployment_id):
        raise PlatformError("issuer, client id and deployment id must not be empty")
    platform = find(new.issuer, new.client_id)
    if platform is None:
        platform = Platform(issuer=new.issuer, client_id=new.client_id)
        db.session.add(platform)
    platform.auth_login_url, platform.auth_token_url = new.auth_login_url, new.auth_token_url
    platform.key_set_url = new.key_set_url
    added = new.deployment_id not in {d.deployment_id for d in platform.deployments}
    if added:
        platform.deployments.append(Deployment(deployment_id=new.deployment_id))
    db.session.commit()
    return platform, added


def listing() -> list[Platform]:
    """Every registered platform, oldest first."""
    return list(db.session.scalars(sa.select(Platform).order_by(Platform.id)))


def remove(issuer: str, client_id: str | None = None) -> int:
    """Forget the platform(s) with this issuer (and client id, when given), their links and queued scores;
    returns how many were removed. Accounts made by launches stay (their work is theirs)."""
    query = sa.select(Platform).where(Platform.issuer == issuer)
    if client_id is not None:
        query = query.where(Platform.client_id == client_id)
    found = list(db.session.scalars(query))
    for platform in found:
        db.session.delete(platform)
    db.session.commit()
    return len(found)


def find(issuer: str, client_id: str | None = None) -> Platform | None:
    """The platform with this issuer and client id (the only one of the issuer when no client id is given)."""
    query = sa.select(Platform).where(Platform.issuer == issuer)
    if client_id is not None:
        query = query.where(Platform.client_id == client_id)
    found = list(db.session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


def known_issuer(issuer: str) -> bool:
    """Whether any platform with this issuer is registered."""
    return db.session.scalar(sa.select(Platform.id).where(Platform.issuer == issuer).limit(1)) is not None


def client_ids(issuer: str) -> set[str]:
    """The client ids registered for an issuer."""
    return set(db.session.scalars(sa.select(Platform.client_id).where(Platform.issuer == issuer)))


def origins_of(platform: Platform) -> list[str]:
    """The web origins of a platform (its issuer's and its login endpoint's), for frame-ancestors."""
    found: set[str] = set()
    for url in (platform.issuer, platform.auth_login_url):
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            found.add(f"{parts.scheme}://{parts.netloc}")
    return sorted(found)


def all_origins() -> list[str]:
    """The web origins of every registered platform."""
    return sorted({origin for platform in listing() for origin in origins_of(platform)})


def registration(platform: Platform, key: ToolKey, key_set: dict[str, Any] | None = None) -> Registration:
    """The pylti1p3 registration of a platform, carrying the tool's key pair (and the platform's key set, when
    it is at hand: pylti1p3 fetches it otherwise)."""
    found = (Registration().set_issuer(platform.issuer).set_client_id(platform.client_id)
            .set_auth_login_url(platform.auth_login_url).set_auth_token_url(platform.auth_token_url)
            .set_key_set_url(platform.key_set_url).set_tool_private_key(key.private_pem)
            .set_tool_public_key(key.public_pem))  # fmt: skip
    return found.set_key_set(cast(Any, key_set)) if key_set is not None else found


class ToolConf(ToolConfAbstract[Any]):
    """pylti1p3's view of the registry: every issuer may have several client ids."""

    def __init__(self, key: ToolKey, key_sets: dict[int, dict[str, Any]] | None = None) -> None:
        self.key = key
        self.key_sets = key_sets or {}  # platform id: its key set, fetched through grader.lti.key_sets
        self.issuers_relation_types = {}  # per instance: the base class keeps one dict for every instance

    def check_iss_has_one_client(self, iss: str) -> bool:
        """Never: registrations are looked up by issuer and client id."""
        return False

    def check_iss_has_many_clients(self, iss: str) -> bool:
        """Always (see check_iss_has_one_client)."""
        return True

    def find_registration_by_issuer(self, iss: str, *args: Any, **kwargs: Any) -> Registration:
        """The issuer's only registration."""
        platform = find(iss)
        return None if platform is None else registration(platform, self.key)  # type: ignore[return-value]

    def find_registration_by_params(self, iss: str, client_id: str | None, *args: Any,
                                    **kwargs: Any) -> Registration:  # fmt: skip
        """The registration for this issuer and client id (at login the client id may be missing)."""
        platform = find(iss, client_id or None)
        # pylti1p3 checks for None, though its annotation says a registration always comes back.
        if platform is None:
            return None  # type: ignore[return-value]
        return registration(platform, self.key, self.key_sets.get(platform.id))

    def find_deployment(self, iss: str, deployment_id: str) -> LtiDeployment | None:
        """A deployment of the issuer's only platform."""
        return self.find_deployment_by_params(iss, deployment_id, None)

    def find_deployment_by_params(self, iss: str, deployment_id: str, client_id: str | None, *args: Any,
                                  **kwargs: Any) -> LtiDeployment | None:  # fmt: skip
        """The deployment, when it is registered for this issuer (and client id)."""
        platform = find(iss, client_id)
        if platform is None or deployment_id not in {d.deployment_id for d in platform.deployments}:
            return None
        return LtiDeployment().set_deployment_id(deployment_id)

    def get_jwks(self, iss: str | None = None, client_id: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """The tool's public keys."""
        return self.key.jwks()
