"""OIDC login initiation and the signed launch, checked by pylti1p3 and named when refused.

Each refusal says which check failed (expired, replayed, wrongly signed, wrong audience, unknown
issuer or deployment, missing claims), creates nothing, and is logged for the operator.
"""

from __future__ import annotations

import base64
import json
import logging
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal, cast
from urllib.parse import urlsplit

import jwt
import requests
import sqlalchemy as sa
from flask import Response
from pylti1p3.contrib.flask import FlaskMessageLaunch, FlaskOIDCLogin, FlaskRequest
from pylti1p3.exception import LtiException, OIDCException

from grader.extensions import db
from grader.lti import key_sets, login_state, platforms
from grader.lti.keys import app_key
from grader.lti.models import UsedNonce
from grader.models import utcnow

log = logging.getLogger("grader.lti")
Reason = Literal["issuer", "client", "audience", "deployment", "signature", "expired", "replayed", "state", "claims",
                 "keys"]
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
REQUIRED = ("sub", "exp", "iat", "nonce", CLAIM + "deployment_id", CLAIM + "message_type", CLAIM + "version")
CLAIM_CHARS = 255  # the longest text claim kept (lti_accounts.subject and the deployment's column)
# pylti1p3's messages, as the check they come from.
_REASONS: tuple[tuple[str, Reason], ...] = (
    ("Signature has expired", "expired"), ("The token is not yet valid", "expired"),
    ("Can't decode id_token", "signature"), ("public key", "signature"), ("JWT KID", "signature"),
    ("JWT ALG", "signature"), ("Invalid Nonce", "replayed"), ('"nonce" is empty', "claims"),
    ("State not found", "state"), ("Missing state", "state"), ("deployment", "deployment"),
    ("Registration not found", "issuer"), ("Client id not registered", "audience"),
    ("Error during fetch", "keys"), ("Invalid response", "keys"),
)  # fmt: skip


