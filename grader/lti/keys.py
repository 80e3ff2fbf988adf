"""The tool's RSA key pair: it signs our messages to platforms (deep-linking responses, token requests).

Kept like the session key: GRADER_LTI_PRIVATE_KEY (PEM) when set, else generated once and kept in
instance/lti_private_key.pem, readable by its owner only. The public half is published at /lti/jwks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from pylti1p3.registration import Registration

KEY_FILE = "lti_private_key.pem"
KEY_BITS = 2048


@dataclass(frozen=True)
class ToolKey:
    """The private key (PEM), its public half (PEM) and the key id platforms look it up by."""

    private_pem: str
    public_pem: str
    kid: str

    def jwks(self) -> dict[str, Any]:
        """The public key as a JSON Web Key Set (pylti1p3's form, so its kid is the one our JWTs carry)."""
        return {"keys": [dict(Registration.get_jwk(self.public_pem))]}


def _new_private_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()  # fmt: skip


def _stored_pem(instance: Path) -> str:
    """The key kept in instance/, made on first use (mode 0600, created exclusively: two workers agree)."""
    path = instance / KEY_FILE
    if not path.exists():
        instance.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it meanwhile
            return path.read_text()
        with os.fdopen(fd, "w") as handle:
            handle.write(_new_private_pem())
    return path.read_text()


def tool_key(instance: Path, env: Mapping[str, str] | None = None) -> ToolKey:
    """The tool's key pair, from the environment or instance/."""
    env = os.environ if env is None else env
    private_pem = env.get("GRADER_LTI_PRIVATE_KEY") or _stored_pem(instance)
    try:
        private = serialization.load_pem_private_key(private_pem.encode(), password=None)
    except ValueError:
        raise ValueError("GRADER_LTI_PRIVATE_KEY (or instance/lti_private_key.pem) is not an unencrypted PEM "
                         "private key") from None  # fmt: skip
    if not isinstance(private, rsa.RSAPrivateKey):
        raise ValueError("the LTI key must be an RSA key")
    public_pem = private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()  # fmt: skip
    return ToolKey(private_pem, public_pem, str(Registration.get_jwk(public_pem)["kid"]))


def app_key() -> ToolKey:
    """The running app's key pair, read once per process."""
    from flask import current_app

    key = current_app.extensions.get("lti_key")
    if key is None:
        key = current_app.extensions["lti_key"] = tool_key(Path(current_app.instance_path))
    return key
