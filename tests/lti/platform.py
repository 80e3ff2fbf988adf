"""A fake LMS for the LTI tests: its own RSA key and JWKS, an OIDC authorisation endpoint, an OAuth2
token endpoint that checks the tool's signed assertion against the tool's JWKS, and line items that
record the scores they get. Served by a threaded http.server on loopback.

With `moodle` set it speaks as Moodle 4.5 does: short role names in its roster (NRPS), full role URIs
in launches, its own locale names (pt_br), and an HTML page when it refuses a token request."""

from __future__ import annotations

import html
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
CLIENT_ID = "grader-tool"
DEPLOYMENT_ID = "deployment-1"
KID = "platform-key-1"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


MOODLE_ERROR_PAGE = "\n".join([
    "<!DOCTYPE html>", '<html dir="ltr" lang="en" xml:lang="en">', "<head>", "<title>Error | Moodle</title>",
    '<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />', "</head>",
    '<body id="page-error">', '<div class="box errorbox alert alert-danger">',
    '<p class="errormessage">Invalid client</p>', '<p class="errorcode">invalid_client</p>', "</div>",
    "</body>", "</html>"])  # 13 lines, as Moodle answers a token request it refuses


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@dataclass
class FakePlatform:
    """The LMS's state: what it issued and what it received."""

    key: rsa.RSAPrivateKey = field(default_factory=new_key)
    tool_jwks: dict[str, Any] = field(default_factory=dict)  # the tool's /lti/jwks, to check its assertions
    scores: list[dict[str, Any]] = field(default_factory=list)  # (line item path, score) as received
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)
    down: bool = False  # the token and score endpoints answer 503
    pending: dict[str, Any] = field(default_factory=dict)  # the next browser launch: claims for /auth
    deep_link_returns: list[dict[str, Any]] = field(default_factory=list)
    members: list[dict[str, Any]] = field(default_factory=list)  # the course's roster (NRPS)
    moodle: bool = False  # Moodle's shapes (see the module's docstring)
    kid: str = KID  # the id of the key it signs with and publishes
    jwks_fetches: int = 0
    refuse_tokens: bool = False  # the token endpoint answers 400, as Moodle does for an unknown client
    port: int = 0
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def issuer(self) -> str:
        return self.url

    def cli_args(self) -> list[str]:
        return ["lti", "platform", "add", "--issuer", self.issuer, "--client-id", CLIENT_ID,
                "--deployment-id", DEPLOYMENT_ID, "--auth-login-url", f"{self.url}/auth",
                "--auth-token-url", f"{self.url}/token", "--key-set-url", f"{self.url}/jwks"]

    def jwks(self) -> dict[str, Any]:
        public = json.loads(RSAAlgorithm.to_jwk(self.key.public_key()))
        public.update(kid=self.kid, alg="RS256", use="sig")
        return {"keys": [public]}

    def claims(self, nonce: str, sub: str = "learner-1", roles: tuple[str, ...] | None = (LEARNER,),
               **extra: Any) -> dict[str, Any]:
        """A resource-link launch's claims for `sub`; `extra` adds or replaces claims (None removes one)."""
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer, "aud": CLIENT_ID, "sub": sub, "iat": now, "exp": now + 300, "nonce": nonce,
            "name": "Ana Learner", "email": f"{sub}@school.example",
            CLAIM + "deployment_id": DEPLOYMENT_ID, CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0", CLAIM + "roles": list(roles or ()),
            CLAIM + "resource_link": {"id": "link-1", "title": "An exercise"},
            CLAIM + "context": {"id": "course-1", "title": "Transformers 101"},
            CLAIM + "launch_presentation": {"locale": "pt_br" if self.moodle else "en-US",
                                            "return_url": f"{self.url}/course"},
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/score"],
                "lineitem": f"{self.url}/lineitems/1?course=1"},
        }
        if roles is None:
            del body[CLAIM + "roles"]
        for name, value in extra.items():
            plain = name in body or name.startswith("https://") or name in ("iss", "aud", "sub", "exp", "iat", "nonce")
            key = name if plain else CLAIM + name
            if value is None:
                body.pop(key, None)
            else:
                body[key] = value
        return body

    def sign(self, body: dict[str, Any], key: rsa.RSAPrivateKey | None = None, kid: str | None = None) -> str:
        return jwt.encode(body, pem(key or self.key), algorithm="RS256", headers={"kid": kid or self.kid})

    def check_assertion(self, assertion: str) -> dict[str, Any]:
        """The tool's client assertion, checked against the tool's published JWKS (raises when it is not)."""
        header = jwt.get_unverified_header(assertion)
        [key] = [k for k in self.tool_jwks["keys"] if k["kid"] == header["kid"]]
        return jwt.decode(assertion, RSAAlgorithm.from_jwk(json.dumps(key)), algorithms=["RS256"],
                          audience=f"{self.url}/token")

    def start(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def _handler(platform: FakePlatform) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: str, kind: str = "application/json") -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _form(self) -> dict[str, str]:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
            return {k: v[0] for k, v in parse_qs(raw).items()}

        def do_GET(self) -> None:
            path = urlsplit(self.path)
            if path.path == "/jwks":
                platform.jwks_fetches += 1
                return self._reply(200, json.dumps(platform.jwks()))
            if path.path == "/auth":  # OIDC authorisation: an auto-posting form with the id_token
                query = {k: v[0] for k, v in parse_qs(path.query).items()}
                body = platform.claims(query["nonce"], **platform.pending)
                token = platform.sign(body)
                page = (f'<form method="post" action="{html.escape(query["redirect_uri"])}" id="f">'
                        f'<input type="hidden" name="id_token" value="{token}">'
                        f'<input type="hidden" name="state" value="{html.escape(query["state"])}"></form>'
                        '<script>document.getElementById("f").submit()</script>')
                return self._reply(200, page, "text/html")
            if path.path == "/memberships":
                if self.headers.get("Authorization", "").removeprefix("Bearer ") not in platform.tokens:
                    return self._reply(401, '{"error": "no token"}')
                members = [{**m, "roles": [str(r).rsplit("#", 1)[-1] for r in m.get("roles", [])]} if platform.moodle
                           else m for m in platform.members]  # fmt: skip
                return self._reply(200, json.dumps({"id": f"{platform.url}/memberships",
                                                    "context": {"id": "course-1"}, "members": members}))
            if path.path == "/course":  # the LMS's course page: it embeds the tool and starts a launch in the frame
                query = {k: v[0] for k, v in parse_qs(path.query).items()}
                fields = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in {
                    "iss": platform.issuer, "login_hint": "hint-1", "client_id": CLIENT_ID,
                    "lti_deployment_id": DEPLOYMENT_ID, "target_link_uri": query["tool"] + "/lti/launch"}.items())
                page = (f'<!doctype html><title>Course</title><h1>Transformers 101</h1>'
                        f'<form method="get" action="{html.escape(query["tool"])}/lti/login" target="tool" id="go">'
                        f'{fields}</form><iframe name="tool" id="tool" title="Exercise" width="1000" height="700">'
                        '</iframe><script>document.getElementById("go").submit()</script>')
                return self._reply(200, page, "text/html")
            return self._reply(404, "{}")

        def do_POST(self) -> None:
            path = urlsplit(self.path)
            if platform.down:
                return self._reply(503, '{"error": "down"}')
            if path.path == "/token":
                form = self._form()
                if platform.refuse_tokens:
                    return self._reply(400, MOODLE_ERROR_PAGE, "text/html")
                claims = platform.check_assertion(form["client_assertion"])
                platform.token_requests.append({"form": form, "claims": claims})
                token = uuid.uuid4().hex
                platform.tokens.add(token)
                return self._reply(200, json.dumps({"access_token": token, "token_type": "bearer",
                                                    "expires_in": 3600, "scope": form.get("scope", "")}))
            if path.path.startswith("/lineitems/") and path.path.endswith("/scores"):
                bearer = self.headers.get("Authorization", "").removeprefix("Bearer ")
                if bearer not in platform.tokens:
                    return self._reply(401, '{"error": "no token"}')
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                platform.scores.append({"path": self.path, "type": self.headers.get("Content-Type"),
                                        "score": json.loads(raw)})
                return self._reply(200, "{}")
            if path.path == "/deep-link-return":
                platform.deep_link_returns.append(self._form())
                return self._reply(200, "<p>activity added</p>", "text/html")
            return self._reply(404, "{}")

    return Handler