class LaunchRefused(Exception):
    """A login or launch refused; `reason` names the check, `detail` is for the log (and shown for claims)."""

    def __init__(self, reason: Reason, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


def tool_conf(key_sets: dict[int, dict[str, Any]] | None = None) -> platforms.ToolConf:
    """The registry as pylti1p3 reads it, with the tool's key (and platforms' key sets at hand)."""
    return platforms.ToolConf(app_key(), key_sets)


def login_redirect(launch_url: str, issuer: str, client_id: str | None) -> Response:
    """Answer the platform's login initiation with a redirect to its authorisation endpoint; the login's
    state goes in cookies of its own (login_state), never in the session."""
    if issuer and platforms.known_issuer(issuer) and client_id and client_id not in platforms.client_ids(issuer):
        raise _refused("client", f"client id {client_id[:80]!r} is not registered for issuer {issuer[:200]!r}")
    kept = login_state.load()
    oidc = FlaskOIDCLogin(FlaskRequest(), tool_conf(), launch_data_storage=kept)
    try:
        response = cast(Response, oidc.redirect(launch_url))
    except OIDCException as error:
        raise _refused("issuer" if "registration" in str(error) else "claims", str(error)) from None
    login_state.save(response, kept)
    return response


def _unverified_body(token: str) -> dict[str, Any]:
    """The id_token's claims before any check, to name what is wrong with it; {} when it is no JWT."""
    try:
        body = token.split(".")[1]
        decoded = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    except (IndexError, ValueError):
        return {}
    return decoded if isinstance(decoded, dict) else {}


def _key_sets(id_token: str, body: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The key set of the platform the token names (issuer and audience), kept or fetched (key_sets)."""
    audience = body.get("aud")
    audiences = set(audience if isinstance(audience, list) else [audience])
    client = min(audiences & platforms.client_ids(str(body["iss"])))
    platform = platforms.find(str(body["iss"]), client)
    if platform is None:
        return {}
    try:
        kid = jwt.get_unverified_header(id_token).get("kid")
    except jwt.PyJWTError:
        kid = None
    try:
        return {platform.id: key_sets.for_launch(platform, kid, platforms.TimedSession())}
    except (requests.RequestException, ValueError) as error:
        raise _refused("keys", f"the platform's key set could not be fetched ({type(error).__name__})") from None


def _precheck(body: dict[str, Any]) -> None:
    """Unknown issuer and wrong audience, said as such (pylti1p3 reports both as a missing registration)."""
    issuer = body.get("iss")
    if not isinstance(issuer, str) or not issuer:
        raise _refused("claims", "the id_token has no issuer (iss)")
    if not platforms.known_issuer(issuer):
        raise _refused("issuer", f"issuer {issuer!r} is not registered")
    audience = body.get("aud")
    audiences = set(audience if isinstance(audience, list) else [audience])
    if not audiences & platforms.client_ids(issuer):
        raise _refused("audience", f"audience {audience!r} is not our client id at {issuer!r}")
    missing = [name for name in REQUIRED if body.get(name) in (None, "")]
    if missing:  # said before the signature check, which would report a missing "sub" as a bad signature
        raise _refused("claims", ", ".join(name.removeprefix(CLAIM) for name in missing))
    _check_shapes(body)


def _check_shapes(body: dict[str, Any]) -> None:
    """Claims of the types the standard gives them, short enough for the columns that keep them."""
    # A list for a deployment id made an unhashable-key 500 in pylti1p3; a long sub would not fit its column.
    texts = [name for name in REQUIRED if name not in ("exp", "iat")]
    wrong = [name for name in texts if not isinstance(body[name], str) or len(body[name]) > CLAIM_CHARS]
    roles = body.get(CLAIM + "roles", [])
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        wrong.append(CLAIM + "roles")
    if wrong:
        raise _refused("claims", "malformed: " + ", ".join(name.removeprefix(CLAIM) for name in wrong))


def _reason(error: Exception) -> Reason:
    text = str(error)
    return next((reason for needle, reason in _REASONS if needle in text), "claims")


def _refused(reason: Reason, detail: str) -> LaunchRefused:
    log.warning("LTI launch refused (%s): %s", reason, detail)
    return LaunchRefused(reason, detail)


def _spend(nonce: str) -> None:
    """Keep the nonce as used; a second launch with it is a replay. Commits.

    Nonces older than a day go: their tokens expired long before (platforms give minutes), so the
    signature check refuses them already."""
    db.session.execute(sa.delete(UsedNonce).where(UsedNonce.used_at < utcnow() - timedelta(days=1)))
    db.session.add(UsedNonce(nonce=nonce))
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        raise _refused("replayed", f"nonce {nonce[:40]!r} was used already") from None


@dataclass(frozen=True)
class Launch:
    """A checked launch: its claims and the platform it came from."""

    claims: dict[str, Any]
    platform_id: int
    message: FlaskMessageLaunch
    login: login_state.LoginState  # this browser's login state: spend() it on the reply

    def claim(self, name: str, default: Any = None) -> Any:
        """An LTI claim by its short name (message_type, roles, custom, context, ...)."""
        return self.claims.get(CLAIM + name, default)


def _check_browser(nonce: str, state: str, kept: login_state.LoginState) -> None:
    """A spent nonce is a replay, whatever the cookies; else a login this browser did not begin (or whose
    cookies it withheld) is named as such, never as a replay."""
    if db.session.get(UsedNonce, nonce[:255]) is not None:
        raise _refused("replayed", f"nonce {nonce[:40]!r} was used already")
    if not login_state.state_came_back(state):
        raise _refused("state", "the state cookie set at login did not come back: the login began in another "
                                "browser, or this one withheld the cookie (third-party cookies blocked in a frame, "
                                "or SameSite on plain http)")  # fmt: skip
    if not kept.has(nonce):
        raise _refused("state", "the nonce was not issued to this browser (its login cookie did not come back)")


def validate(id_token: str, state: str) -> Launch:
    """Check a launch (state, nonce, registration, signature, deployment, message claims); raises LaunchRefused."""
    if not id_token:
        raise _refused("claims", "the launch carries no id_token")
    body = _unverified_body(id_token)
    _precheck(body)
    kept = login_state.load()
    _check_browser(str(body["nonce"]), state, kept)
    message = FlaskMessageLaunch(FlaskRequest(), tool_conf(_key_sets(id_token, body)), launch_data_storage=kept,
                                 requests_session=platforms.TimedSession())  # fmt: skip
    try:
        claims = dict(message.validate().get_launch_data())
    except LtiException as error:
        raise _refused(_reason(error), str(error)) from None
    except requests.RequestException as error:
        raise _refused("keys", f"the platform's key set could not be fetched ({type(error).__name__})") from None
    platform = platforms.find(str(claims["iss"]), message.get_client_id())
    assert platform is not None  # the registration was just found
    _spend(str(claims["nonce"]))
    return Launch(claims, platform.id, message, kept)


def service_url(launch: Launch, url: object, service: str) -> str | None:
    """A service URL the launch names (AGS line item, NRPS memberships) when it is an http(s) URL on one of the
    platform's hosts (its issuer's, its endpoints', or the course page's, which Canvas serves from the school's
    own host); else None, logged: the service never sends its tokens, or requests, anywhere else."""
    platform = platforms.find(str(launch.claims["iss"]), launch.message.get_client_id())
    hosts = {urlsplit(o).hostname for o in frame_origins(launch)} | {
        urlsplit(u).hostname for u in ((platform.auth_token_url, platform.key_set_url) if platform else ())}
    parts = urlsplit(url if isinstance(url, str) else "")
    if parts.scheme in ("http", "https") and parts.hostname and parts.hostname in hosts:
        return str(url)
    if url:
        log.warning("LTI %s URL ignored: host %r is not the platform's", service, parts.hostname)
    return None


def course_page(id_token: str) -> str | None:
    """The page a refused launch names as its return (the LMS's course), when it is on a registered platform's
    site: opened in a new window, the activity can be started again there. None otherwise."""
    presentation = _unverified_body(id_token).get(CLAIM + "launch_presentation")
    back = presentation.get("return_url") if isinstance(presentation, dict) else None
    parts = urlsplit(back if isinstance(back, str) else "")
    origin = f"{parts.scheme}://{parts.netloc}"
    return back if parts.scheme in ("http", "https") and origin in platforms.all_origins() else None


def frame_origins(launch: Launch) -> list[str]:
    """Where this session's pages may be framed: the platform's origins, and the page the launch names as its
    return (Canvas serves courses from the school's own host, not the issuer's)."""
    platform = platforms.find(str(launch.claims["iss"]), launch.message.get_client_id())
    found = set(platforms.origins_of(platform) if platform else [])
    back = (launch.claim("launch_presentation") or {}).get("return_url") or ""
    parts = urlsplit(back if isinstance(back, str) else "")
    if parts.scheme in ("http", "https") and parts.netloc:
        found.add(f"{parts.scheme}://{parts.netloc}")
    return sorted(found)
